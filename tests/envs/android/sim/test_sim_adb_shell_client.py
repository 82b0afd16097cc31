"""Third-party adb clients: the pure-Python adb-shell (AdbDeviceTcp), and the CLSE handshake it relies on.

adb-shell ends every sync operation by sending CLSE and waiting for the device's CLSE, as adbd sends one
back (AOSP `remote_socket_shutdown`). Each operation gets a 2 s transport timeout: without the echo it raises.
"""

from __future__ import annotations

import socket

import pytest

from crab_gym.envs.android.sim.adbd import protocol as p

TIMEOUT = 2.0  # a lost CLSE echo raises a TcpTimeoutException after this many seconds


@pytest.fixture(scope="module")
def device(served):
    adb_device = pytest.importorskip("adb_shell.adb_device")
    dev = adb_device.AdbDeviceTcp(served.host, served.port, default_transport_timeout_s=TIMEOUT)
    assert dev.connect(rsa_keys=None, transport_timeout_s=TIMEOUT, auth_timeout_s=TIMEOUT)
    yield dev
    dev.close()


def test_adb_shell_shell(device):
    out = device.shell(
        "echo hi; getprop ro.product.model", transport_timeout_s=TIMEOUT, read_timeout_s=TIMEOUT
    )
    assert out == "hi\nCrabPhone\n"
    assert device.available


def test_adb_shell_list_push_pull(device, tmp_path):
    names = {bytes(f.filename).decode() for f in device.list("/sdcard", transport_timeout_s=TIMEOUT)}
    assert {"Download", "DCIM", "."} <= names
    payload = bytes(range(256)) * 1200  # 300 kB: more than one sync DATA chunk and one WRTE
    src = tmp_path / "up.bin"
    src.write_bytes(payload)
    device.push(str(src), "/sdcard/Download/up.bin", transport_timeout_s=TIMEOUT, read_timeout_s=TIMEOUT)
    assert device.shell("ls -l /sdcard/Download/up.bin", transport_timeout_s=TIMEOUT).split()[4] == str(
        len(payload)
    )
    dst = tmp_path / "down.bin"
    device.pull("/sdcard/Download/up.bin", str(dst), transport_timeout_s=TIMEOUT, read_timeout_s=TIMEOUT)
    assert dst.read_bytes() == payload
    st = device.stat("/sdcard/Download/up.bin", transport_timeout_s=TIMEOUT)
    assert st[1] == len(payload)
    # the connection is still in step after all those handshakes
    assert device.shell("echo still", transport_timeout_s=TIMEOUT) == "still\n"


# --- the CLSE handshake on the raw wire -----------------------------------------------------------------


def _session(served) -> socket.socket:
    s = socket.create_connection((served.host, served.port), timeout=5)
    s.sendall(p.pack(p.CNXN, p.A_VERSION, 4096, b"host::features=shell_v2\0"))
    assert p.read_message(s).command == p.CNXN
    return s


def _nothing_more(s: socket.socket, wait: float = 0.3) -> bool:
    s.settimeout(wait)
    try:
        return not s.recv(1)
    except TimeoutError:
        return True
    finally:
        s.settimeout(5)


def test_host_close_of_an_open_stream_is_echoed_once(served):
    with _session(served) as s:
        s.sendall(p.pack(p.OPEN, 11, 0, b"sync:\0"))  # sync waits for requests: the stream stays open
        m = p.read_message(s)
        assert (m.command, m.arg1) == (p.OKAY, 11)
        local = m.arg0
        s.sendall(p.pack(p.CLSE, 11, local))
        m = p.read_message(s)
        assert (m.command, m.arg0, m.arg1) == (p.CLSE, local, 11)
        s.sendall(p.pack(p.CLSE, 11, local))  # the stream is gone: a second CLSE is not answered
        assert _nothing_more(s)


def test_host_close_after_our_close_gets_no_second_close(served):
    with _session(served) as s:
        s.sendall(p.pack(p.OPEN, 12, 0, b"shell:echo x\0"))
        m = p.read_message(s)
        assert m.command == p.OKAY
        local = m.arg0
        m = p.read_message(s)
        assert (m.command, m.data) == (p.WRTE, b"x\n")
        s.sendall(p.pack(p.OKAY, 12, local))
        m = p.read_message(s)
        assert (m.command, m.arg0, m.arg1) == (p.CLSE, local, 12)
        s.sendall(p.pack(p.CLSE, 12, local))  # the host's echo of our CLSE, as the adb host sends it
        assert _nothing_more(s)


def test_close_with_a_wrong_peer_id_is_ignored(served):
    with _session(served) as s:
        s.sendall(p.pack(p.OPEN, 13, 0, b"sync:\0"))
        local = p.read_message(s).arg0
        s.sendall(p.pack(p.CLSE, 99, local))  # not this stream's peer: adbd finds no socket
        assert _nothing_more(s)
        s.sendall(p.pack(p.CLSE, 0, local))  # a peer id of 0 matches any stream, as in adbd
        m = p.read_message(s)
        assert (m.command, m.arg0, m.arg1) == (p.CLSE, local, 13)

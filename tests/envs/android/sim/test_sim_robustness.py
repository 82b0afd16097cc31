"""Nothing a host sends takes the device offline: garbage, truncated or huge messages, unknown services."""

from __future__ import annotations

import socket
import struct
import time

import pytest

from crab_gym.envs.android.sim.adbd import protocol as p
from crab_gym.envs.android.sim.shell.context import REGISTRY


def _connect_raw(served) -> socket.socket:
    s = socket.create_connection((served.host, served.port), timeout=5)
    return s


def _cnxn(s: socket.socket, maxdata: int = 4096) -> p.Message:
    s.sendall(p.pack(p.CNXN, p.A_VERSION, maxdata, b"host::features=shell_v2\0"))
    return p.read_message(s)


def _is_closed(s: socket.socket) -> bool:
    s.settimeout(5)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


GARBAGE = [
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + b"\0" * 24,
    bytes(range(256)) * 4,
    struct.pack("<6I", p.CNXN, 0, 0, 0, 0, 0),  # bad magic
    struct.pack("<6I", p.WRTE, 1, 1, 0xFFFFFFF0, 0, p.WRTE ^ 0xFFFFFFFF),  # huge length
    p.pack(p.CNXN, p.A_VERSION, 4096, b"host::")[:13],  # truncated header
    p.pack(p.OPEN, 1, 0, b"shell:echo hi\0")[:30],  # truncated payload
]


@pytest.mark.parametrize("junk", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_closes_only_that_connection(adb, served, junk):
    s = _connect_raw(served)
    with s:
        try:
            s.sendall(junk)
            s.shutdown(socket.SHUT_WR)
        except OSError:  # the phone dropped the connection before we were done sending: closed, as wanted
            pass
        assert _is_closed(s)
    assert adb("-s", served.serial, "shell", "echo alive").stdout == b"alive\n"
    assert adb.wait_device(served.serial, timeout=2) == "device"


def test_raw_session_flow_control_and_unknown_service(served):
    with _connect_raw(served) as s:
        reply = _cnxn(s, maxdata=4096)
        assert reply.command == p.CNXN and reply.arg0 == p.A_VERSION and reply.data.startswith(b"device::")
        assert b"features=shell_v2" in reply.data and b"brotli" not in reply.data  # only what we implement
        s.sendall(p.pack(p.OPEN, 5, 0, b"no-such-service:\0"))
        m = p.read_message(s)
        assert (m.command, m.arg1) == (p.CLSE, 5)
        # a 20 kB output must come in WRTEs of at most the host's 4096 bytes, one per OKAY
        s.sendall(
            p.pack(
                p.OPEN,
                6,
                0,
                b"exec:sqlite3 /sdcard/z.db 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                b"SELECT x+1 FROM c WHERE x<4000) SELECT x FROM c'\0",
            )
        )
        m = p.read_message(s)
        assert m.command == p.OKAY and m.arg1 == 6
        local = m.arg0
        got = b""
        while True:
            m = p.read_message(s)
            if m.command == p.CLSE:
                break
            assert m.command == p.WRTE and len(m.data) <= 4096
            got += m.data
            s.settimeout(0.3)
            with pytest.raises(TimeoutError):  # nothing more until we acknowledge
                s.recv(1)
            s.settimeout(5)
            s.sendall(p.pack(p.OKAY, 6, local))
        assert got.splitlines()[-1] == b"4000" and len(got) > 4096 * 4


def test_raising_command_and_many_streams_keep_the_device_online(adb, served):
    def boom(ctx, args):
        raise RuntimeError("inside a command")

    REGISTRY["crab_boom"] = boom
    try:
        r = adb("-s", served.serial, "shell", "crab_boom")
        assert r.returncode == 1 and b"inside a command" in r.stderr
    finally:
        del REGISTRY["crab_boom"]
    # streams abandoned mid-way, closes for unknown ids, WRTEs to nowhere
    with _connect_raw(served) as s:
        _cnxn(s)
        s.sendall(p.pack(p.OPEN, 9, 0, b"shell:cat\0"))
        s.sendall(p.pack(p.WRTE, 77, 12345, b"nobody"))
        s.sendall(p.pack(p.CLSE, 1, 999))
        s.sendall(p.pack(p.OKAY, 1, 999))
        s.sendall(p.pack(p.OPEN, 0, 0, b"shell:echo\0"))  # local id 0 is invalid
        time.sleep(0.2)
    assert adb("-s", served.serial, "shell", "echo still here").stdout == b"still here\n"
    assert adb.wait_device(served.serial, timeout=2) == "device"


def test_a_new_adb_connection_after_garbage(adb, served):
    with _connect_raw(served) as s:
        s.sendall(b"\xff" * 100)
    adb("disconnect", served.serial, check=False)
    assert "connected to" in adb("connect", served.serial).stdout.decode()
    assert adb.wait_device(served.serial) == "device"
    assert adb("-s", served.serial, "shell", "echo back").stdout == b"back\n"


def test_fuzzed_sessions_never_take_the_device_offline(adb, served):
    """Well-framed but random messages: random commands, ids, services, payloads; then adb still works."""
    import random

    rng = random.Random(1234)
    services = [b"shell:echo x", b"shell,v2,raw:cat", b"sync:", b"exec:true", b"root:", b"tcpip:5555"]
    services += [
        b"\xff\xfe",
        b"shell:" + bytes(rng.randrange(256) for _ in range(40)),
        b"framebuffer:",
        b"jdwp:1",
    ]
    commands = [p.CNXN, p.OPEN, p.OKAY, p.WRTE, p.CLSE, p.AUTH, p.SYNC, p.STLS]
    for session in range(12):
        with _connect_raw(served) as s:
            s.settimeout(2)
            try:
                if session % 3:
                    _cnxn(s)
                for _ in range(40):
                    cmd = rng.choice(commands)
                    if cmd == p.OPEN:
                        data = rng.choice(services) + b"\0"
                    else:
                        data = bytes(rng.randrange(256) for _ in range(rng.choice((0, 4, 8, 64, 300))))
                    s.sendall(
                        p.pack(
                            cmd,
                            rng.choice((0, 1, 2, 3, rng.randrange(1 << 32))),
                            rng.choice((0, 1, 2, 3, rng.randrange(1 << 32))),
                            data,
                        )
                    )
            except OSError:
                pass  # the device may drop a connection that misbehaves; that is allowed
    time.sleep(0.2)
    assert adb.wait_device(served.serial, timeout=5) == "device"
    assert adb("-s", served.serial, "shell", "echo fuzz-ok").stdout == b"fuzz-ok\n"


def test_a_flood_into_a_stream_is_throttled_not_buffered_forever(served):
    with _connect_raw(served) as s:
        _cnxn(s, maxdata=1 << 18)
        s.sendall(p.pack(p.OPEN, 3, 0, b"shell,v2,raw:sleep 1\0"))
        m = p.read_message(s)
        assert m.command == p.OKAY
        local = m.arg0
        okays = 0
        s.settimeout(1.0)
        for _ in range(8):  # 8 x 256 kB while the command sleeps: the device stops acknowledging at ~1 MB
            s.sendall(p.pack(p.WRTE, 3, local, b"\0" * (1 << 18)))
        try:
            while True:
                m = p.read_message(s)
                if m.command == p.OKAY:
                    okays += 1
        except TimeoutError:
            pass
        assert okays <= 5

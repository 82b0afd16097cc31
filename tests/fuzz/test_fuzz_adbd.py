"""The phone's adbd server under generated traffic: it never goes offline for a well-behaved client.

``crab-gym phone serve`` runs in its own process; Debian's adb (a private adb server) stays connected to
it. Each generated example opens up to three raw connections and interleaves on them: handshakes, streams
opened on real and bogus services, well-framed messages with random commands, ids and payloads, sync
requests (paths outside the sandbox among them), garbage bytes, truncated messages, headers announcing
oversized payloads, half-closes and abrupt resets (RST). After every example the adb client must still get
``echo ok`` from the device in ``device`` state, and the server process must be alive. Every socket
operation is bounded by a short timeout.
"""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import sys
import time

import pytest
from fuzz_support import budget
from hypothesis import given
from hypothesis import strategies as st

from crab_gym.envs.android.sim.adbd import protocol as p

pytestmark = pytest.mark.fuzz

ADB = shutil.which("adb") or "/usr/bin/adb"
SOCKET_TIMEOUT = 0.3
SERVICES = [
    b"shell:echo x", b"shell:cat", b"shell,v2,raw:cat", b"shell,v2:echo hi; exit 3", b"exec:cat", b"sync:",
    b"exec:sqlite3 /data/data/com.android.providers.contacts/databases/contacts2.db .tables",
    b"root:", b"unroot:", b"reboot:", b"tcpip:5555", b"framebuffer:", b"jdwp:1", b"track-jdwp",
    b"dev:/dev/null", b"localabstract:x", b"tcp:80", b"shell:", b"shell,v2,pty:", b"exec:", b"\xff\xfe", b"",
]  # fmt: skip
SYNC_IDS = [b"STAT", b"LIST", b"RECV", b"SEND", b"DATA", b"DONE", b"QUIT", b"STA2", b"LIS2", b"SND2", b"RCV2"]
PATHS = [
    b"/sdcard/x",
    b"/sdcard/",
    b"../../../../etc/passwd",
    b"/proc/self/environ",
    b"/",
    b"/sdcard/x,33206",
]
COMMANDS = [p.CNXN, p.OPEN, p.OKAY, p.WRTE, p.CLSE, p.AUTH, p.SYNC, p.STLS]
ids = st.one_of(st.integers(0, 5), st.integers(0, 2**32 - 1))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _adb(port: int, *args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}
    return subprocess.run(
        [ADB, "-P", str(port), *args], capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL
    )


@pytest.fixture(scope="module")
def phone_and_adb(tmp_path_factory):
    """A `crab-gym phone serve` process and a private Debian adb server connected to it."""
    if not os.path.exists(ADB):
        pytest.skip("the adb binary is not installed (Debian package adb)")
    port, adb_port = _free_port(), _free_port()
    log = tmp_path_factory.mktemp("adbd") / "serve.log"
    with open(log, "wb") as err:
        server = subprocess.Popen(
            [sys.executable, "-m", "crab_gym.cli", "phone", "serve", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
        )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().decode()
        assert f"127.0.0.1:{port}" in line, line + log.read_text()
        serial = f"127.0.0.1:{port}"
        _adb(adb_port, "start-server", timeout=30)
        assert "connected to" in _adb(adb_port, "connect", serial).stdout.decode()
        yield server, serial, adb_port, log
    finally:
        _adb(adb_port, "kill-server")
        server.terminate()
        server.wait(10)


# -- generated traffic ----------------------------------------------------------------------------------

messages = st.tuples(st.sampled_from(COMMANDS), ids, ids, st.binary(max_size=64))
sync_requests = st.tuples(
    st.one_of(st.sampled_from(SYNC_IDS), st.binary(min_size=4, max_size=4)),
    st.one_of(st.sampled_from(PATHS), st.binary(max_size=24)),
    st.one_of(st.none(), st.integers(0, 2**32 - 1)),
).map(lambda t: t[0] + struct.pack("<I", len(t[1]) if t[2] is None else t[2]) + t[1])
conn = st.integers(0, 2)  # which of the three connections
stream = st.integers(1, 4)  # a local or remote stream id likely to be open
services = st.one_of(st.sampled_from(SERVICES), st.binary(max_size=40))
ops = st.one_of(
    st.tuples(st.just("cnxn"), conn, st.sampled_from([0, 1, 256, 4096, 1 << 20, 2**32 - 1])),
    st.tuples(st.just("open"), conn, ids, services),
    st.tuples(st.just("msg"), conn, messages),
    st.tuples(st.just("wrte"), conn, stream, stream, st.binary(max_size=200)),
    st.tuples(st.just("sync"), conn, stream, stream, sync_requests),
    st.tuples(st.just("raw"), conn, st.binary(min_size=1, max_size=100)),
    st.tuples(st.just("truncated"), conn, messages, st.integers(1, 60)),
    st.tuples(st.just("oversized"), conn, st.sampled_from(COMMANDS), st.integers(p.MAX_PAYLOAD, 2**32 - 1)),
    st.tuples(st.just("big"), conn, stream, st.integers(p.MAX_PAYLOAD - 8, p.MAX_ACCEPTED_PAYLOAD)),
    st.tuples(st.sampled_from(["drain", "half", "reset", "close"]), conn),
)
sessions = st.lists(ops, min_size=1, max_size=25)


class Traffic:
    """Up to three raw connections to the phone, opened on first use; any socket error ends that one."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.socks: dict[int, socket.socket] = {}

    def sock(self, i: int) -> socket.socket:
        if i not in self.socks:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
            s.settimeout(SOCKET_TIMEOUT)
            self.socks[i] = s
        return self.socks[i]

    def send(self, i: int, data: bytes) -> None:
        try:
            self.sock(i).sendall(data)
        except OSError:
            self.drop(i, abrupt=True)

    def drain(self, i: int) -> None:
        try:
            s = self.sock(i)
            while s.recv(1 << 16):
                pass
        except OSError:
            pass

    def drop(self, i: int, abrupt: bool) -> None:
        s = self.socks.pop(i, None)
        if s is None:
            return
        if abrupt:  # RST instead of FIN, as when a host dies
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()

    def run(self, op: tuple) -> None:
        kind, i, *rest = op
        if kind == "cnxn":
            self.send(i, p.pack(p.CNXN, p.A_VERSION, rest[0], b"host::features=shell_v2,cmd\0"))
        elif kind == "open":
            self.send(i, p.pack(p.OPEN, rest[0], 0, rest[1] + b"\0"))
        elif kind == "msg":
            self.send(i, p.pack(*rest[0]))
        elif kind in ("wrte", "sync"):
            self.send(i, p.pack(p.WRTE, rest[0], rest[1], rest[2]))
        elif kind == "raw":
            self.send(i, rest[0])
        elif kind == "truncated":
            self.send(i, p.pack(*rest[0])[: rest[1]])
        elif kind == "oversized":
            cmd, length = rest
            self.send(i, struct.pack("<6I", cmd, 1, 1, length, 0, cmd ^ 0xFFFFFFFF) + b"\0" * 64)
        elif kind == "big":
            self.send(i, p.pack(p.WRTE, rest[0], 1, b"\0" * rest[1]))
        elif kind == "drain":
            self.drain(i)
        elif kind == "half":
            try:
                self.sock(i).shutdown(socket.SHUT_WR)
            except OSError:
                self.drop(i, abrupt=True)
        else:
            self.drop(i, abrupt=kind == "reset")

    def close(self, abrupt: bool) -> None:
        for i in list(self.socks):
            self.drop(i, abrupt)


def _online(serial: str, adb_port: int) -> bool:
    """The well-behaved client's view: the device is listed as ``device`` and answers ``echo ok``."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        res = _adb(adb_port, "-s", serial, "shell", "echo ok")
        if res.stdout == b"ok\n":
            return True
        _adb(adb_port, "connect", serial)  # adb's own reconnect, as a user would run it
        time.sleep(0.2)
    return False


@budget(ci=150, long=3_000)
@given(session=sessions, abrupt_end=st.booleans())
def test_generated_traffic_never_takes_the_device_offline(fuzz_profile, phone_and_adb, session, abrupt_end):
    server, serial, adb_port, log = phone_and_adb
    traffic = Traffic(int(serial.rsplit(":", 1)[1]))
    try:
        for op in session:
            traffic.run(op)
    finally:
        traffic.close(abrupt_end)
    assert server.poll() is None, "the phone server died:\n" + log.read_text()[-3000:]
    assert _online(serial, adb_port), "the device went offline for adb:\n" + log.read_text()[-3000:]
    devices = _adb(adb_port, "devices").stdout.decode()
    assert f"{serial}\tdevice" in devices, devices


def test_no_message_handler_crashed(phone_and_adb):
    """Runs after the fuzzing in this module: nothing a host sent made a message handler or a service raise
    (the server logs such a bug and survives it, but it is still a bug)."""
    *_, log = phone_and_adb
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]

"""`crab-gym phone serve`: loopback by default, a warning for any other address, no death by SIGPIPE when a
host hangs up, and an adb host confined to the phone's sandbox."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crab_gym.envs.android.sim import is_loopback
from crab_gym.envs.android.sim.adbd import protocol as p

ADB = shutil.which("adb") or "/usr/bin/adb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _host_addresses() -> list[str]:
    out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True).stdout
    return [line.split()[3].split("/")[0] for line in out.splitlines() if " lo " not in line]


class Served:
    """`crab-gym phone serve` in a process of its own, stopped on exit."""

    def __init__(self, *args: str) -> None:
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crab_gym.cli", "phone", "serve", "--port", str(self.port), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        self.ready_line = self.proc.stdout.readline().decode()

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(10)

    def stderr(self) -> str:
        self.__exit__()
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()


def test_is_loopback():
    for host in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "", "::", "192.0.2.2", "10.0.0.1", "example.org"):
        assert not is_loopback(host), host


def test_serves_loopback_only_by_default_and_says_nothing():
    with Served() as served:
        assert f"serving adb on 127.0.0.1:{served.port}" in served.ready_line
        socket.create_connection(("127.0.0.1", served.port), timeout=5).close()
        for addr in _host_addresses():
            with pytest.raises(OSError):
                socket.create_connection((addr, served.port), timeout=2).close()
        assert "warning" not in served.stderr().lower()


def test_warns_when_asked_to_bind_elsewhere():
    served = Served("--host", "0.0.0.0")
    with served:
        assert f"0.0.0.0:{served.port}" in served.ready_line
        text = served.stderr()
    assert "warning" in text and "reachable from the network" in text and "127.0.0.1" in text, text


def test_a_host_that_hangs_up_with_replies_pending_does_not_kill_the_server():
    """Found by fuzzing: `crab-gym` set SIGPIPE to its default for every command, so `phone serve` died of
    it when an adb host closed its connection while the phone still had replies to send."""
    with Served() as served:
        for _ in range(10):
            with socket.create_connection(("127.0.0.1", served.port), timeout=5) as s:
                s.sendall(b"".join(p.pack(p.CNXN, p.A_VERSION, 4096, b"host::\0") for _ in range(200)))
        time.sleep(1.0)
        assert served.proc.poll() is None, f"the server died with {served.proc.returncode}"
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as s:
            s.sendall(p.pack(p.CNXN, p.A_VERSION, 4096, b"host::\0"))
            assert p.read_message(s).command == p.CNXN


@pytest.fixture
def adb_on_served():
    if not os.path.exists(ADB):
        pytest.skip("the adb binary is not installed (Debian package adb)")
    adb_port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}

    def adb(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([ADB, "-P", str(adb_port), *args], capture_output=True, timeout=30, env=env)

    with Served() as served:
        serial = f"127.0.0.1:{served.port}"
        adb("start-server")
        assert b"connected to" in adb("connect", serial).stdout
        try:
            yield lambda *args: adb("-s", serial, *args)
        finally:
            adb("kill-server")


def test_an_adb_host_is_confined_to_the_phones_sandbox(adb_on_served, tmp_path):
    adb = adb_on_served
    assert adb("shell", "echo ok").stdout == b"ok\n"
    for path in ("/etc/passwd", "../../../../etc/passwd", "/proc/self/environ", "/root"):
        res = adb("shell", f"cat {path}")
        assert res.returncode != 0 and b"root:" not in res.stdout, (path, res)
        res = adb("pull", path, str(tmp_path / "pulled"))
        assert res.returncode != 0 and not (tmp_path / "pulled").exists(), (path, res)
    src = tmp_path / "payload"
    src.write_text("escaped\n")
    escape = Path("/tmp") / f"crab-gym-escape-{os.getpid()}"
    adb("push", str(src), f"/sdcard/../../../../../..{escape}")
    assert not escape.exists()
    assert adb("shell", "echo still ok").stdout == b"still ok\n"


def test_sqlite_on_the_phone_cannot_open_host_files(adb_on_served):
    """Found while writing these tests: the phone's sqlite3 let ATTACH and VACUUM INTO create files at any
    host path (as the user serving the phone); its authorizer now refuses both."""
    adb = adb_on_served
    escape = Path("/tmp") / f"crab-gym-sqlite-escape-{os.getpid()}.db"
    for sql in (f"ATTACH DATABASE '{escape}' AS e; CREATE TABLE e.t(x);", f"VACUUM INTO '{escape}'"):
        res = adb("shell", f'sqlite3 /sdcard/probe.db "{sql}"')
        assert b"not authorized" in res.stderr + res.stdout or b"denied" in res.stderr + res.stdout, res
        assert not escape.exists()
    res = adb(
        "shell", 'sqlite3 /sdcard/probe.db "CREATE TABLE t(x); INSERT INTO t VALUES(7); SELECT x FROM t;"'
    )
    assert res.stdout == b"7\n"  # inside the sandbox, sqlite3 works as before

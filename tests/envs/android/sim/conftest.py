"""Fixtures: a simulated phone, the phone served over adb, and a private Debian adb server to drive it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest

from crab_gym.envs.android.sim import Phone, PhoneServer

ADB = shutil.which("adb") or "/usr/bin/adb"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Adb:
    """The real adb client, talking to its own adb server on a private port."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}

    def __call__(
        self, *args: str, timeout: float = 30, check: bool = True, input: bytes | None = None
    ) -> subprocess.CompletedProcess:
        """Run `adb -P <port> args...`; a failure raises unless it is a shell command's own exit status."""
        stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        proc = subprocess.run(
            [ADB, "-P", str(self.port), *args], capture_output=True, timeout=timeout, env=self.env, **stdin
        )
        if check and proc.returncode != 0 and "shell" not in args:
            raise AssertionError(f"adb {' '.join(args)} failed ({proc.returncode}): {proc.stderr!r}")
        return proc

    def wait_device(self, serial: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            out = self("devices", check=False).stdout.decode()
            for line in out.splitlines():
                if line.startswith(serial + "\t"):
                    state = line.split("\t")[1]
                    if state == "device":
                        return state
            time.sleep(0.1)
        return state


@pytest.fixture
def phone():
    p = Phone(seed=0)
    yield p
    p.close()


@pytest.fixture(scope="module")
def served():
    p = Phone(seed=0)
    with PhoneServer(p) as server:
        yield server
    p.close()


@pytest.fixture(scope="module")
def adb(served):
    if not os.path.exists(ADB):
        pytest.skip("the adb binary is not installed")
    client = Adb(free_port())
    client("start-server", timeout=30)
    out = client("connect", served.serial).stdout.decode()
    assert "connected to" in out, out
    assert client.wait_device(served.serial) == "device"
    yield client
    client("kill-server", check=False)

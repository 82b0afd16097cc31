"""Faults to inject into a CrabEnv's devices, in the test's process or inside a vector env's worker.

Each fault is found on the thread that owns the env (:func:`prepare`, which may read the X server) and struck
by a callable that only sends a signal or stops the phone's server, so it can also fire from a timer thread
while a step is running.

Which faults end the episode as ``env_error`` and which do not:

- ``xvfb`` (kill -9 the X server): the desktop is gone. Error.
- ``window_manager`` (kill -9 openbox): the X server lives on, but the desktop has no launcher (Super), no
  focus handling and no window placement, so the episode can no longer be the task it was; the desktop's
  settle sees it. Error.
- ``served_phone`` (our adb-sim phone's adbd server stopped, as when a phone is unplugged): Error.
- ``adb_server`` (kill -9 the adb server): every adb device is unreachable. Error.
- ``focused_app`` (kill -9 the app in front): apps exit and crash on their own, and an agent can close or
  kill one itself; the desktop is intact and the task's checks judge the outcome. Not an error.
- ``session_agent`` (kill -9 our in-session reader of the accessibility tree): it holds no state and is
  started again by the next read. Not an error (a read it was answering at that moment fails, and a
  recorder notes the elements it could not read).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import psutil

DESKTOP_FAULTS = ("xvfb", "window_manager", "focused_app", "session_agent")
PHONE_FAULTS = ("served_phone", "adb_server")
ERRORS = frozenset({"xvfb", "window_manager", "served_phone", "adb_server"})


def device_of(fault: str) -> str:
    return "ubuntu" if fault in DESKTOP_FAULTS else "android"


def session_process(session: Any, pattern: str) -> int:
    """The pid of the session process whose name or command line contains ``pattern``."""
    for pid in session.session_pids():
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError):
            continue
        if comm == pattern or pattern in cmd:
            return pid
    raise AssertionError(f"no {pattern!r} process in the desktop session {session.display_name}")


def adb_server_pid(port: int) -> int:
    """The pid of the adb server listening on ``port``."""
    for c in psutil.net_connections(kind="tcp"):
        if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid:
            return c.pid
    raise AssertionError(f"no adb server listens on port {port}")


def dead(pid: int) -> bool:
    """True when ``pid`` has exited (a zombie waiting for its parent counts as exited)."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def kill(pid: int, timeout: float = 10.0) -> Callable[[], None]:
    def strike() -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while not dead(pid):
            if time.monotonic() > deadline:
                raise AssertionError(f"pid {pid} survived kill -9 for {timeout:.0f} s")
            time.sleep(0.005)

    return strike


def prepare(crab: Any, fault: str) -> tuple[Callable[[], None], str]:
    """Find the victim of ``fault`` among ``crab``'s devices: (the strike, what it will do)."""
    if fault in DESKTOP_FAULTS:
        desk = crab.subenvs["ubuntu"]
        session = desk.session
        if fault == "xvfb":
            pid = crab.device_ids()["ubuntu"]["xvfb_pid"]
        elif fault == "window_manager":
            pid = session_process(session, "openbox")
        elif fault == "focused_app":
            win = desk.x.active_window()
            if win is None or win.pid is None:
                desk.open_app("text_editor")
                win = desk.x.active_window()
            assert win is not None and win.pid, "no focused application window to kill"
            pid = win.pid
        else:
            pid = session.agent_client().proc.pid  # running, as once anything read the accessibility tree
        return kill(pid), f"kill -9 {fault} (pid {pid})"
    device = crab.subenvs["android"].device
    if fault == "served_phone":
        server = device.served
        assert server is not None, "served_phone needs the adb-sim backend"
        return server.stop, f"stop the served phone {device.serial}"
    if fault == "adb_server":
        pid = adb_server_pid(crab.device_ids()["android"]["adb_port"])
        return kill(pid), f"kill -9 the adb server (pid {pid})"
    raise ValueError(f"unknown fault {fault!r}")


class FaultHook(gym.Wrapper):
    """The outermost wrapper of a vector env's worker: ``vec.call("inject_fault", fault, ids)`` strikes in
    the one worker whose ``device_ids()`` are ``ids``; the others answer None."""

    def inject_fault(self, fault: str, only: dict[str, Any]) -> str | None:
        crab = self.env.unwrapped
        if crab.device_ids() != only:
            return None
        strike, what = prepare(crab, fault)
        strike()
        return what

"""A desktop session ends by itself once its owner process dies, SIGKILL included, with no other env started
(``session_watch.py``); an owner that closes its session stops its watcher; a watcher ends only its own
session."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from desktop_session_procs import alive

from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop.backends.session_reap import (
    MARKER,
    PREFIX,
    Owner,
    clear_record,
    read_record,
    write_record,
)
from crab_gym.envs.desktop.backends.session_slot import MAX_SLOTS
from crab_gym.envs.desktop.backends.session_watch import SessionWatch
from crab_gym.envs.desktop.primitives.procs import marker_pids
from crab_gym.envs.slot_lock import SlotLock

ROOT = Path(__file__).resolve().parents[3]
BOUND = 60.0  # seconds a dead owner's session may take to end: far above the ~1 s it takes

DESKTOP_OWNER = """
import json, time
from crab_gym.envs.desktop import DesktopEnv
d = DesktopEnv(size=(640, 400))
d.reset()
d.open_app("text_editor")
s = d.session
pids = s.session_pids() + [s._xvfb.pid]
def started(p):
    return open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[19]
print(json.dumps({"slot": s.slot.index, "home": str(s.home), "token": s.token, "watch": s.slot.watch.pid,
                  "procs": {p: started(p) for p in pids},
                  "names": sorted(open(f"/proc/{p}/comm").read().strip() for p in pids)}), flush=True)
time.sleep(600)
"""

# An owner without a desktop: it takes the highest free slot (clear of the ones desktop tests take), records
# a session of one `sleep` carrying the session's marker, starts the watcher, then waits to be killed.
FAKE_OWNER = """
import json, os, subprocess, sys, time
from crab_gym.envs.desktop.backends.session_reap import MARKER, PREFIX, Owner, write_record
from crab_gym.envs.desktop.backends.session_slot import MAX_SLOTS
from crab_gym.envs.desktop.backends.session_watch import SessionWatch
from crab_gym.envs.slot_lock import SlotLock
token, root = sys.argv[1], sys.argv[2]
lock = SlotLock(PREFIX, reversed(range(MAX_SLOTS)))
n = lock.index
d = os.path.join(root, f"s{n}")
os.mkdir(d)
sleeper = subprocess.Popen(["sleep", "600"], env={MARKER: token}, start_new_session=True)
write_record(n, Owner(os.getpid(), token, os.getuid(), False, d))
watch = SessionWatch(n, token)
print(json.dumps({"slot": n, "dir": d, "sleeper": sleeper.pid, "watch": watch.pid}), flush=True)
time.sleep(600)
"""


def _start(code: str, *args: str) -> tuple[subprocess.Popen, dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    owner = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env=env)
    line = owner.stdout.readline()  # type: ignore[union-attr]  # stdout=PIPE
    if not line:
        owner.kill()
        owner.wait()
        pytest.fail("the owner process did not start its session")
    return owner, json.loads(line)


def _sigkill(owner: subprocess.Popen) -> None:
    owner.send_signal(signal.SIGKILL)
    owner.wait()


def _wait_until(cond, what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not cond():
        assert time.monotonic() < deadline, f"{what} after {BOUND:.0f} s"
        time.sleep(0.05)


def test_a_sigkilled_envs_session_ends_with_no_other_env_started():
    owner, seen = _start(DESKTOP_OWNER)
    try:
        assert {"Xvfb", "openbox", "dbus-daemon", "mousepad"} <= set(seen["names"]), seen["names"]
        assert alive(seen["watch"])
    finally:
        _sigkill(owner)
    procs = seen["procs"].items()
    _wait_until(lambda: not any(alive(int(p), started) for p, started in procs), "the session still runs")
    _wait_until(lambda: not alive(seen["watch"]), "the watcher still runs")
    assert marker_pids(f"{MARKER}={seen['token']}".encode()) == []  # nor one it started after it reported
    assert not Path(seen["home"]).exists()
    record = read_record(seen["slot"])
    assert record is None or record.token != seen["token"]  # none, or a new owner's (another run's env)


def test_closing_the_env_stops_its_watcher():
    d = DesktopEnv(size=(640, 400))
    try:
        d.reset()
        watch = d.session.slot.watch.pid
        assert watch is not None and alive(watch)
    finally:
        d.close()
    assert not alive(watch)


def test_the_watcher_of_a_killed_owner_ends_its_session(tmp_path):
    owner, seen = _start(FAKE_OWNER, secrets.token_hex(8), str(tmp_path))
    assert alive(seen["sleeper"]) and alive(seen["watch"])
    _sigkill(owner)
    _wait_until(lambda: not alive(seen["watch"]), "the watcher still runs")
    assert not alive(seen["sleeper"])
    assert not Path(seen["dir"]).exists()
    assert read_record(seen["slot"]) is None


def test_a_watcher_leaves_a_session_that_is_not_its_own(tmp_path):
    """The slot's record names another session when the owner dies (its own was closed and the slot taken
    again): the watcher ends nothing."""
    owner, seen = _start(FAKE_OWNER, secrets.token_hex(8), str(tmp_path))
    other = Owner(owner.pid, secrets.token_hex(8), os.getuid(), False, seen["dir"])
    try:
        write_record(seen["slot"], other)
        _sigkill(owner)
        _wait_until(lambda: not alive(seen["watch"]), "the watcher still runs")
        assert alive(seen["sleeper"])
        assert Path(seen["dir"]).exists()
        assert read_record(seen["slot"]) == other
    finally:
        os.kill(seen["sleeper"], signal.SIGKILL)
        lock = SlotLock(PREFIX, [seen["slot"]])
        if lock.index is not None:  # else another run's allocation is reaping it, record and all
            if read_record(seen["slot"]) == other:
                clear_record(seen["slot"])
            lock.release()


def test_no_interpreter_to_run_the_watcher_is_a_warning_not_a_failed_start(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")
    with pytest.warns(UserWarning, match="no watcher for desktop slot"):
        watch = SessionWatch(MAX_SLOTS - 1, secrets.token_hex(8))
    assert watch.pid is None
    watch.stop()

"""A desktop env's process killed with SIGKILL leaves nothing of its session once the next env starts: no
process (Xvfb, D-Bus, openbox, the panel, the accessibility bus, an app), no slot record, no HOME, no
run dir."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from desktop_session_procs import alive

from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop.backends.session_reap import MARKER, Owner, read_record, reap_orphans, record_path
from crab_gym.envs.desktop.backends.session_slot import MAX_SLOTS
from crab_gym.envs.desktop.primitives.procs import marker_pids
from crab_gym.envs.slot_lock import SlotLock, lock_dir

ROOT = Path(__file__).resolve().parents[3]
SIZE = (640, 400)
OWNER = f"""
import json, os, sys, time
from crab_gym.envs.desktop import DesktopEnv
d = DesktopEnv(size={SIZE!r})
d.reset()
d.open_app("text_editor")
d.write_file("~/witness.txt", "left by a killed run")
s = d.session
s.slot.watch.stop()  # as if the watcher died with its owner (session_watch.py): the reap alone must end it
pids = s.session_pids() + [s._xvfb.pid]
def started(p):
    return open(f"/proc/{{p}}/stat").read().rsplit(")", 1)[1].split()[19]
print(json.dumps({{"slot": s.slot.index, "home": str(s.home), "token": s.token,
                  "procs": {{p: started(p) for p in pids}},
                  "names": sorted(open(f"/proc/{{p}}/comm").read().strip() for p in pids)}}), flush=True)
time.sleep(600)
"""


def _killed_session() -> dict:
    """Start a desktop env in a process of its own, open an app, then SIGKILL that process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = owner.stdout.readline()  # type: ignore[union-attr]  # stdout=PIPE
        assert line, "the env process did not start its session"
        seen = json.loads(line)
        owner.send_signal(signal.SIGKILL)
    finally:
        owner.kill()
        owner.wait()
    return seen


def _assert_gone(seen: dict) -> None:
    """No process of the killed session runs (Xvfb and the display with it), its HOME is gone, and its slot
    has no record of it (free, or another env's now)."""
    left = [pid for pid, started in seen["procs"].items() if alive(int(pid), started)]
    assert left == [], f"left of the killed session: {left} of {seen['names']}"
    assert marker_pids(f"{MARKER}={seen['token']}".encode()) == []  # nor one it started after it reported
    assert not (Path(seen["home"]) / "witness.txt").exists()
    _assert_slot_free_of(seen["slot"], Path(seen["home"]).parent)


def _assert_slot_free_of(slot: int, directory: Path) -> None:
    """The slot keeps no record of the dead session; if nobody holds the slot now, its directory is gone.
    (A slot held now is another env's: its record is that env's, or, if that env runs an older crab-gym
    that writes none, the stale one, which the next allocation after it ends reaps.)"""
    lock = SlotLock("slot", [slot])
    if lock.index is None:
        return
    try:
        assert read_record(slot) is None
        assert not directory.exists()
    finally:
        lock.release()


@pytest.fixture
def desktop():
    d = DesktopEnv(size=SIZE)
    yield d
    d.close()


def test_a_sigkilled_env_leaves_nothing_once_the_next_env_starts(desktop):
    below = SlotLock("slot", range(MAX_SLOTS))  # held while the owner starts: it takes a higher slot ...
    try:
        seen = _killed_session()
    finally:
        below.release()  # ... and the new env a lower one (the dead owner's slot is not the one it takes)
    assert {"Xvfb", "openbox", "dbus-daemon", "mousepad"} <= set(seen["names"]), seen["names"]
    # the kill alone ended none of them: they run in sessions of their own
    assert all(alive(int(pid), started) for pid, started in seen["procs"].items())
    desktop.reset()
    _assert_gone(seen)


def test_the_next_slot_allocation_reaps_a_dead_owners_session():
    """reap_orphans (run by every slot allocation, whichever slot it then takes) ends the dead owner's
    session and frees its slot; a second call finds nothing."""
    seen = _killed_session()
    assert seen["slot"] in reap_orphans()
    _assert_gone(seen)
    assert seen["slot"] not in reap_orphans()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_validate_leaves_no_session_once_the_next_env_starts(desktop, sig):
    """`crab-gym tasks validate --jobs 2` interrupted (Ctrl-C to its process group, or SIGTERM as `timeout`
    sends) while its workers' desktops run: nothing of them is left once the next env has started."""
    before = {r.token for p in lock_dir().glob("slot*.owner") if (r := _record(p))}
    cmd = [
        sys.executable,
        "-m",
        "crab_gym.cli",
        "tasks",
        "validate",
        "calc_sum_column-0",
        "calc_sum_column-1",
    ]
    run = subprocess.Popen(
        [*cmd, "--jobs", "2"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        records: list[Owner] = []
        deadline = time.monotonic() + 120
        while len(records) < 2 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.2)
            # the workers' records: new tokens (a worker may take a slot whose stale record file it reaped)
            # of processes in the validate run's own session (other runs on the machine start envs too)
            now = [r for p in lock_dir().glob("slot*.owner") if (r := _record(p))]
            records = [r for r in now if r.token not in before and _session_of(r.pid) == run.pid]
        assert len(records) == 2, "the validate workers took no desktop slots"
        time.sleep(3)  # their sessions start (or run a task)
        os.killpg(run.pid, sig)
        run.wait(60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    deadline = time.monotonic() + 60
    while any(alive(r.pid) for r in records) and time.monotonic() < deadline:
        time.sleep(0.2)  # a worker closing its env after Ctrl-C
    desktop.reset()
    for r in records:
        assert not alive(r.pid)
        assert marker_pids(f"{MARKER}={r.token}".encode()) == [], f"left of the session of worker {r.pid}"
        _assert_slot_free_of(int(Path(r.dir).name[1:]), Path(r.dir))


def _session_of(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except ProcessLookupError:
        return None


def _record(path: Path) -> Owner | None:
    return read_record(int(path.name[len("slot") : -len(".owner")]))


def test_a_malformed_owner_record_is_dropped_not_a_crash():
    lock = SlotLock("slot", [MAX_SLOTS - 1])
    if lock.index is None:
        pytest.skip("the last slot is in use")
    try:
        for bad in (
            "{not json",
            '{"pid": 1}',
            '{"pid": 1, "token": 2, "uid": 0, "dedicated": true, "dir": "/"}',
        ):
            record_path(lock.index).write_text(bad)
            assert read_record(lock.index) is None and not record_path(lock.index).exists()
    finally:
        lock.release()
    record_path(MAX_SLOTS - 1).write_text('{"pid": 1}')  # its lock is free: reaped, and dropped
    assert MAX_SLOTS - 1 not in reap_orphans()
    assert not record_path(MAX_SLOTS - 1).exists()

"""The settle probe's reading of the session's processes: CPU demand, a wait on the disk, a runnable
thread, a timer due soon."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from crab_gym.envs.desktop.primitives.cpu import (
    SessionActivity,
    any_at_work,
    any_runnable,
    busy_probe,
    timer_due,
    waiting_on_disk,
)


def test_a_process_syncing_to_disk_is_seen_waiting_and_a_sleeper_is_not(tmp_path):
    """An app saving a file sits in fsync (state D) with no CPU and no drawing: a settle must not read it
    as idle (Mousepad's Save As returned before the file was written, 4 runs in 12)."""
    sleeper = subprocess.Popen(["sleep", "30"])
    writer = subprocess.Popen(
        ["dd", "if=/dev/zero", f"of={tmp_path / 'big'}", "bs=1M", "count=400", "conv=fsync", "status=none"]
    )
    try:
        seen = False
        while writer.poll() is None and not seen:
            seen = waiting_on_disk([writer.pid])
            time.sleep(0.001)
        assert seen, "dd ended without being seen in state D"
        assert not waiting_on_disk([sleeper.pid])
        assert not any_at_work([sleeper.pid, 2**22 + 7])
        assert not waiting_on_disk([2**22 + 7])  # no such process: not waiting, no error
    finally:
        for p in (sleeper, writer):
            p.kill()
            p.wait()


def test_the_probe_is_quiet_for_a_sleeper_and_busy_for_a_spinner():
    sleeper = subprocess.Popen(["sleep", "30"])
    spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        _await_sleep(sleeper.pid)  # started: on a loaded machine a new process waits for a CPU (runnable)
        quiet, busy = busy_probe(lambda: [sleeper.pid]), busy_probe(lambda: [spinner.pid])
        time.sleep(0.1)
        assert not quiet()
        assert busy()
    finally:
        for p in (sleeper, spinner):
            p.kill()
            p.wait()


def _await_sleep(pid: int, bound: float = 20.0) -> None:
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1][1:2] == b"S":
                return
        time.sleep(0.005)


def _poller(timeout_ms: int, wait: str) -> subprocess.Popen:
    """A process whose only thread sleeps with ``timeout_ms``, again and again: in poll(2) (a toolkit's
    main loop with a timer due that soon) or in select(2), which glibc makes pselect6 (a terminal program:
    vim waiting for the rest of an escape sequence)."""
    call = f"p.poll({timeout_ms})" if wait == "poll" else f"select.select([], [], [], {timeout_ms / 1000})"
    code = f"import select\np = select.poll()\nwhile True: {call}"
    return subprocess.Popen([sys.executable, "-c", code])


def _in_wait(pid: int) -> bool:
    with open(f"/proc/{pid}/syscall") as f:
        return f.read().split(maxsplit=1)[0] in ("7", "23", "270")  # poll, select, pselect6 on x86_64


@pytest.mark.parametrize("wait", ["poll", "select"])
def test_a_timer_due_soon_is_seen_and_a_far_one_is_not(wait):
    soon, far = _poller(10, wait), _poller(5000, wait)
    try:
        deadline = time.monotonic() + 20
        while not timer_due(soon.pid, str(soon.pid), 30):
            assert time.monotonic() < deadline, "a 10 ms poll timeout was never read as due within 30 ms"
            time.sleep(0.001)
        while not _in_wait(far.pid):  # started (a slow start on a loaded machine)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert not any(timer_due(far.pid, str(far.pid), 30) for _ in range(20))
        quiet, ticking = SessionActivity(lambda: [far.pid]), SessionActivity(lambda: [soon.pid])
        time.sleep(0.05)
        assert not quiet.busy() and quiet.reason == ""
        assert ticking.busy()  # by its timer, or its wake-ups (CPU, runnable) on a loaded machine
    finally:
        for p in (soon, far):
            p.kill()
            p.wait()


def test_a_runnable_thread_counts_and_a_process_started_later_is_listed():
    """A spinner is runnable; the probe lists the session's threads again once a process was created."""
    pids: list[int] = []
    probe = SessionActivity(lambda: pids)
    assert not probe.busy()
    spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        pids.append(spinner.pid)
        assert any_runnable(spinner.pid)
        assert any_at_work([spinner.pid])
        time.sleep(0.05)
        assert probe.busy() and probe.reason in ("cpu", "runnable")
    finally:
        spinner.kill()
        spinner.wait()
    assert not any_runnable(spinner.pid)  # gone: not runnable, no error

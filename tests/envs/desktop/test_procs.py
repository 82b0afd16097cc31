"""Process facts a launch is judged by: a terminal emulator's shell attached to its pty."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from crab_gym.envs.desktop.primitives.procs import shell_attached

# A stand-in terminal emulator: it opens a pty master first (as VTE does when its window maps), and forks a
# child that takes the pty as its controlling terminal only when told to (as the shell's spawn does later).
HOLDER = """
import os, pty, sys, time
master, slave = os.openpty()
print("open", flush=True)
sys.stdin.readline()
if pty.fork()[0] == 0:
    time.sleep(60)
    os._exit(0)
print("forked", flush=True)
time.sleep(60)
"""


def test_a_terminal_counts_as_ready_only_once_a_child_holds_its_pty():
    p = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert p.stdout.readline() == "open\n"
        assert not shell_attached(p.pid)
        p.stdin.write("\n")
        p.stdin.flush()
        assert p.stdout.readline() == "forked\n"
        deadline = time.monotonic() + 10
        while not shell_attached(p.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert shell_attached(p.pid)
    finally:
        p.kill()
        p.wait()


def test_a_process_that_is_no_terminal_or_is_gone_has_nothing_to_wait_for():
    assert shell_attached(os.getpid())
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    assert shell_attached(p.pid)

"""How a launch is judged from the processes it started: a launcher that waits on the disk is at work,
not idle."""

from __future__ import annotations

import subprocess
import threading

from crab_gym.envs.desktop.primitives.launch import launcher_exits


def test_a_launcher_waiting_on_the_disk_is_not_read_as_idle(tmp_path):
    """rofi rewrites its history file after starting the app; on a disk busy with writes the file's close
    sleeps in state D, using no CPU, for longer than the launcher's idle bound, and the launch was read
    as "no match". A writer ending in fsync stands for it: its flush sleeps in D for stretches of
    tens of ms with no CPU, longer than the (here shortened) idle bound."""
    writer = subprocess.Popen(
        ["dd", "if=/dev/zero", f"of={tmp_path / 'big'}", "bs=1M", "count=300", "conv=fsync", "status=none"]
    )
    reaper = threading.Thread(target=writer.wait)  # as the window manager reaps what rofi leaves
    reaper.start()
    try:
        assert launcher_exits(lambda: [writer.pid], "dd", idle_for=0.02, bound=120.0)
    finally:
        writer.kill()
        reaper.join()

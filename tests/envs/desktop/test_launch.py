"""How a launch is judged from the processes it started: a launcher or a launched program that waits on
the disk is at work, not idle."""

from __future__ import annotations

import subprocess
import threading

from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop.primitives.launch import LaunchWatch, launcher_exits


def _writer(tmp_path) -> subprocess.Popen:
    """A process whose end is a flush to disk: its fsync sleeps in state D, with no CPU, for stretches of
    tens of ms (longer than the shortened idle bounds below)."""
    return subprocess.Popen(
        ["dd", "if=/dev/zero", f"of={tmp_path / 'big'}", "bs=1M", "count=300", "conv=fsync", "status=none"]
    )


def _alive(pid: int) -> bool:
    """Running, not yet a zombie (the session's own list leaves zombies out)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1][1:2] != b"Z"
    except OSError:
        return False


def test_a_launcher_waiting_on_the_disk_is_not_read_as_idle(tmp_path):
    """rofi rewrites its history file after starting the app; on a disk busy with writes the file's close
    sleeps in state D, using no CPU, for longer than the launcher's idle bound, and the launch was read
    as "no match"."""
    writer = _writer(tmp_path)
    reaper = threading.Thread(target=writer.wait)  # as the window manager reaps what rofi leaves
    reaper.start()
    try:
        assert launcher_exits(lambda: [writer.pid], "dd", idle_for=0.02, bound=120.0)
    finally:
        writer.kill()
        reaper.join()


def test_a_launched_program_waiting_on_the_disk_is_not_read_as_idle(tmp_path):
    """A launch is "idle" once what it started does nothing for a while with no window; an app reading its
    libraries or files on a busy disk sleeps in state D, using no CPU, and is still starting. Here a
    writer ending in fsync is the launched program: it ends ("exited"), it never idles."""
    desk = DesktopEnv()
    desk.reset()
    started: list[int] = []
    try:
        watch = LaunchWatch(desk.x, lambda: [p for p in started if _alive(p)])
        writer = _writer(tmp_path)
        started.append(writer.pid)
        reaper = threading.Thread(target=writer.wait)
        reaper.start()
        try:
            assert watch.wait(startup=120.0, idle_after=0.02, poll=0.01) == "exited"
        finally:
            writer.kill()
            reaper.join()
    finally:
        desk.close()

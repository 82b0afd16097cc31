"""The settle probe's reading of the session's processes: CPU demand, and a wait on the disk."""

from __future__ import annotations

import subprocess
import time

from crab_gym.envs.desktop.primitives.cpu import busy_probe, waiting_on_disk


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
        assert not waiting_on_disk([2**22 + 7])  # no such process: not waiting, no error
    finally:
        for p in (sleeper, writer):
            p.kill()
            p.wait()


def test_the_probe_is_quiet_for_a_sleeper_and_busy_for_a_spinner():
    sleeper = subprocess.Popen(["sleep", "30"])
    spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        quiet, busy = busy_probe(lambda: [sleeper.pid]), busy_probe(lambda: [spinner.pid])
        time.sleep(0.1)
        assert not quiet()
        assert busy()
    finally:
        for p in (sleeper, spinner):
            p.kill()
            p.wait()

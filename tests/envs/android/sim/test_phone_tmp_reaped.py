"""A phone process killed with SIGKILL leaves no ``/tmp/crab-phone-*`` directory behind once the next phone is
made in a process that has not swept for ``SWEEP_EVERY`` seconds (its sandbox and its web's state); a live
process's directories are left alone."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.storage import owned_tmp
from crab_gym.envs.android.sim.storage.owned_tmp import OwnedTempDir, sweep

ROOT = Path(__file__).resolve().parents[4]
WORKER = """
import glob, os, sys, time, gymnasium as gym, crab_gym
envs = [gym.make('Crab-Android-v0', max_steps=5, tasks='rl-phone', obs_size={'android': (96, 208)})
        for _ in range(2)]
for env in envs:
    env.reset(seed=0)
envs[0].unwrapped.subenvs['android']._device.phone.web.fetch('https://www.google.com/')  # its web's dir
print(sorted(glob.glob(f"{sys.argv[1]}/crab-phone-p{os.getpid()}-*")), flush=True)
time.sleep(600)
"""


def _ours(pid: int) -> list[str]:
    return sorted(glob.glob(f"{tempfile.gettempdir()}/crab-phone-p{pid}-*"))


def test_a_sigkilled_phone_workers_directories_go_at_the_next_phone(monkeypatch):
    monkeypatch.setattr(owned_tmp, "SWEEP_EVERY", 0.0)  # this process may have swept a moment ago
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, tempfile.gettempdir()], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        listed = worker.stdout.readline()  # type: ignore[union-attr]  # stdout=PIPE
        dirs = _ours(worker.pid)
        assert len(dirs) == 3 and str(dirs) == listed.strip(), listed  # two sandboxes and a web's state
        assert any(d.endswith("-web") for d in dirs)
        worker.send_signal(signal.SIGKILL)
    finally:
        worker.kill()
        worker.wait()
    assert all(os.path.isdir(d) for d in dirs)  # nothing cleaned them up: the process had no chance to
    phone = Phone(width=96, height=208)
    try:
        assert [d for d in dirs if os.path.exists(d)] == []
        assert os.path.isdir(phone.fs.root)  # the new phone's own stays
    finally:
        phone.close()
    assert not os.path.exists(phone.fs.root)


def test_a_live_owners_directory_is_kept_and_removed_by_its_cleanup(tmp_path):
    mine = OwnedTempDir("crab-phone-")
    assert Path(mine.name).name.startswith(f"crab-phone-p{os.getpid()}-")
    assert mine.name not in sweep("crab-phone-")
    assert os.path.isdir(mine.name)
    mine.cleanup()
    mine.cleanup()
    assert not os.path.exists(mine.name)
    stranger = (
        tmp_path / "crab-phone-unlocked"
    )  # not made by OwnedTempDir (an older run's): not ours to judge
    stranger.mkdir()
    dead = tmp_path / "crab-phone-p1-abc"  # named as ours, and nobody holds its lock: its owner died
    (dead / "data").mkdir(parents=True)
    assert sweep("crab-phone-", str(tmp_path)) == [str(dead)]
    assert stranger.exists() and not dead.exists()

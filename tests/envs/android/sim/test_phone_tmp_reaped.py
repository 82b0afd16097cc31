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
    stranger = tmp_path / "crab-phone-other"  # neither OwnedTempDir's name nor an older crab-gym's
    stranger.mkdir()
    dead = tmp_path / "crab-phone-p1-abc"  # named as ours, and nobody holds its lock: its owner died
    (dead / "data").mkdir(parents=True)
    assert sweep("crab-phone-", str(tmp_path)) == [str(dead)]
    assert stranger.exists() and not dead.exists()


def _legacy(parent: Path, name: str) -> Path:
    """A directory as crab-gym made them before OwnedTempDir (tempfile's name), with a file in it."""
    d = parent / name
    (d / "data" / "databases").mkdir(parents=True)
    (d / "data" / "databases" / "sms.db").write_bytes(b"x")
    return d


def test_legacy_directories_go_only_when_surely_dead(tmp_path, monkeypatch):
    """Directories named as crab-gym named them before OwnedTempDir have no lock: they go only when ours,
    unchanged for LEGACY_IDLE seconds, and nothing of them is open or a process's working directory."""
    sandbox, web = _legacy(tmp_path, "crab-phone-a1b_2c3d"), _legacy(tmp_path, "crab-phone-web-zz9y8x7w")
    recent = _legacy(tmp_path, "crab-phone-r3c3ntly")
    assert sweep("crab-phone-", str(tmp_path)) == []  # just made: a live process's, perhaps
    assert sandbox.exists() and web.exists() and recent.exists()

    monkeypatch.setattr(owned_tmp, "LEGACY_IDLE", -1.0)  # now every one counts as long unchanged
    held = _legacy(tmp_path, "crab-phone-openfile")
    worker = _legacy(tmp_path, "crab-phone-workdir0")
    theirs = _legacy(tmp_path, "crab-phone-nobodys0")
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "crab-phone-symlink0"
    link.symlink_to(target)
    other_uid = os.geteuid() == 0
    if other_uid:
        os.chown(theirs, 65534, 65534)
    fd = os.open(held / "data" / "databases" / "sms.db", os.O_RDONLY)  # a live legacy phone's SQLite
    sleeper = subprocess.Popen(["sleep", "60"], cwd=worker)
    try:
        removed = sorted(sweep("crab-phone-", str(tmp_path)))
        kept = [held, worker, link, *([theirs] if other_uid else [])]
        assert all(p.exists() or p.is_symlink() for p in kept), removed
        assert str(sandbox) in removed and str(web) in removed and not sandbox.exists() and not web.exists()
        assert target.exists()  # the link to it was not followed
    finally:
        os.close(fd)
        sleeper.kill()
        sleeper.wait()
    assert str(held) in sweep("crab-phone-", str(tmp_path))  # closed: now it goes


def test_a_legacy_directory_changed_deep_inside_is_not_idle(tmp_path):
    """Idle is judged by the latest change anywhere in the tree, by status-change time (a copy that keeps
    modification times, as the phone's restore does, cannot set it back)."""
    d = _legacy(tmp_path, "crab-phone-deepchng")
    db = d / "data" / "databases" / "sms.db"
    for p in (d, d / "data", d / "data" / "databases", db):
        os.utime(p, (0, 0))  # modification times set back (their status-change times are now)
    top = os.stat(d).st_ctime
    while os.stat(db).st_ctime <= top:  # the clock moves in ticks: change the file until it is later
        os.utime(db, (0, 0))
    deep = os.stat(db).st_ctime
    between = top + owned_tmp.LEGACY_IDLE + (deep - top) / 2  # idle by the top's time, not by the file's
    assert owned_tmp.sweep_legacy([str(d)], now=between) == []
    assert owned_tmp.sweep_legacy([str(d)], now=deep + owned_tmp.LEGACY_IDLE * 2) == [str(d)]
    assert not d.exists()

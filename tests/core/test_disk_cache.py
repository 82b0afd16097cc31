"""The cache's files are written whole or not at all, and only the newest are kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from crab_gym.core import disk_cache


def test_a_file_is_written_whole_and_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "a.bin"
    assert disk_cache.write_atomic(path, lambda f: f.write(b"whole"))
    assert path.read_bytes() == b"whole"

    def fails(f) -> None:
        f.write(b"half")
        raise OSError("disk full")

    assert not disk_cache.write_atomic(path, fails)
    assert path.read_bytes() == b"whole"  # the old file stands
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.bin"]  # no temporary file left
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert not disk_cache.write_atomic(blocked / "b.bin", lambda f: f.write(b"x"))  # no directory to make


def test_only_the_newest_files_of_a_pattern_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert disk_cache.cache_dir() == tmp_path / "crab-gym"
    now = time.time()
    for i in range(5):
        assert disk_cache.write_atomic(disk_cache.cache_dir() / f"x-{i}.bin", lambda f: f.write(b"."))
        os.utime(disk_cache.cache_dir() / f"x-{i}.bin", (now + i, now + i))
    (disk_cache.cache_dir() / "other.bin").write_bytes(b"")
    disk_cache.keep_newest("x-*.bin", 2)
    assert sorted(p.name for p in disk_cache.cache_dir().iterdir()) == ["other.bin", "x-3.bin", "x-4.bin"]

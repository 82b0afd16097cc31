"""A seed's databases kept on disk: the files :func:`db.seed_databases` writes for a seed, read back by the
next process that seeds a new sandbox with it, instead of creating 13 SQLite databases again.

Seeding is most of a phone's construction (~15 ms of CPU); writing the same bytes back is ~2 ms. The file is
``$XDG_CACHE_HOME/crab-gym/phone-seed-<seed>-<key>.bin`` (default ``~/.cache/crab-gym``), where the key
hashes the code that seeds (db.py, baseline.py, now.py, seeddata.py, this module) and SQLite's version:
other code gives other files. At most :data:`MAX_SEEDS` are kept (the oldest go); a missing, unreadable or
malformed file is seeded with SQLite and rewritten, and a cache that cannot be written is skipped. A test
checks that both ways give the same tree, byte for byte.

Format: a JSON line (magic, the directories made, each file's path and size), then the files' bytes. Paths
are relative to the sandbox and checked: a file naming anything outside it is not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import sqlite3
from functools import cache
from pathlib import Path
from typing import IO

from crab_gym.core.disk_cache import cache_dir, keep_newest, write_atomic

from . import db
from .fs import Sandbox

MAX_SEEDS = 16  # files kept (~225 kB each)
MAGIC = "crab-gym phone seed 1"


@cache
def _key() -> str:
    h = hashlib.sha256(f"{sqlite3.sqlite_version}".encode())
    here = Path(__file__).parent
    for name in ("db.py", "baseline.py", "now.py", "seeddata.py", "seedcache.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def _tree(root: str) -> tuple[set[str], set[str]]:
    """(directories, files) under ``root``, relative to it."""
    dirs: set[str] = set()
    files: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirs.update(os.path.normpath(os.path.join(rel, d)) for d in dirnames)
        files.update(os.path.normpath(os.path.join(rel, f)) for f in filenames)
    return dirs, files


def _inside(rel: object) -> bool:
    return isinstance(rel, str) and rel == posixpath.normpath(rel) and not rel.startswith(("/", ".."))


def _read(path: Path) -> tuple[list[str], dict[str, bytes]] | None:
    try:
        with open(path, "rb") as f:
            head = json.loads(f.readline())
            data = f.read()
        if not isinstance(head, dict) or head.get("magic") != MAGIC:
            return None
        dirs, sizes = head["dirs"], head["files"]
        if sum(int(n) for _, n in sizes) != len(data) or not all(
            map(_inside, [*dirs, *(p for p, _ in sizes)])
        ):
            return None
        files, at = {}, 0
        for rel, n in sizes:
            files[rel] = data[at : at + int(n)]
            at += int(n)
        return sorted(dirs), files
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, dirs: list[str], files: dict[str, bytes]) -> None:
    head = json.dumps({"magic": MAGIC, "dirs": dirs, "files": [[p, len(b)] for p, b in files.items()]})

    def write(f: IO[bytes]) -> None:
        f.write(head.encode() + b"\n")
        f.writelines(files.values())

    if write_atomic(path, write):
        keep_newest("phone-seed-*.bin", MAX_SEEDS)


def seed(fs: Sandbox, seed: int) -> None:
    """Seed ``fs`` (a sandbox with no databases yet) for ``seed``: from the cache when it holds the seed,
    else with SQLite (:func:`db.seed_databases`), keeping what that wrote."""
    root = str(fs.root)
    path = cache_dir() / f"phone-seed-{seed}-{_key()}.bin"
    stored = _read(path)
    if stored is not None:
        dirs, files = stored
        for d in dirs:
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for rel, data in files.items():
            with open(os.path.join(root, rel), "wb") as f:
                f.write(data)
        return
    dirs_before, files_before = _tree(root)
    db.seed_databases(fs, seed)
    dirs_after, files_after = _tree(root)
    new = {}
    for rel in sorted(files_after - files_before):
        with open(os.path.join(root, rel), "rb") as f:
            new[rel] = f.read()
    _write(path, sorted(dirs_after - dirs_before), new)

"""Temporary directories that a killed process does not leave behind (a phone's sandbox, its web's state).

Each directory is ``<tmp>/<prefix>p<pid>-<random><suffix>`` and holds an ``flock`` on itself while its process
lives; the kernel frees it however the process dies (SIGKILL included). Making a directory first removes the
ones of the same prefix whose lock is free: their owner died before it could clean up (at most every
``SWEEP_EVERY`` seconds on the machine, told by a stamp file's time: a sweep lists the whole temp dir,
milliseconds when it holds thousands of entries, and a phone's cold start or a worker making many phones need
not pay it each time). A directory is made hidden and only gets its name once locked, so
no sweep ever sees one that is still being set up.

Directories that crab-gym made before these (``tempfile``'s names: no pid, no lock, see ``LEGACY``) are swept
too, when they are surely a dead process's: ours, nothing in them changed for ``LEGACY_IDLE`` seconds, and no
process has a file in them open nor works in them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import stat
import tempfile
import time
import weakref
from pathlib import Path

SWEEP_EVERY = 30.0
LEGACY = {"crab-phone-": re.compile(r"crab-phone-(?:web-)?[a-z0-9_]{8}")}
"""The names of a prefix's directories made before OwnedTempDir (a phone's sandbox, its web's state), as
``tempfile`` made them."""
LEGACY_IDLE = 3600.0
"""Seconds a legacy directory stays unchanged before it counts as its owner's leftover (a live phone writes
its sandbox at every reset)."""


def _sweep_due(prefix: str) -> bool:
    """Whether this user swept ``prefix`` in the last ``SWEEP_EVERY`` s; if not, the stamp now says we do
    (one stamp per user: a sweep removes only what its user may)."""
    stamp = Path(tempfile.gettempdir()) / f".{prefix}swept-{os.getuid()}"
    try:
        if time.time() - stamp.stat().st_mtime < SWEEP_EVERY:
            return False
        os.utime(stamp)
    except OSError:  # none yet (make it), or one we cannot touch: sweep as if none
        with contextlib.suppress(OSError):
            stamp.touch()
    return True


def sweep(prefix: str, parent: str | None = None) -> list[str]:
    """Remove the directories of ``prefix`` under ``parent`` (the temp dir) whose owner died; their paths."""
    parent = parent or tempfile.gettempdir()
    ours, legacy = re.compile(rf"{re.escape(prefix)}p\d+-"), LEGACY.get(prefix)
    removed: list[str] = []
    old: list[str] = []
    try:
        entries = os.scandir(parent)
    except OSError:
        return removed
    with entries:
        for entry in entries:
            if legacy is not None and legacy.fullmatch(entry.name):
                old.append(entry.path)
                continue
            if not ours.match(entry.name):
                continue
            try:
                fd = os.open(entry.path, os.O_RDONLY | os.O_DIRECTORY)
            except OSError:  # gone meanwhile, or not a directory
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its owner lives
                os.close(fd)
                continue
            try:
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
            finally:
                os.close(fd)
    return removed + sweep_legacy(old)


def sweep_legacy(paths: list[str], now: float | None = None) -> list[str]:
    """Remove those of ``paths`` (legacy directories: no lock tells whether their owner lives) that are
    surely a dead process's: a directory of ours (not a link), nothing in it changed for ``LEGACY_IDLE`` s,
    and no process has a file in it open or works in it (``now``: the time to judge at, by default the
    present); the ones removed."""
    now = time.time() if now is None else now
    idle = []
    for path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and now - _newest(path) > LEGACY_IDLE:
            idle.append(path)
    if not idle:
        return []
    held = _held_paths()
    removed = []
    for path in idle:
        if any(h == path or h.startswith(path + "/") for h in held):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _newest(path: str) -> float:
    """The latest change of anything in the tree at ``path``: the status-change time, which a write, a
    rename or a removal sets and, unlike the modification time, a copy that keeps times does not set back."""
    newest = 0.0
    for root, dirs, files in os.walk(path):
        for name in [".", *dirs, *files]:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_ctime)
    return newest


def _held_paths() -> set[str]:
    """What the processes we may look at have open or work in (their cwd and open files)."""
    held = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            links = [f"/proc/{pid}/cwd"] + [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:  # gone, or not ours to read
            continue
        for link in links:
            with contextlib.suppress(OSError):
                held.add(os.readlink(link))
    return held


def _cleanup(path: str, fd: int, owner: int) -> None:
    if os.getpid() == owner:  # a forked child leaves its parent's directory alone
        shutil.rmtree(path, ignore_errors=True)
    os.close(fd)


class OwnedTempDir:
    """A new temporary directory, locked while this process lives; ``name`` is its path. Removed by
    :meth:`cleanup`, when garbage-collected, at exit, or by the next one made after this process died."""

    def __init__(self, prefix: str, suffix: str = "") -> None:
        if _sweep_due(prefix):
            sweep(prefix)
        hidden = tempfile.mkdtemp(suffix, prefix=f".{prefix}p{os.getpid()}-")
        fd = os.open(hidden, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)  # nobody else knows the hidden name: never blocks
        self.name = str(Path(hidden).with_name(Path(hidden).name[1:]))
        os.rename(hidden, self.name)
        self._finalizer = weakref.finalize(self, _cleanup, self.name, fd, os.getpid())

    def cleanup(self) -> None:
        """Remove the directory (idempotent)."""
        self._finalizer()

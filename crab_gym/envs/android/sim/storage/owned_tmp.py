"""Temporary directories that a killed process does not leave behind (a phone's sandbox, its web's state).

Each directory is ``<tmp>/<prefix>p<pid>-<random><suffix>`` and holds an ``flock`` on itself while its process
lives; the kernel frees it however the process dies (SIGKILL included). Making a directory first removes the
ones of the same prefix whose lock is free: their owner died before it could clean up (at most every
``SWEEP_EVERY`` seconds on the machine, told by a stamp file's time: a sweep lists the whole temp dir,
milliseconds when it holds thousands of entries, and a phone's cold start or a worker making many phones need
not pay it each time). A directory is made hidden and only gets its name once locked, so
no sweep ever sees one that is still being set up.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
import time
import weakref
from pathlib import Path

SWEEP_EVERY = 30.0


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
    ours = re.compile(rf"{re.escape(prefix)}p\d+-")
    removed: list[str] = []
    try:
        entries = os.scandir(parent)
    except OSError:
        return removed
    with entries:
        for entry in entries:
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
    return removed


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

"""Numbered slots held by file locks, machine-wide: desktop sessions, VM workers and device slots.

A slot is an ``flock`` on ``/tmp/.crab-gym-locks-<uid>/<prefix><n>.lock``; the process's exit frees it, so a
killed run never leaves a slot taken.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path


def lock_dir() -> Path:
    """The folder of this user's slot locks (one place whatever else a run configures)."""
    path = Path(f"/tmp/.crab-gym-locks-{os.geteuid()}")
    path.mkdir(mode=0o700, exist_ok=True)
    return path


class SlotLock:
    """The first free slot among ``numbers``; ``index`` is None when every one is held."""

    def __init__(self, prefix: str, numbers: Iterable[int]) -> None:
        self.index: int | None = None
        self._fd = -1
        locks = lock_dir()
        for n in numbers:
            fd = os.open(locks / f"{prefix}{n}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.index, self._fd = n, fd
            return

    @property
    def held(self) -> bool:
        """True until :meth:`release`."""
        return self._fd >= 0

    def release(self) -> None:
        """Free the slot (idempotent)."""
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1

"""File times on the phone's clock: every file, directory and symlink of the sandbox carries the time the
phone gave it, never the host's, so `ls -l`, `stat`, `find -newer` and adb's sync answers follow the seed and
the actions, and come back with a saved state.

A sandbox entry's host mtime holds its phone time. The phone keeps what it gave each entry (by path under the
root): an entry whose mtime differs from that, or that has none, was written by the host since and takes the
phone's time now. ``note`` looks only around the paths the sandbox resolved since it last ran (cheap: at every
tick and before the clock moves), ``settle`` at the whole tree (before times are shown, when a state is
saved). The phone keeps one time per entry: its access and change times read as the modification time.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from .now import NOW_MS

__all__ = ["Times"]

MS = 1_000_000  # ns


class Times:
    """The times the phone gave the entries under ``root`` (its sandbox), by path under it ("." for it)."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.clock: Callable[[], int] = lambda: NOW_MS  # the phone's time in epoch ms (the phone sets it)
        self.given: dict[str, int] = {}  # key -> mtime ns
        self.touched: set[str] = set()  # host paths resolved since the last note (real paths)

    def key(self, path: str) -> str:
        return path[len(self.root) + 1 :] if len(path) > len(self.root) else "."

    def note(self) -> None:
        """Give the phone's time now to what changed at or around the paths resolved since the last note: the
        path (a changed directory: its changed entries, a new one: all of it) and its changed parents."""
        if not self.touched:
            return
        touched, self.touched = self.touched, set()  # an adb sync thread may still add to the old set
        now, checked = self.clock() * MS, set()
        for path in tuple(touched):
            self._check(path, now)
            parent = os.path.dirname(path)
            while len(parent) >= len(self.root) and parent not in checked:
                checked.add(parent)
                if not self._check(parent, now):
                    break
                parent = os.path.dirname(parent)

    def _check(self, path: str, now: int) -> bool:
        """Stamp ``path`` if the host changed it (a changed directory's entries first); whether it had."""
        try:
            st = os.lstat(path)
        except OSError:
            return False
        key = self.key(path)
        if self.given.get(key) == st.st_mtime_ns:
            return False
        if stat.S_ISDIR(st.st_mode):
            with os.scandir(path) as entries:
                for e in entries:
                    self._check(e.path, now)
        os.utime(path, ns=(now, now), follow_symlinks=False)
        self.given[key] = now
        return True

    def settle(self, at_ms: int | None = None) -> None:
        """Give the phone's time now to every entry the host changed (``at_ms``: that time to every entry)."""
        self.touched.clear()
        now = (self.clock() if at_ms is None else at_ms) * MS
        old = {} if at_ms is not None else self.given
        given: dict[str, int] = {}
        stack = [self.root]
        while stack:
            path = stack.pop()
            st = os.lstat(path)
            key, mtime = self.key(path), st.st_mtime_ns
            if old.get(key) != mtime:
                os.utime(path, ns=(now, now), follow_symlinks=False)
                mtime = now
            given[key] = mtime
            if stat.S_ISDIR(st.st_mode):
                with os.scandir(path) as entries:
                    stack += [e.path for e in entries]
        self.given = given

    def set(self, host: Path, seconds: float) -> None:
        """Give ``host`` this time (touch -d, adb push)."""
        ns = round(seconds * 1e9)
        os.utime(host, ns=(ns, ns))
        self.given[self.key(os.path.realpath(host))] = ns

    def moved(self, old: str, new: str) -> None:
        """``old`` (a real path) became ``new``: it and what it holds keep their times, as `mv` keeps them."""
        a, b = self.key(old), self.key(os.path.realpath(new))
        for k in [k for k in self.given if k == a or k.startswith(a + "/")]:
            self.given[b + k[len(a) :]] = self.given.pop(k)

    def adopt(self, given: dict[str, int]) -> None:
        """The tree was just put back with these times (a restore): they are the phone's."""
        self.given = dict(given)
        self.touched.clear()

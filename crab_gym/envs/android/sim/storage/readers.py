"""Read connections to the phone's databases, kept open between reads.

A fresh SQLite connection re-reads the schema and starts with a cold page cache: about 0.7 ms for a
content query that takes 0.06 ms on an open connection, and the evaluator reads a provider every step.
A kept connection is dropped, and the next read opens a new one, whenever its file may have been changed by
something other than SQLite (which SQLite itself would not notice):

- the phone resets (``Sandbox.restore`` rewrites files in place) or a shell command or push changes files
  (``clear``, called by the phone);
- the file's identity or stamp (device, inode, size, mtime, ctime) is not what it was when it was opened
  (a stat a read: the path is checked against the sandbox, symlinks and all, only when a file is opened);
- the process is not the one that opened it (a fork).

A write through SQLite (the apps, ``content insert``, ``sqlite3``) moves the file's stamp too, so the next
read reopens, which costs one fresh connection after each write and keeps the rule to one check; SQLite
would see those commits on the kept connection anyway. Reads only: writers keep ``db.connect``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

__all__ = ["Readers", "stamp"]

Stamp = tuple[int, int, int, int, int]


def stamp(host: Path) -> Stamp | None:
    """The file's identity and stamp (device, inode, size, mtime, ctime), or None if it is not there."""
    try:
        st = os.stat(host)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class Readers:
    """One autocommit read connection per database file of a sandbox (use under the phone's lock)."""

    def __init__(self, fs) -> None:
        self.fs = fs
        self._open: dict[str, tuple[Path, sqlite3.Connection, Stamp]] = {}  # by Android path
        self._pid = os.getpid()

    def rows(self, path: str, sql: str, args: tuple = (), named: bool = False) -> list:
        """All rows of ``sql`` on the database at Android ``path`` (``sqlite3.Row`` if ``named``)."""
        conn = self._connection(path)
        if conn is None:  # no such file yet: what a fresh connection does (SQLite creates it)
            with sqlite3.connect(self.fs.resolve(path), timeout=5.0) as c:
                c.row_factory = sqlite3.Row if named else None
                out = c.execute(sql, args).fetchall()
            c.close()
            return out
        conn.row_factory = sqlite3.Row if named else None
        return conn.execute(sql, args).fetchall()

    def _connection(self, path: str) -> sqlite3.Connection | None:
        if os.getpid() != self._pid:  # a forked child must not use its parent's connections
            self._open, self._pid = {}, os.getpid()
        held = self._open.get(path)
        if held is not None:
            if stamp(held[0]) == held[2]:
                return held[1]
            self._open.pop(path)[1].close()
        host = self.fs.resolve(path)  # the sandbox check, once per file opened
        now = stamp(host)
        if now is None:
            return None
        conn = sqlite3.connect(host, timeout=5.0, isolation_level=None, check_same_thread=False)
        self._open[path] = (host, conn, now)
        return conn

    def clear(self) -> None:
        """Close every kept connection (files may have changed underneath)."""
        if os.getpid() == self._pid:
            for _, conn, _ in self._open.values():
                conn.close()
        self._open, self._pid = {}, os.getpid()

    def __len__(self) -> int:
        return len(self._open)

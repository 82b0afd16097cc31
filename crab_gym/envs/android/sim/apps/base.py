"""What app screens share: reading and writing the phone's databases, and a screen's typed fields.
(What an app is to the phone, AppSpec, lives in system/registry.py.)"""

from __future__ import annotations

from ..storage.db import connect


def rows(phone, path: str, sql: str, args: tuple = ()) -> list[tuple]:
    """Read rows from one of the phone's databases (a kept connection: ``sim/storage/readers.py``)."""
    with phone.lock:
        return phone.readers.rows(path, sql, args)


def execute(phone, path: str, sql: str, args: tuple = ()) -> int:
    """Write to one of the phone's databases; returns the last row id."""
    with phone.lock, connect(phone.fs, path) as c:
        return int(c.execute(sql, args).lastrowid or 0)


def fields(s, *keys: str) -> list[str]:
    values = s.state.setdefault("fields", {})
    return [values.get(k, "").strip() for k in keys]

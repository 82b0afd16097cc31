"""What app screens share: reading and writing the phone's databases, a number's contact name, a screen's
typed fields. (What an app is to the phone, AppSpec, lives in system/registry.py.)"""

from __future__ import annotations

from ..storage import db


def rows(phone, path: str, sql: str, args: tuple = ()) -> list[tuple]:
    """Read rows from one of the phone's databases (a kept connection: ``sim/storage/readers.py``)."""
    with phone.lock:
        return phone.readers.rows(path, sql, args)


def execute(phone, path: str, sql: str, args: tuple = ()) -> int:
    """Write to one of the phone's databases; returns the last row id."""
    with phone.lock, db.connect(phone.fs, path) as c:
        return int(c.execute(sql, args).lastrowid or 0)


def contact_name(phone, address: str) -> str:
    """The name of the contact with this number, or the number (Messages' threads, the dialer's calls)."""
    r = rows(
        phone, db.CONTACTS_DB, "SELECT display_name FROM view_phones WHERE data1 = ? LIMIT 1", (address,)
    )
    return r[0][0] if r else address


def fields(s, *keys: str) -> list[str]:
    values = s.state.setdefault("fields", {})
    return [values.get(k, "").strip() for k in keys]

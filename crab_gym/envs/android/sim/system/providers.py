"""Content providers over the phone's databases, and the settings. The `content`, `settings` and `sqlite3`
commands over them are in providercmds.py, loaded by the shell when a line names them."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from ..shell.errors import ShellError
from ..storage import db


@dataclass(frozen=True)
class Provider:
    path: str  # Android path of the database
    table: str  # table or view queried
    write_table: str = ""  # table inserts/updates/deletes go to ("" = read-only)
    where: str = ""  # the uri's implied filter
    implied: dict[str, object] = field(default_factory=dict)  # columns an insert gets from the uri


def _settings(name: str) -> Provider:
    return Provider(db.SETTINGS_DB, name, name)


PROVIDERS = {
    "content://com.android.contacts/contacts": Provider(db.CONTACTS_DB, "view_contacts", "raw_contacts"),
    "content://com.android.contacts/raw_contacts": Provider(
        db.CONTACTS_DB, "raw_contacts", "raw_contacts", "deleted = 0"
    ),
    "content://com.android.contacts/data": Provider(db.CONTACTS_DB, "view_data", "data"),
    "content://com.android.contacts/data/phones": Provider(db.CONTACTS_DB, "view_phones", "data"),
    "content://com.android.contacts/data/emails": Provider(db.CONTACTS_DB, "view_emails", "data"),
    "content://contacts/people": Provider(db.CONTACTS_DB, "view_people", "raw_contacts"),
    "content://contacts/phones": Provider(db.CONTACTS_DB, "view_phones", "data"),
    "content://sms": Provider(db.SMS_DB, "sms", "sms"),
    "content://sms/inbox": Provider(db.SMS_DB, "sms", "sms", "type = 1", {"type": 1}),
    "content://sms/sent": Provider(db.SMS_DB, "sms", "sms", "type = 2", {"type": 2}),
    "content://sms/draft": Provider(db.SMS_DB, "sms", "sms", "type = 3", {"type": 3}),
    "content://sms/outbox": Provider(db.SMS_DB, "sms", "sms", "type = 4", {"type": 4}),
    "content://mms-sms/conversations": Provider(db.SMS_DB, "threads", "threads"),
    "content://call_log/calls": Provider(db.CALLLOG_DB, "calls", "calls"),
    "content://com.android.calendar/events": Provider(db.CALENDAR_DB, "Events", "Events", "deleted = 0"),
    "content://com.android.calendar/calendars": Provider(db.CALENDAR_DB, "Calendars", "Calendars"),
    "content://media/external/file": Provider(db.MEDIA_DB, "files", "files"),
    "content://media/external/images/media": Provider(
        db.MEDIA_DB, "files", "files", "media_type = 1", {"media_type": 1}
    ),
    "content://media/external/audio/media": Provider(
        db.MEDIA_DB, "files", "files", "media_type = 2", {"media_type": 2}
    ),
    "content://media/external/video/media": Provider(
        db.MEDIA_DB, "files", "files", "media_type = 3", {"media_type": 3}
    ),
    "content://settings/system": _settings("system"),
    "content://settings/secure": _settings("secure"),
    "content://settings/global": _settings("global"),
}
CONTACT_VIEWS = {"view_contacts", "view_people"}


def lookup(uri: str) -> tuple[Provider, str]:
    """The provider of a uri and the extra filter of a trailing /<id> (a ``?query`` is not part of it)."""
    uri = uri.partition("?")[0].rstrip("/")
    if uri in PROVIDERS:
        return PROVIDERS[uri], ""
    base, _, last = uri.rpartition("/")
    if last.isdigit() and base in PROVIDERS:
        return PROVIDERS[base], f"_id = {int(last)}"
    raise ShellError(
        f"[ERROR] Unsupported argument: {uri}\nError while accessing provider:{uri.split('/')[2:3]}"
    )


def _where(*parts: str) -> str:
    parts_ = [f"({p})" for p in parts if p]
    return (" WHERE " + " AND ".join(parts_)) if parts_ else ""


def query(
    phone, uri: str, projection: list[str] | None = None, where: str = "", sort: str = ""
) -> list[dict]:
    prov, extra = lookup(uri)
    cols = ", ".join(f'"{c}"' for c in projection) if projection else "*"
    sql = f"SELECT {cols} FROM {prov.table}{_where(prov.where, extra, where)}"
    if sort:
        sql += f" ORDER BY {sort}"
    with phone.lock:
        return [dict(r) for r in phone.readers.rows(prov.path, sql, named=True)]


def insert(phone, uri: str, values: dict[str, object]) -> int:
    prov, _ = lookup(uri)
    values = {**prov.implied, **values}
    params = dict(parse_qsl(urlsplit(uri).query))
    with phone.lock, db.connect(phone.fs, prov.path) as c:
        if prov.table in CONTACT_VIEWS or prov.table == "raw_contacts":
            if not {"name", "display_name", "number", "email"} & set(values):  # stock: an empty raw contact
                return db.new_raw_contact(c, **values)
            # our phone's shorthand (and the old Contacts.People form): name and number in one insert
            name = str(values.get("name", values.get("display_name", "")))
            return db.add_contact(
                c, name, str(values.get("number", "") or ""), str(values.get("email", "") or "")
            )
        if prov.write_table == "data":
            return _insert_data(c, prov, values)
        if prov.write_table == "Calendars":
            if params.get("caller_is_syncadapter") != "true":  # the stock calendar provider's rule
                raise ShellError(
                    "Error while accessing provider:com.android.calendar\n"
                    "java.lang.UnsupportedOperationException: only a sync adapter may insert calendars"
                )
            values = {k: params[k] for k in ("account_name", "account_type") if k in params} | values
        if prov.write_table == "sms":
            values.setdefault("type", 1)
            values.setdefault("date", db.NOW_MS)
            values.setdefault("thread_id", db.thread_id_for(c, str(values.get("address", ""))))
        if not prov.write_table:
            raise ShellError(f"{uri} is read-only")
        if prov.write_table in ("system", "secure", "global") and "name" in values:
            pass
        keys = list(values)
        cur = c.execute(
            f"INSERT INTO {prov.write_table} ({', '.join(keys)}) VALUES ({', '.join('?' * len(keys))})",
            [values[k] for k in keys],
        )
        return int(cur.lastrowid or 0)


def _insert_data(c: sqlite3.Connection, prov: Provider, values: dict[str, object]) -> int:
    """A data row of a raw contact; a StructuredName row names its raw contact, as the stock provider does."""
    mime = values.pop("mimetype", db.PHONE_MIME if prov.table == "view_phones" else db.EMAIL_MIME)
    mid = c.execute("SELECT _id FROM mimetypes WHERE mimetype = ?", (mime,)).fetchone()
    if mid is None:
        raise ShellError(f"unknown mimetype {mime}")
    row = {
        k: v for k, v in values.items() if k in ("raw_contact_id", "data1", "data2", "data3", "is_primary")
    }
    if "raw_contact_id" not in row:
        raise ShellError("java.lang.IllegalArgumentException: raw_contact_id is required")
    rid = int(str(row["raw_contact_id"]))
    if c.execute("SELECT 1 FROM raw_contacts WHERE _id = ?", (rid,)).fetchone() is None:
        raise ShellError(f"java.lang.IllegalArgumentException: no raw contact with _id {rid}")
    if mime == db.NAME_MIME:  # data1 is the display name; else given (data2) and family (data3) names
        name = str(row.get("data1") or " ".join(str(row[k]) for k in ("data2", "data3") if row.get(k)))
        row["data1"] = name
        db.name_contact(c, rid, name)
    row["mimetype_id"] = mid[0]
    keys = list(row)
    cur = c.execute(
        f"INSERT INTO data ({', '.join(keys)}) VALUES ({', '.join('?' * len(keys))})", list(row.values())
    )
    return int(cur.lastrowid or 0)


def _target_ids(c: sqlite3.Connection, prov: Provider, extra: str, where: str) -> str:
    if prov.table in CONTACT_VIEWS:
        return f"contact_id IN (SELECT _id FROM {prov.table}{_where(extra, where)})"
    if prov.table != prov.write_table:
        return f"_id IN (SELECT _id FROM {prov.table}{_where(extra, where)})"
    return " AND ".join(f"({p})" for p in (prov.where, extra, where) if p) or "1"


def delete(phone, uri: str, where: str = "") -> int:
    prov, extra = lookup(uri)
    if not prov.write_table:
        raise ShellError(f"{uri} is read-only")
    with phone.lock, db.connect(phone.fs, prov.path) as c:
        cond = _target_ids(c, prov, extra, where)
        if prov.write_table == "raw_contacts":
            c.execute(f"DELETE FROM data WHERE raw_contact_id IN (SELECT _id FROM raw_contacts WHERE {cond})")
        if prov.write_table == "threads":  # a conversation delete takes its messages with it
            c.execute(f"DELETE FROM sms WHERE thread_id IN (SELECT _id FROM threads WHERE {cond})")
        count = c.execute(f"DELETE FROM {prov.write_table} WHERE {cond}").rowcount
        if prov.path == db.SMS_DB:
            db.update_threads(c)
        return count


def update(phone, uri: str, values: dict[str, object], where: str = "") -> int:
    prov, extra = lookup(uri)
    if not prov.write_table or not values:
        raise ShellError(f"{uri} is read-only")
    with phone.lock, db.connect(phone.fs, prov.path) as c:
        cond = _target_ids(c, prov, extra, where)
        sets = ", ".join(f"{k} = ?" for k in values)
        return c.execute(f"UPDATE {prov.write_table} SET {sets} WHERE {cond}", list(values.values())).rowcount


# --- settings ---------------------------------------------------------------------------------------------


def get_setting(phone, namespace: str, name: str) -> str | None:
    with phone.lock:
        sql = f"SELECT value FROM {settings_table(namespace)} WHERE name = ?"
        rows = phone.readers.rows(db.SETTINGS_DB, sql, (name,))
    return rows[0][0] if rows else None


def put_setting(phone, namespace: str, name: str, value: str | None) -> None:
    with phone.lock, db.connect(phone.fs, db.SETTINGS_DB) as c:
        if value is None:
            c.execute(f"DELETE FROM {settings_table(namespace)} WHERE name = ?", (name,))
        else:
            c.execute(f"INSERT INTO {settings_table(namespace)} (name, value) VALUES (?, ?)", (name, value))
    phone.invalidate()


def settings_table(namespace: str) -> str:
    """The settings table of a namespace (system, secure or global; anything else is an error)."""
    if namespace not in ("system", "secure", "global"):
        raise ShellError(f"Invalid namespace '{namespace}'. Must be one of: system, secure, global", 255)
    return namespace


def query_text(phone, uri: str, projection: str | None, where: str = "", sort: str = "") -> str:
    """What ``content query --uri URI`` prints (``projection`` as the line spells it: names joined by ``:``
    or ``,``; None for every column): the shell's command and the shell-less read (content_read.py) both."""
    proj = [p for p in re.split(r"[:,]", projection) if p] if projection is not None else None
    try:
        return _format_rows(query(phone, uri, proj, where, sort))
    except sqlite3.Error as e:
        raise provider_error(uri, e) from e


def _format_rows(rows: list[dict]) -> str:
    """What ``content query`` prints for ``rows``."""
    if not rows:
        return "No result found.\n"
    return "".join(
        f"Row: {n} " + ", ".join(f"{k}={_fmt(v)}" for k, v in row.items()) + "\n"
        for n, row in enumerate(rows)
    )


def provider_error(uri: str, e: sqlite3.Error) -> ShellError:
    """How ``content`` reports a query or write that SQLite refused."""
    return ShellError(f"Error while accessing provider:{uri}\nandroid.database.sqlite.SQLiteException: {e}")


def _fmt(v: object) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "BLOB"
    return str(v)

"""The `content`, `settings` and `sqlite3` commands over the phone's content providers and settings
(providers.py)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from ..shell.context import Ctx, command
from ..shell.errors import ShellError
from ..storage import db
from .providers import (
    delete,
    get_setting,
    insert,
    provider_error,
    put_setting,
    query_text,
    settings_table,
    update,
)


@command("settings")
def _settings_cmd(ctx: Ctx, args: list[str]) -> int:
    args = [a for a in args if not a.startswith("--user")]
    if len(args) >= 3 and args[0] == "get":
        value = get_setting(ctx.phone, args[1], args[2])
        ctx.print("null" if value is None else value)
    elif len(args) >= 4 and args[0] == "put":
        put_setting(ctx.phone, args[1], args[2], args[3])
    elif len(args) >= 3 and args[0] == "delete":
        put_setting(ctx.phone, args[1], args[2], None)
        ctx.print("Deleted 1 rows")
    elif len(args) >= 3 and args[0] == "reset":
        return _settings_reset(ctx, args[1], args[2])
    elif len(args) >= 2 and args[0] == "list":
        with ctx.phone.lock:
            sql = f"SELECT name, value FROM {settings_table(args[1])} ORDER BY name"
            rows = ctx.phone.readers.rows(db.SETTINGS_DB, sql)
        for name, value in rows:
            ctx.print(f"{name}={value}")
    else:
        ctx.eprint(
            "usage:  settings [--user <USER_ID> | current] get namespace key\n"
            "        settings [--user <USER_ID> | current] put namespace key value\n"
            "        settings [--user <USER_ID> | current] list namespace\n"
            "        settings [--user <USER_ID> | current] reset namespace {PACKAGE_NAME | RESET_MODE}"
        )
        return 255
    return 0


def _settings_reset(ctx: Ctx, namespace: str, mode: str) -> int:
    """`settings reset NAMESPACE untrusted_defaults|untrusted_clear|trusted_defaults|PACKAGE`: the defaults
    modes put the namespace back to the phone's defaults and delete what has none (the shell set it); a
    package resets what it set (no app here sets settings, so nothing changes)."""
    defaults = db.SETTINGS.get(namespace)
    if defaults is None:
        ctx.eprint(f"Invalid namespace '{namespace}'. Must be one of: system, secure, global")
        return 255
    if mode not in ("untrusted_defaults", "untrusted_clear", "trusted_defaults"):
        return 0
    with ctx.phone.lock:
        rows = ctx.phone.readers.rows(db.SETTINGS_DB, f"SELECT name FROM {namespace}")
    for (name,) in rows:
        if name not in defaults:  # set by the shell, an untrusted package: no default to go back to
            put_setting(ctx.phone, namespace, name, None)
    for name, value in defaults.items():
        if get_setting(ctx.phone, namespace, name) != value:
            put_setting(ctx.phone, namespace, name, value)
    return 0


# --- content ----------------------------------------------------------------------------------------------

BIND_TYPES: dict[str, Callable[[str], object]] = {
    "s": str,
    "i": int,
    "l": int,
    "f": float,
    "d": float,
    "b": lambda v: int(v.lower() == "true"),
}


def _parse_content_args(args: list[str]) -> dict:
    opts: dict = {"bind": {}}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--uri", "--projection", "--where", "--sort", "--user", "--arg", "--extra", "--method"):
            if i + 1 >= len(args):
                raise ShellError(f'[ERROR] Argument expected after "{a}"')
            opts[a[2:]] = args[i + 1]
            i += 2
        elif a == "--bind":
            if i + 1 >= len(args):
                raise ShellError('[ERROR] Argument expected after "--bind"')
            m = re.fullmatch(r"([^:]+):([sbilfdn]):?(.*)", args[i + 1], re.S)
            if not m:
                raise ShellError(f"[ERROR] Invalid binding: {args[i + 1]}")
            name, kind, value = m.groups()
            opts["bind"][name] = None if kind == "n" else BIND_TYPES[kind](value)
            i += 2
        else:
            raise ShellError(f"[ERROR] Unsupported argument: {a}")
    return opts


@command("content")
def _content(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] not in ("query", "insert", "delete", "update"):
        ctx.eprint(
            "usage: adb shell content [subcommand] [options]\n\n"
            "  content query --uri <URI> [--projection <PROJECTION>] [--where <WHERE>] [--sort <ORDER>]"
        )
        return 1
    opts = _parse_content_args(args[1:])
    uri = opts.get("uri")
    if not uri:
        raise ShellError("[ERROR] Content provider URI not specified. Did you specify --uri argument?")
    where = opts.get("where", "")
    try:
        if args[0] == "query":
            ctx.print(query_text(ctx.phone, uri, opts.get("projection"), where, opts.get("sort", "")), end="")
        elif args[0] == "insert":
            insert(ctx.phone, uri, opts["bind"])
        elif args[0] == "delete":
            delete(ctx.phone, uri, where)
        else:
            update(ctx.phone, uri, opts["bind"], where)
    except sqlite3.Error as e:
        raise provider_error(uri, e) from e
    if args[0] != "query":  # a read changes nothing on screen: keep the rendered frame
        ctx.phone.invalidate()
    return 0


@command("sqlite3")
def _sqlite3(ctx: Ctx, args: list[str]) -> int:
    header, sep, rest = False, "|", []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-header", "--header"):
            header = True
        elif a in ("-noheader", "-list", "-batch", "-bail"):
            pass
        elif a == "-csv":
            sep = ","
        elif a == "-separator" and i + 1 < len(args):
            sep = args[i + 1]
            i += 1
        elif a.startswith("-"):
            raise ShellError(f"Error: unknown option: {a}")
        else:
            rest.append(a)
        i += 1
    if not rest:
        raise ShellError("Error: no database given (in-memory databases are not supported here)")
    path = ctx.fs.android_path(rest[0], ctx.shell.cwd)
    sql = " ".join(rest[1:]) if len(rest) > 1 else ctx.stdin.decode("utf-8", "replace")
    host = ctx.fs.resolve(path)
    host.parent.mkdir(parents=True, exist_ok=True)
    with ctx.phone.lock:
        conn = db.open_db(host, isolation_level=None)
        conn.set_authorizer(_inside_sandbox)
        try:
            for stmt in _statements(sql):
                cur = conn.execute(stmt)
                if header and cur.description:
                    ctx.print(sep.join(d[0] for d in cur.description))
                for row in cur:
                    ctx.print(sep.join("" if v is None else str(v) for v in row))
        except sqlite3.Error as e:
            ctx.eprint(f"Error: {e}")
            return 1
        finally:
            if conn.total_changes > 0:  # only a write can change what the apps show
                ctx.phone.invalidate()
            conn.close()
    return 0


def _inside_sandbox(action: int, *_: object) -> int:
    """SQLite authorizer: ATTACH and VACUUM INTO name files by host path, outside the phone's sandbox."""
    return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_ATTACH else sqlite3.SQLITE_OK


def _statements(sql: str) -> list[str]:
    out, buf = [], ""
    for part in sql.split(";"):
        buf += part
        if sqlite3.complete_statement(buf + ";"):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
        else:
            buf += ";"
    if buf.strip().rstrip(";").strip():
        out.append(buf.strip())
    return out

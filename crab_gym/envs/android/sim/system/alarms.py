"""The phone's AlarmManager: a timer rings when the phone's clock passes its end, an alarm when the clock
passes its hour and minute. The phone asks `tick` before it draws or runs a command, so whatever came due
since the last look rings then (in real time: between two steps, as the wall clock passes it). The next due
time is kept while the alarms database is the same file at the same version (its stamp, and SQLite's file
change counter, which every committed write moves even within one tick of the file clock), so a tick is a
stat and a 4-byte read: reading the database at every state change cost a third of the phone's step rate
(bench/android_step.py, 96x208 sub-env: 2890 -> 1890 steps/s)."""

from __future__ import annotations

import datetime as dt

from ..storage import db
from ..storage.db import connect
from ..storage.readers import stamp
from .clock import UTC, now_ms
from .logcat import log

DAY_MS = 86_400_000


def start_timer(phone, length_ms: int, label: str = "") -> int:
    """Start a timer of `length_ms` now; returns its id."""
    with phone.lock, connect(phone.fs, db.ALARMS_DB) as c:
        tid = int(
            c.execute(
                "INSERT INTO timers (length, label, started) VALUES (?, ?, ?)",
                (int(length_ms), label, now_ms(phone)),
            ).lastrowid
            or 0
        )
    log(phone, "I", "AlarmClock", f"Timer {tid} started: {int(length_ms) // 1000} s")
    phone.invalidate()  # the write moved the database's version: the next tick reads the due times again
    return tid


def rewind(phone) -> None:
    """Forget what rang before now (a reset, or `date` moving the clock: alarms ring going forward only)."""
    phone.checked_ms = now_ms(phone)
    phone.due_ms = None
    phone.alarms_host = phone.fs.resolve(db.ALARMS_DB)  # resolved once: 30 us, a stat is 2
    phone.alarms_stamp = None


def bookkeeping(phone) -> tuple[int, int | None, bool]:
    """What a saved state keeps: up to when alarms were checked, the next due time, and whether that due
    time is up to date with the alarms database."""
    known = phone.alarms_stamp is not None and phone.alarms_stamp == _version(phone.alarms_host)
    return phone.checked_ms, phone.due_ms, known


def restored(phone, checked_ms: int, due_ms: int | None, known: bool) -> None:
    """The alarms' bookkeeping of a loaded state; its next due time is trusted only if it was up to date."""
    phone.checked_ms, phone.due_ms = checked_ms, due_ms
    phone.alarms_host = phone.fs.resolve(db.ALARMS_DB)
    phone.alarms_stamp = _version(phone.alarms_host) if known else None


def _version(host) -> tuple | None:
    """The file's stamp and SQLite's change counter (header bytes 24-27, moved by every commit in the
    rollback-journal mode the phone's databases use); None when the file is not there."""
    seen = stamp(host)
    if seen is None:
        return None
    try:
        with open(host, "rb") as f:
            return seen, f.read(28)[24:]
    except OSError:
        return None


def _alarm_after(hour: int, minute: int, after_ms: int) -> int:
    """The first time of day hour:minute strictly after `after_ms` (UTC, as the phone keeps it)."""
    day = dt.datetime.fromtimestamp(after_ms // DAY_MS * DAY_MS / 1000, UTC)
    at = int(day.replace(hour=hour, minute=minute).timestamp() * 1000)
    return at if at > after_ms else at + DAY_MS


def _due(phone) -> list[tuple[int, str, int]]:
    """(when, kind, id) of every running timer and enabled alarm, soonest first."""
    with phone.lock:  # kept connections: every reset asks, and a fresh connection costs ~0.7 ms
        rows = phone.alarm_readers.rows
        timers = rows(
            db.ALARMS_DB,
            "SELECT _id, started + length FROM timers WHERE started IS NOT NULL AND rang IS NULL",
        )
        alarms = rows(db.ALARMS_DB, "SELECT _id, hour, minutes FROM alarm_templates WHERE enabled = 1")
    due = [(int(end), "timer", tid) for tid, end in timers]
    due += [(_alarm_after(h, m, phone.checked_ms), "alarm", aid) for aid, h, m in alarms]
    return sorted(due)


def tick(phone) -> None:
    """Ring every timer and alarm whose time has come since the last tick (logcat says so, a timer's row
    keeps when it rang, and the screen is redrawn)."""
    with phone.lock:
        now = now_ms(phone)
        seen = _version(phone.alarms_host)
        if phone.due_ms is not None and phone.due_ms > now and seen == phone.alarms_stamp:
            return
        due = _due(phone)
        rang = [(when, kind, i) for when, kind, i in due if when <= now]
        for when, kind, i in rang:
            if kind == "timer":
                with connect(phone.fs, db.ALARMS_DB) as c:
                    c.execute("UPDATE timers SET rang = ? WHERE _id = ?", (when, i))
                log(phone, "I", "AlarmClock", f"Timer {i} expired: Time's up")
            else:
                log(phone, "I", "AlarmClock", f"Alarm {i} ringing")
        phone.checked_ms = now
        if rang:  # else the same rows, and each alarm's next time after `now` is the one after the last check
            phone.invalidate()
            due = _due(phone)
        later = [when for when, _, _ in due if when > now]
        phone.due_ms = min(later, default=now + DAY_MS)
        phone.alarms_stamp = _version(phone.alarms_host)  # after the writes above

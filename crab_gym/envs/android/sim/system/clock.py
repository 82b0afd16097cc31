"""The phone's clock: it starts at a fixed moment on reset and moves one second per state change
(lock-step: reproducible runs), or with the wall clock (`phone.realtime`); `date` (date.py) sets it, and the
apps' timestamps, the status bar, logcat and the timers and alarms (alarms.py) follow.
The phone keeps UTC.
"""

from __future__ import annotations

import datetime as dt
import time

from ..storage import db

UTC = dt.timezone.utc


def now_ms(phone) -> int:
    """The phone's time in epoch milliseconds, without moving it (Phone.now_ms moves it one second)."""
    return getattr(phone, "clock_base_ms", db.NOW_MS) + elapsed_ms(phone)


def elapsed_ms(phone) -> int:
    """How far the clock moved since reset: a second per state change, or the wall time in real time."""
    if getattr(phone, "realtime", False):
        return int((time.monotonic() - phone.wall0) * 1000)
    return phone.counter * 1000


def status_bar_time(phone) -> str:
    """The status bar's clock, as a Pixel shows it in 12-hour mode: 9:30."""
    t = dt.datetime.fromtimestamp(now_ms(phone) / 1000, UTC)
    return f"{(t.hour - 1) % 12 + 1}:{t.minute:02d}"


def home_date(phone) -> str:
    """The launcher's date line: Friday, Mar 15."""
    t = dt.datetime.fromtimestamp(now_ms(phone) / 1000, UTC)
    return f"{t:%A, %b} {t.day}"

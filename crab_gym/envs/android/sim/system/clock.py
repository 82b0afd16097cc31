"""The phone's clock: it starts at a fixed moment on reset and moves one second per state change
(lock-step: reproducible runs), or with the wall clock (`phone.realtime`); `date` (date.py) sets it, and the
apps' timestamps, the status bar, logcat and the timers and alarms (alarms.py) follow.
The phone keeps UTC. Also `service`, the binder services' list.
"""

from __future__ import annotations

import datetime as dt
import time

from ..shell.context import Ctx, command
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


SERVICES = ("activity", "alarm", "clipboard", "input", "notification", "package", "power", "window")


@command("service")
def _service(ctx: Ctx, args: list[str]) -> int:
    """`service list|check NAME|call alarm 3 s16 TZ`: the binder services; only the time zone call (which
    android_world makes) is understood, and only UTC is kept."""
    if args[:1] == ["list"]:
        ctx.print(f"Found {len(SERVICES)} services:")
        for k, name in enumerate(SERVICES):
            ctx.print(f"{k}\t{name}: [android.app.I{name.capitalize()}Manager]")
        return 0
    if args[:1] == ["check"] and len(args) > 1:
        ctx.print(f"Service {args[1]}: {'found' if args[1] in SERVICES else 'not found'}")
        return 0
    if args[:1] == ["call"] and len(args) > 2 and args[1] in SERVICES:
        ctx.print("Result: Parcel(00000000    '....')")
        return 0
    if args[:1] == ["call"] and len(args) > 1:
        ctx.print(f"service: Service {args[1]} does not exist")
        return 255
    ctx.eprint(
        "Usage: service [-h|-?]\n       service list\n       service check SERVICE\n"
        "       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f"
        " | nfd n | afd f ] ..."
    )
    return 1

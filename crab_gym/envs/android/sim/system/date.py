"""toybox's `date`: shows the phone's clock; `date MMDDhhmm[[CC]YY][.ss]` and `date -s DATE` set it (and
logcat records the change, as AlarmManagerService does)."""

from __future__ import annotations

import datetime as dt
import re

from ..shell.context import Ctx, command
from ..shell.tokens import ShellError
from .alarms import rewind
from .clock import UTC, elapsed_ms, now_ms
from .logcat import log

DEFAULT_FORMAT = "%a %b %e %H:%M:%S %Z %Y"  # toybox: Fri Mar 15 09:30:00 UTC 2024


def set_clock(phone, ms: int) -> None:
    """Make the phone's clock read `ms` now; it keeps moving (clock.py) from there."""
    phone.fs.times.note()  # files changed so far keep the time they changed at
    phone.clock_base_ms = int(ms) - elapsed_ms(phone)
    rewind(phone)
    log(phone, "I", "AlarmManagerService", f"Setting time of day to sec={int(ms) // 1000}")
    phone.invalidate()


def parse_set(text: str, base: dt.datetime) -> dt.datetime:
    """toybox's SET format MMDDhhmm[[CC]YY][.ss], or the -d/-s forms: @SECONDS, YYYY-MM-DD[ T]hh:mm[:ss],
    hh:mm[:ss] (today)."""
    m = re.fullmatch(r"(\d\d)(\d\d)(\d\d)(\d\d)(\d\d(?:\d\d)?)?(?:\.(\d\d))?", text)
    if m:
        month, day, hour, minute, year, sec = m.groups()
        y = base.year if year is None else int(year) if len(year) == 4 else 2000 + int(year)
        if len(year or "") == 2 and int(year) >= 69:
            y -= 100
        return dt.datetime(y, int(month), int(day), int(hour), int(minute), int(sec or 0), tzinfo=UTC)
    if text.startswith("@") and re.fullmatch(r"@-?\d+(\.\d+)?", text):
        return dt.datetime.fromtimestamp(float(text[1:]), UTC)
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M"):
        try:
            parsed = dt.datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
        if fmt.startswith("%H"):
            parsed = parsed.replace(year=base.year, month=base.month, day=base.day)
        return parsed.replace(tzinfo=UTC)
    raise ValueError(text)


def _show(t: dt.datetime, fmt: str) -> str:
    fmt = fmt.replace("%e", f"{t.day:>2}").replace("%s", str(int(t.timestamp()))).replace("%N", "000000000")
    return t.strftime(fmt)


@command("date")
def _date(ctx: Ctx, args: list[str]) -> int:
    """date [-u] [-d DATE] [-s DATE] [+FORMAT] [SET]: shows the phone's time; SET or -s sets it."""
    phone = ctx.phone
    now = dt.datetime.fromtimestamp(now_ms(phone) / 1000, UTC)
    fmt, shown, setting = DEFAULT_FORMAT, now, None
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("+"):
            fmt = a[1:]
        elif a in ("-u", "--utc", "-R"):
            fmt = "%a, %d %b %Y %H:%M:%S +0000" if a == "-R" else fmt
        elif a in ("-d", "-s", "-D", "-r", "-I") and i + 1 < len(args):
            value = args[i + 1]
            i += 1
            if a in ("-d", "-s"):
                try:
                    when = parse_set(value, now)
                except ValueError as e:
                    raise ShellError(f"bad date '{value}'", 1) from e
                shown = when
                setting = when if a == "-s" else setting
            elif a == "-r":
                host = ctx.fs.resolve(value, ctx.shell.cwd)
                if not host.exists():
                    raise ShellError(f"{value}: No such file or directory", 1)
                ctx.fs.times.settle()
                shown = dt.datetime.fromtimestamp(host.stat().st_mtime, UTC)
        elif a.startswith("-"):
            raise ShellError(f"Unknown option '{a}'", 1)
        else:
            try:
                setting = shown = parse_set(a, now)
            except ValueError as e:
                raise ShellError(f"bad date '{a}'", 1) from e
        i += 1
    if setting is not None:
        set_clock(phone, int(setting.timestamp() * 1000))
    ctx.print(_show(shown, fmt))
    return 0

"""Clock (com.google.android.deskclock): alarms and timers, in alarms.db; the world clock is in
worldclock.py."""

from __future__ import annotations

from ..storage import db
from ..system.alarms import start_timer
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.deskclock", "Clock", (26, 115, 232))


def tabs(s: Screen, current: str) -> None:
    def select(name: str):
        return lambda: (
            s.phone.stack.__setitem__(-1, type(s.act)(s.pkg, name.lower(), {}, s.act.task_id))
            if name.lower() != s.act.screen
            else None
        )

    s.tabs(["Alarm", "Clock", "Timer"], current, select)


@APP.screen("alarm", "com.android.deskclock.DeskClock")
def alarms(s: Screen) -> None:
    s.app_bar("Alarm", back=False)
    tabs(s, "Alarm")
    items = []
    for aid, hour, minutes, enabled, label in rows(
        s.phone,
        db.ALARMS_DB,
        "SELECT _id, hour, minutes, enabled, label FROM alarm_templates ORDER BY hour, minutes, _id",
    ):

        def toggle(aid=aid, enabled=enabled) -> None:
            execute(
                s.phone,
                db.ALARMS_DB,
                "UPDATE alarm_templates SET enabled = ? WHERE _id = ?",
                (0 if enabled else 1, aid),
            )

        def delete(aid=aid) -> None:
            execute(s.phone, db.ALARMS_DB, "DELETE FROM alarm_templates WHERE _id = ?", (aid,))

        items.append(
            Item(
                f"{hour:02d}:{minutes:02d}",
                (label + " · " if label else "") + ("On" if enabled else "Off"),
                on_click=toggle,
                on_long_click=delete,
                checked=bool(enabled),
                rid="digital_clock",
            )
        )
    s.list("alarms", items, rid="alarm_recycler_view", empty="No alarms")
    s.fab("Add alarm", lambda: s.phone.push("new_alarm", focus="hour"))


@APP.screen("new_alarm", ".alarms.AlarmEditActivity")
def new_alarm(s: Screen) -> None:
    def save() -> None:
        hour, minute, label = fields(s, "hour", "minute", "label")
        try:
            h, m = int(hour), int(minute or 0)
        except ValueError:
            s.state["error"] = "Enter the hour and minutes as numbers"
            return
        if not (0 <= h < 24 and 0 <= m < 60):
            s.state["error"] = "Hour 0-23, minutes 0-59"
            return
        execute(
            s.phone,
            db.ALARMS_DB,
            "INSERT INTO alarm_templates (hour, minutes, enabled, label) VALUES (?, ?, 1, ?)",
            (h, m, label),
        )
        s.phone.back()

    s.app_bar("New alarm", actions=[("Save", save)])
    s.field("hour", "Hour (0-23)", rid="hour")
    s.field("minute", "Minutes (0-59)", rid="minute")
    s.field("label", "Label", rid="label", on_enter=save)
    if s.state.get("error"):
        s.text(s.state["error"], size=40, rid="error", muted=True)


@APP.screen("timer", "com.android.deskclock.DeskClock")
def timers(s: Screen) -> None:
    s.app_bar("Timer", back=False)
    tabs(s, "Timer")

    def start() -> None:
        (minutes,) = fields(s, "minutes")
        if minutes.isdigit() and int(minutes) > 0:
            start_timer(s.phone, int(minutes) * 60_000)
            s.state["fields"]["minutes"] = ""

    s.field("minutes", "Minutes", rid="timer_setup_digits", on_enter=start)
    s.button("Start", start, rid="fab")
    items = [
        Item(_timer_title(length), "Time's up" if rang is not None else "Running")
        for length, rang in rows(s.phone, db.ALARMS_DB, "SELECT length, rang FROM timers ORDER BY _id")
    ]
    s.list("timers", items, rid="timer_view", empty="No timers")


def _timer_title(length_ms: int) -> str:
    """5 min timer; a timer of less than a minute (an intent's EXTRA_LENGTH) in seconds: 2 s timer."""
    return f"{length_ms // 60000} min timer" if length_ms >= 60_000 else f"{length_ms // 1000} s timer"


APP.main = "alarm"

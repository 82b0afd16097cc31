"""Calendar (com.google.android.calendar): upcoming events and an event editor, in calendar.db `Events`."""

from __future__ import annotations

import datetime as dt

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.calendar", "Calendar", (66, 133, 244))


DAY_MS = 86_400_000
DATE_FORMATS = ("%Y-%m-%d", "%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y")


def _fmt(ms: int, all_day: int = 0) -> str:
    when = dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc)
    return when.strftime("%a %b %d %Y") + " · All day" if all_day else when.strftime("%a %b %d, %H:%M")


def parse_day(text: str) -> dt.date:
    """'2024-03-20', '1 January 2025', '05 June 2024' or 'June 5, 2024' -> the date; ValueError if none."""
    for f in DATE_FORMATS:
        try:
            return dt.datetime.strptime(" ".join(text.split()), f).date()
        except ValueError:
            continue
    raise ValueError(f"not a date: {text!r}")


@APP.screen("main", "com.android.calendar.AllInOneActivity")
def agenda(s: Screen) -> None:
    s.app_bar("Calendar", back=False)
    items = [
        Item(
            title,
            _fmt(start, all_day) + (f" · {loc}" if loc else ""),
            glyph="event",
            rid="title",
            on_click=lambda eid=eid: s.phone.push("detail", event_id=eid),
        )
        for eid, title, start, loc, all_day in rows(
            s.phone,
            db.CALENDAR_DB,
            "SELECT _id, title, dtstart, eventLocation, allDay FROM Events WHERE deleted = 0 "
            "ORDER BY dtstart, _id",
        )
    ]
    s.list("events", items, rid="agenda_list", empty="Nothing planned")
    s.fab("Create new event", lambda: s.phone.push("edit", focus="title"), rid="floating_action_button")


def parse_when(date: str, time: str) -> int:
    """'2024-03-20' (or a date as parse_day reads it) + '14:30' (UTC) -> epoch milliseconds; ValueError if
    malformed."""
    t = dt.datetime.strptime(time or "00:00", "%H:%M").time()
    d = dt.datetime.combine(parse_day(date), t, dt.timezone.utc)
    return int(d.timestamp() * 1000)


@APP.screen("edit", "com.android.calendar.event.EditEventActivity")
def editor(s: Screen) -> None:
    def save() -> None:
        title, date, start, end, where = fields(s, "title", "date", "start", "end", "location")
        all_day = bool(s.state.get("all_day"))
        try:  # an all-day event spans its UTC day, as CalendarContract stores one
            t0 = parse_when(date, "" if all_day else start)
            t1 = t0 + DAY_MS if all_day else parse_when(date, end) if end else t0 + 3_600_000
        except ValueError:
            s.state["error"] = "Date as YYYY-MM-DD (or 1 January 2025), times as HH:MM"
            return
        if not title:
            s.state["error"] = "Add a title"
            return
        execute(
            s.phone,
            db.CALENDAR_DB,
            "INSERT INTO Events (title, eventLocation, description, dtstart, dtend, allDay) "
            "VALUES (?, ?, '', ?, ?, ?)",
            (title, where, t0, max(t1, t0), int(all_day)),
        )
        s.phone.back()

    s.app_bar("New event", actions=[("Save", save)])
    s.field("title", "Add title", rid="title")
    s.field("date", "Date (YYYY-MM-DD)", rid="start_date")
    s.field("start", "Start time (HH:MM)", rid="start_time")
    s.field("end", "End time (HH:MM)", rid="end_time")
    s.field("location", "Add location", rid="location")
    s.switch("All-day", bool(s.state.get("all_day")), lambda: _flip(s.state, "all_day"), rid="all_day_switch")
    if s.state.get("error"):
        s.text(s.state["error"], size=40, rid="error", muted=True)


def _flip(state: dict, key: str) -> None:
    state[key] = not state.get(key)


@APP.screen("detail", "com.android.calendar.EventInfoActivity")
def detail(s: Screen) -> None:
    eid = s.state.get("event_id")
    found = rows(
        s.phone,
        db.CALENDAR_DB,
        "SELECT title, dtstart, dtend, eventLocation, allDay FROM Events WHERE _id = ?",
        (eid,),
    )

    def delete() -> None:
        execute(s.phone, db.CALENDAR_DB, "DELETE FROM Events WHERE _id = ?", (eid,))
        s.phone.back()

    s.app_bar("", actions=[("Delete", delete)])
    if found:
        title, start, end, loc, all_day = found[0]
        s.text(title, size=64, rid="title", height=180)
        s.text(_fmt(start, 1) if all_day else f"{_fmt(start)} – {_fmt(end)[-5:]}", rid="when_datetime")
        if loc:
            s.text(loc, rid="where", muted=True)

"""Calendar (com.google.android.calendar): upcoming events and an event editor, in calendar.db `Events`."""

from __future__ import annotations

import datetime as dt

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.calendar", "Calendar", (66, 133, 244))


def _fmt(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%a %b %d, %H:%M")


@APP.screen("main", "com.android.calendar.AllInOneActivity")
def agenda(s: Screen) -> None:
    s.app_bar("Calendar", back=False)
    items = [
        Item(
            title,
            _fmt(start) + (f" · {loc}" if loc else ""),
            glyph="event",
            rid="title",
            on_click=lambda eid=eid: s.phone.push("detail", event_id=eid),
        )
        for eid, title, start, loc in rows(
            s.phone,
            db.CALENDAR_DB,
            "SELECT _id, title, dtstart, eventLocation FROM Events WHERE deleted = 0 ORDER BY dtstart, _id",
        )
    ]
    s.list("events", items, rid="agenda_list", empty="Nothing planned")
    s.fab("Create new event", lambda: s.phone.push("edit", focus="title"), rid="floating_action_button")


def parse_when(date: str, time: str) -> int:
    """'2024-03-20' + '14:30' (UTC) -> epoch milliseconds; ValueError if malformed."""
    d = dt.datetime.strptime(f"{date} {time or '00:00'}", "%Y-%m-%d %H:%M").replace(tzinfo=dt.timezone.utc)
    return int(d.timestamp() * 1000)


@APP.screen("edit", "com.android.calendar.event.EditEventActivity")
def editor(s: Screen) -> None:
    def save() -> None:
        title, date, start, end, where = fields(s, "title", "date", "start", "end", "location")
        try:
            t0 = parse_when(date, start)
            t1 = parse_when(date, end) if end else t0 + 3_600_000
        except ValueError:
            s.state["error"] = "Date as YYYY-MM-DD, times as HH:MM"
            return
        if not title:
            s.state["error"] = "Add a title"
            return
        execute(
            s.phone,
            db.CALENDAR_DB,
            "INSERT INTO Events (title, eventLocation, description, dtstart, dtend) VALUES (?, ?, '', ?, ?)",
            (title, where, t0, max(t1, t0)),
        )
        s.phone.back()

    s.app_bar("New event", actions=[("Save", save)])
    s.field("title", "Add title", rid="title")
    s.field("date", "Date (YYYY-MM-DD)", rid="start_date")
    s.field("start", "Start time (HH:MM)", rid="start_time")
    s.field("end", "End time (HH:MM)", rid="end_time")
    s.field("location", "Add location", rid="location")
    if s.state.get("error"):
        s.text(s.state["error"], size=40, rid="error", muted=True)


@APP.screen("detail", "com.android.calendar.EventInfoActivity")
def detail(s: Screen) -> None:
    eid = s.state.get("event_id")
    found = rows(
        s.phone,
        db.CALENDAR_DB,
        "SELECT title, dtstart, dtend, eventLocation FROM Events WHERE _id = ?",
        (eid,),
    )

    def delete() -> None:
        execute(s.phone, db.CALENDAR_DB, "DELETE FROM Events WHERE _id = ?", (eid,))
        s.phone.back()

    s.app_bar("", actions=[("Delete", delete)])
    if found:
        title, start, end, loc = found[0]
        s.text(title, size=64, rid="title", height=180)
        s.text(f"{_fmt(start)} – {_fmt(end)[-5:]}", rid="when_datetime")
        if loc:
            s.text(loc, rid="where", muted=True)

"""Checks of phone state, written as adb shell queries through :class:`AndroidState`.

Providers first (``content query``: contacts, SMS, call log, calendar, settings), ``sqlite3`` for app
databases without a provider (DeskClock's alarms.db, the notes and tasks databases at the paths our phone
keeps them), ``ls``/``cat`` for files, ``dumpsys window`` for the foreground app. Text comparisons ignore
case and surrounding whitespace; phone numbers compare by their digits.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING

from crab_gym.core.evaluators import evaluator
from crab_gym.core.lazy import lazy_module
from crab_gym.envs.android.state import AndroidState, same_number

if TYPE_CHECKING:
    from xml.etree import ElementTree
else:  # imported by the first check that reads the clock's preferences
    ElementTree = lazy_module("xml.etree.ElementTree")

ENV = "android"

ALARMS_DB = "/data/data/com.google.android.deskclock/databases/alarms.db"
NOTES_DB = "/data/data/com.google.android.keep/databases/keep.db"
TASKS_DB = "/data/data/com.google.android.apps.tasks/databases/tasks.db"
CAMERA_DIR = "/sdcard/DCIM/Camera"
MAIL_DB = "/data/data/com.google.android.gm/databases/mail.db"
LAUNCHER = "com.google.android.apps.nexuslauncher"  # the home app, which overview always lists
CLOCK_PREFS = (
    "/data/data/com.google.android.deskclock/shared_prefs/com.google.android.deskclock_preferences.xml"
)


def _same(a: str | None, b: str) -> bool:
    return a is not None and a.strip().casefold() == b.strip().casefold()


def _has(haystack: str | None, needle: str) -> bool:
    return haystack is not None and needle.strip().casefold() in haystack.casefold()


def _sql(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@evaluator(env=ENV)
def contact_exists(state: AndroidState, name: str, number: str | None = None) -> bool:
    """a contact named {name!r} exists (with the phone number {number})"""
    if number is None:
        rows = state.content_query("content://com.android.contacts/contacts", ("display_name",))
        return any(_same(r.get("display_name"), name) for r in rows)
    rows = state.content_query("content://com.android.contacts/data/phones", ("display_name", "data1"))
    return any(_same(r.get("display_name"), name) and same_number(r.get("data1", ""), number) for r in rows)


@evaluator(env=ENV)
def contact_has_email(state: AndroidState, name: str, email: str) -> bool:
    """a contact named {name!r} has the email address {email}"""
    rows = state.content_query("content://com.android.contacts/data/emails", ("display_name", "data1"))
    return any(_same(r.get("display_name"), name) and _same(r.get("data1"), email) for r in rows)


@evaluator(env=ENV)
def sms_sent(state: AndroidState, to: str, body_contains: str) -> bool:
    """a text message containing {body_contains!r} was sent to {to}"""
    rows = state.content_query("content://sms/sent", ("address", "body"))
    return any(same_number(r.get("address", ""), to) and _has(r.get("body"), body_contains) for r in rows)


@evaluator(env=ENV)
def call_made(state: AndroidState, number: str) -> bool:
    """an outgoing call to {number} is in the call log"""
    rows = state.content_query("content://call_log/calls", ("number", "type"), "type = 2")
    return any(same_number(r.get("number", ""), number) for r in rows)


@evaluator(env=ENV)
def event_exists(
    state: AndroidState,
    title: str,
    date: str | None = None,
    start: str | None = None,
    all_day: bool | None = None,
) -> bool:
    """a calendar event {title!r} exists (on {date}, starting at {start}, UTC; all day: {all_day})"""
    rows = state.content_query("content://com.android.calendar/events", ("title", "dtstart", "allDay"))
    for r in rows:
        if not _same(r.get("title"), title):
            continue
        if all_day is not None and (r.get("allDay") == "1") != all_day:
            continue
        try:
            when = dt.datetime.fromtimestamp(int(r.get("dtstart", "")) / 1000, dt.timezone.utc)
        except ValueError:
            continue
        if date is not None and when.strftime("%Y-%m-%d") != date:
            continue
        if start is not None and when.strftime("%H:%M") != start:
            continue
        return True
    return False


@evaluator(env=ENV)
def alarm_set(state: AndroidState, hour: int, minute: int, enabled: bool = True) -> bool:
    """an alarm at {hour:02d}:{minute:02d} is set (enabled: {enabled})"""
    rows = state.sqlite(
        ALARMS_DB,
        f"SELECT enabled FROM alarm_templates WHERE hour = {int(hour)} AND minutes = {int(minute)}",
    )
    return any((r[0] == "1") == bool(enabled) for r in rows)


@evaluator(env=ENV)
def world_clock_has(state: AndroidState, city: str) -> bool:
    """the Clock's world clock lists {city}"""
    try:
        root = ElementTree.fromstring(state.read_text(CLOCK_PREFS) or "")
    except ElementTree.ParseError:
        return False
    chosen = root.find("set[@name='selected_cities']")
    return chosen is not None and any(_same(e.text, city) for e in chosen.findall("string"))


@evaluator(env=ENV)
def world_clock_is(state: AndroidState, cities: list[str]) -> bool:
    """the Clock's world clock lists exactly {cities}, in any order"""
    try:
        root = ElementTree.fromstring(state.read_text(CLOCK_PREFS) or "")
    except ElementTree.ParseError:
        return False
    chosen = root.find("set[@name='selected_cities']")
    shown = [] if chosen is None else [e.text or "" for e in chosen.findall("string")]
    return sorted(c.casefold() for c in shown) == sorted(c.casefold() for c in cities)


@evaluator(env=ENV)
def no_recent_apps(state: AndroidState) -> bool:
    """overview lists no app but the home screen"""
    found = re.findall(r"Recent #\d+: .*? A=\d+:(\S+)", state.out("dumpsys activity recents"))
    return not [p for p in found if p != LAUNCHER]


@evaluator(env=ENV)
def timer_set(state: AndroidState, minutes: int) -> bool:
    """a {minutes}-minute timer is running"""
    rows = state.sqlite(ALARMS_DB, f"SELECT _id FROM timers WHERE length = {int(minutes) * 60_000}")
    return bool(rows)


@evaluator(env=ENV)
def mail_sent(state: AndroidState, to: str, subject: str, body_contains: str = "") -> bool:
    """an email with the subject {subject!r} containing {body_contains!r} was sent to {to}"""
    rows = state.sqlite(
        MAIL_DB, "SELECT recipient, subject, replace(body, char(10), ' ') FROM messages WHERE folder = 'sent'"
    )
    return any(_same(r, to) and _same(s, subject) and _has(b, body_contains) for r, s, b, *_ in rows)


@evaluator(env=ENV)
def note_exists(state: AndroidState, title: str, body_contains: str = "") -> bool:
    """a note titled {title!r} containing {body_contains!r} exists"""
    rows = state.sqlite(NOTES_DB, "SELECT title, replace(body, char(10), ' ') FROM notes WHERE archived = 0")
    return any(_same(t, title) and _has(b, body_contains) for t, b, *_ in rows)


@evaluator(env=ENV)
def task_exists(state: AndroidState, title: str, done: bool | None = None) -> bool:
    """a to-do task {title!r} exists (completed: {done})"""
    rows = state.sqlite(TASKS_DB, "SELECT title, completed FROM tasks")
    return any(_same(t, title) and (done is None or (c == "1") == done) for t, c, *_ in rows)


@evaluator(env=ENV)
def setting_equals(state: AndroidState, namespace: str, key: str, value: str) -> bool:
    """the {namespace} setting {key} is {value!r}"""
    return state.setting(namespace, key) == str(value)


@evaluator(env=ENV)
def dark_theme(state: AndroidState, on: bool = True) -> bool:
    """the dark theme is {on}"""
    return (state.setting("secure", "ui_night_mode") == "2") == bool(on)


@evaluator(env=ENV)
def file_exists(state: AndroidState, path: str) -> bool:
    """the file {path} exists on the phone"""
    return state.exists(path)


@evaluator(env=ENV)
def file_absent(state: AndroidState, path: str) -> bool:
    """nothing exists at {path} on the phone"""
    return not state.exists(path)


@evaluator(env=ENV)
def file_contains(state: AndroidState, path: str, text: str) -> bool:
    """the phone's file {path} contains {text!r}"""
    return _has(state.read_text(path), text)


@evaluator(env=ENV)
def app_in_foreground(state: AndroidState, package: str) -> bool:
    """the app {package} is in the foreground"""
    return state.foreground_package() == package


@evaluator(env=ENV)
def photo_taken(state: AndroidState, at_least: int = 1) -> bool:
    """at least {at_least} photo(s) are in the camera folder"""
    return sum(n.lower().endswith((".jpg", ".jpeg")) for n in state.list_dir(CAMERA_DIR)) >= at_least


@evaluator(env=ENV)
def text_on_screen(state: AndroidState, text: str) -> bool:
    """{text!r} is shown on the phone's screen"""
    return any(_has(t, text) for t in state.ui_texts())


@evaluator(env=ENV)
def element_shown(state: AndroidState, resource_id: str, text: str | None = None) -> bool:
    """the element {resource_id} (showing {text!r}) is on the phone's screen"""
    short = ":id/" + resource_id
    return any(
        (n.resource_id == resource_id or n.resource_id.endswith(short))
        and (text is None or _same(n.text, text))
        for n in state.ui_tree()
    )


__all__ = [
    "alarm_set",
    "app_in_foreground",
    "call_made",
    "contact_exists",
    "contact_has_email",
    "dark_theme",
    "element_shown",
    "event_exists",
    "file_absent",
    "file_contains",
    "file_exists",
    "mail_sent",
    "note_exists",
    "photo_taken",
    "setting_equals",
    "sms_sent",
    "task_exists",
    "text_on_screen",
    "timer_set",
    "world_clock_has",
    "world_clock_is",
    "no_recent_apps",
]

"""Calendar, clock, notes and tasks templates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, V1_SETS, Step, SubTaskTemplate
from crab_gym.envs.android import evaluators as ev
from crab_gym.tasks.templates.android.layout import (
    ALL_DAY,
    DRAWER,
    FAB,
    PICKER_ROWS,
    PLATFORMS,
    ROWS,
    SAVE,
    SEEDED_EVENTS,
    SEEDED_TASKS,
    android,
    day_of,
    field,
    launch,
    step,
    tap,
)

if TYPE_CHECKING:
    from crab_gym.envs.android.sim.apps import worldclock
    from crab_gym.envs.android.sim.storage import db
else:  # the simulator's modules, imported when a task is built (a desktop's task library builds none)
    worldclock = lazy_module("crab_gym.envs.android.sim.apps.worldclock")
    db = lazy_module("crab_gym.envs.android.sim.storage.db")

# ---- calendar -------------------------------------------------------------------------------------------

CALENDAR_ADD_EVENT = SubTaskTemplate(
    id="calendar_add_event",
    sets=V0_SETS,
    description=(
        "In the Calendar app, create an event titled '{title}' on {date} starting at {start} "
        "(the phone's time zone is UTC)."
    ),
    attributes={"title": "word", "date": "date", "start": "clock_time"},
    evaluator=lambda title, date, start: [
        ev.event_exists(title=title),
        ev.event_exists(title=title, date=date, start=start),
    ],
    solution=lambda title, date, start: [
        *launch("calendar"),
        tap(FAB),
        step("write_text", text=title),
        field(1),
        step("write_text", text=date),
        field(2),
        step("write_text", text=start),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.calendar",),
    output_type="date",
    output=lambda title, date, start: date,
)

# ---- clock ------------------------------------------------------------------------------------------------

CLOCK_SET_ALARM = SubTaskTemplate(
    id="clock_set_alarm",
    sets=V0_SETS,
    description="In the Clock app, add an alarm for {hour:02d}:{minute:02d} (24-hour clock), turned on.",
    attributes={"hour": "hour", "minute": "minute"},
    evaluator=lambda hour, minute: [ev.alarm_set(hour=hour, minute=minute)],
    solution=lambda hour, minute: [
        *launch("clock"),
        tap(FAB),
        step("write_text", text=str(hour)),
        field(1),
        step("write_text", text=str(minute)),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.deskclock",),
)

# ---- notes ------------------------------------------------------------------------------------------------

NOTES_CREATE = SubTaskTemplate(
    id="notes_create",
    sets=V0_SETS,
    description="In Keep Notes, create a note titled '{title}' whose text is '{body}'.",
    attributes={"title": "word", "body": "text"},
    evaluator=lambda title, body: [
        ev.note_exists(title=title),
        ev.note_exists(title=title, body_contains=body),
    ],
    solution=lambda title, body: [
        *launch("keep"),
        tap(FAB),
        step("write_text", text=title),
        field(1),
        step("write_text", text=body),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.keep",),
    output_type="text",
    output=lambda title, body: body,
    inputs=("body",),
)

# ---- tasks ------------------------------------------------------------------------------------------------


def _open_tasks() -> list[Step]:
    return [step("open_app_drawer"), tap(DRAWER["tasks"])]


TASKS_ADD = SubTaskTemplate(
    id="tasks_add",
    sets=V0_SETS,
    description="Open the Tasks app (it is in the app drawer) and add the to-do item '{title}'.",
    attributes={"title": "text"},
    evaluator=lambda title: [
        ev.app_in_foreground(package="com.google.android.apps.tasks"),
        ev.task_exists(title=title, done=False),
    ],
    solution=lambda title: [*_open_tasks(), tap(FAB), step("write_text", text=title), tap(SAVE)],
    platforms=PLATFORMS,
    apps=("com.google.android.apps.tasks",),
    inputs=("title",),
)


def _tasks_complete_setup(envs: Mapping[str, Any], title: str) -> None:
    android(envs).add_task(title)


TASKS_COMPLETE = SubTaskTemplate(
    id="tasks_complete",
    sets=V0_SETS,
    description="In the Tasks app (in the app drawer), mark the to-do item '{title}' as completed.",
    attributes={"title": "text"},
    evaluator=lambda title: [ev.task_exists(title=title, done=True)],
    setup=_tasks_complete_setup,
    # open tasks are listed in the order they were added: the new one comes after the seeded ones
    solution=lambda title: [*_open_tasks(), tap((0.5, ROWS[SEEDED_TASKS]))],
    platforms=PLATFORMS,
    apps=("com.google.android.apps.tasks",),
)


CLOCK_TABS = {"alarm": (0.1667, 0.1471), "clock": (0.5, 0.1471), "timer": (0.8333, 0.1471)}
ALARM_ROWS = tuple(0.22 + i * 0.0833 for i in range(8))  # alarm rows under the Alarm/Timer tabs
SEEDED_ALARMS = 2  # 07:00 and 08:30; sampled alarm hours are later, so a new alarm is the third row


CLOCK_START_TIMER = SubTaskTemplate(
    id="clock_start_timer",
    sets=V0_SETS,
    description="In the Clock app's Timer tab, start a timer of {minutes} minutes.",
    attributes={"minutes": "duration_minutes"},
    evaluator=lambda minutes: [ev.timer_set(minutes=minutes)],
    solution=lambda minutes: [
        *launch("clock"),
        tap(CLOCK_TABS["timer"]),
        tap((0.5, 0.215)),
        step("write_text", text=str(minutes)),
        tap((0.5, 0.285)),  # Start
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.deskclock",),
)


def _alarm_setup(envs: Mapping[str, Any], hour: int, minute: int) -> None:
    android(envs).add_alarm(hour, minute, enabled=True)


CLOCK_TURN_OFF_ALARM = SubTaskTemplate(
    id="clock_turn_off_alarm",
    sets=V0_SETS,
    description=(
        "In the Clock app, turn off the alarm set for {hour:02d}:{minute:02d}, keeping the alarm itself."
    ),
    attributes={"hour": "hour", "minute": "minute"},
    evaluator=lambda hour, minute: [ev.alarm_set(hour=hour, minute=minute, enabled=False)],
    setup=_alarm_setup,
    # tapping an alarm's row toggles it; alarms are listed by time, the seeded ones first
    solution=lambda hour, minute: [*launch("clock"), tap((0.5, ALARM_ROWS[SEEDED_ALARMS]))],
    platforms=PLATFORMS,
    apps=("com.google.android.deskclock",),
)


TASKS_DELETE = SubTaskTemplate(
    id="tasks_delete",
    sets=V0_SETS,
    description=(
        "In the Tasks app (in the app drawer), delete the to-do item '{title}' (touch and hold an item "
        "to delete it)."
    ),
    attributes={"title": "text"},
    evaluator=lambda title: [~ev.task_exists(title=title)],
    setup=_tasks_complete_setup,
    solution=lambda title: [*_open_tasks(), step("long_tap", point=(0.5, ROWS[SEEDED_TASKS]))],
    platforms=PLATFORMS,
    apps=("com.google.android.apps.tasks",),
)


def _note_setup(envs: Mapping[str, Any], title: str, body: str, **_: Any) -> None:
    android(envs).add_note(title, body)  # modified last, so it is the first note listed


NOTES_EDIT = SubTaskTemplate(
    id="notes_edit",
    sets=V0_SETS,
    description=(
        "In Keep Notes, open the note titled '{title}' and add the sentence '{extra}' at the end of its text."
    ),
    attributes={"title": "word", "body": "text", "extra": "text"},
    evaluator=lambda title, body, extra: [
        ev.note_exists(title=title, body_contains=body) & ev.note_exists(title=title, body_contains=extra)
    ],
    setup=_note_setup,
    solution=lambda title, body, extra: [
        *launch("keep"),
        tap((0.5, ROWS[0])),  # opens the editor with the cursor at the end of the text
        step("write_text", text=" " + extra),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.keep",),
    inputs=("extra",),
    hidden=("body",),
)

NOTES_DELETE = SubTaskTemplate(
    id="notes_delete",
    sets=V0_SETS,
    description="In Keep Notes, delete the note titled '{title}' (touch and hold a note to delete it).",
    attributes={"title": "word", "body": "text"},
    evaluator=lambda title, body: [~ev.note_exists(title=title)],
    setup=_note_setup,
    solution=lambda title, body: [*launch("keep"), step("long_tap", point=(0.5, ROWS[0]))],
    platforms=PLATFORMS,
    apps=("com.google.android.keep",),
)


NOTES_CREATE_UNTITLED = SubTaskTemplate(
    id="notes_create_untitled",
    sets=V1_SETS,
    description="In Keep Notes, write '{body}' in a new note, leaving its title empty.",
    attributes={"body": "text"},
    evaluator=lambda body: [
        ev.app_in_foreground(package="com.google.android.keep"),
        ev.note_exists(title="", body_contains=body),
    ],
    solution=lambda body: [*launch("keep"), tap(FAB), field(1), step("write_text", text=body), tap(SAVE)],
    platforms=PLATFORMS,
    apps=("com.google.android.keep",),
    inputs=("body",),
)


CALENDAR_ADD_ALL_DAY = SubTaskTemplate(
    id="calendar_add_all_day",
    sets=V1_SETS,
    description="In the Calendar app, add an all-day event titled '{title}' on {date}.",
    attributes={"title": "text", "date": "date"},
    evaluator=lambda title, date: [
        ev.event_exists(title=title),
        ev.event_exists(title=title, date=day_of(date).isoformat(), all_day=True),
    ],
    solution=lambda title, date: [
        *launch("calendar"),
        tap(FAB),
        step("write_text", text=title),
        field(1),
        step("write_text", text=day_of(date).isoformat()),
        tap(ALL_DAY),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.calendar",),
    inputs=("title", "date"),
)


def _event_on_setup(envs: Mapping[str, Any], date: str, title: str) -> None:
    start = dt.datetime.combine(day_of(date), dt.time(), dt.timezone.utc)
    ms = int(start.timestamp() * 1000)
    android(envs).add_event(title, ms, ms + 86_400_000, all_day=True)


def _event_row(date: str) -> float:
    """Events are listed by start: one after the seeded week comes after the seeded events."""
    return ROWS[SEEDED_EVENTS if day_of(date) > dt.date(2024, 3, 15) else 0]


CALENDAR_FIND_EVENT = SubTaskTemplate(
    id="calendar_find_event",
    sets=V1_SETS,
    description="In the Calendar app, find the event on {date} and open it to read its title.",
    attributes={"date": "date", "title": "text"},
    evaluator=lambda date, title: [
        ev.app_in_foreground(package="com.google.android.calendar"),
        ev.element_shown(resource_id="title", text=title) & ev.element_shown(resource_id="when_datetime"),
    ],
    setup=_event_on_setup,
    solution=lambda date, title: [*launch("calendar"), tap((0.5, _event_row(date)))],
    platforms=PLATFORMS,
    apps=("com.google.android.calendar",),
    output_type="text",
    output=lambda date, title: title,
    inputs=("date",),
    hidden=("title",),
)


def _gap(city: str) -> str | None:
    """The gap the world clock shows for the city at the phone's "now" (None for a city it does not have)."""
    found = worldclock.city_named(city)
    return None if found is None else worldclock.gap(found, db.NOW_MS)


CLOCK_ADD_CITY = SubTaskTemplate(
    id="clock_add_city",
    sets=V1_SETS,
    description=(
        "In the Clock app's Clock tab, add {city} to the world clock and see how far its time is from the "
        "phone's."
    ),
    attributes={"city": "city"},
    evaluator=lambda city: [
        ev.app_in_foreground(package="com.google.android.deskclock"),
        ev.world_clock_has(city=city),
    ],
    solution=lambda city: [
        *launch("clock"),
        tap(CLOCK_TABS["clock"]),
        tap(FAB),  # the city picker, its search field focused
        step("write_text", text=city),
        tap((0.5, PICKER_ROWS[0])),
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.deskclock",),
    output_type="text",
    output=lambda city: _gap(city),
)

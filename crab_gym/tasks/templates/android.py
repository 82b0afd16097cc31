"""Android ("android") sub-task templates: contacts, SMS, phone, calendar, clock, notes, tasks, settings,
camera and files.

Every instruction says what its checks look at; setups use the sub-env's named operations (launch, add_task,
add_contact, write_file); scripted solutions use only Android actions, with tap points taken from the
simulated phone's deterministic layout at 1080x2400 (normalised, so they hold at any size of the same
aspect). Seeds change the phone's contents but not the counts the solutions rely on (3 notes, 3 tasks, the
folders of /sdcard).

Attribute types used here beyond the generator's own: ``phone_number`` ("555-123-4567"), ``date``
("2024-05-17"), ``clock_time`` ("14:30"), ``hour`` (an int, 9-22: never one of the seeded alarms) and
``minute`` (an int, a multiple of 5). Their samplers are registered below with ``setdefault``, so the
generator's own definitions win once it has them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crab_gym.core.tasks import Step, SubTaskTemplate, register
from crab_gym.envs.android import evaluators as ev

ENV = "android"
PLATFORMS = ("android",)

# ---- the layout (normalised points on the simulated phone) -----------------------------------------------
HOME = {
    "calendar": (0.125, 0.3167),
    "clock": (0.375, 0.3167),
    "keep": (0.625, 0.3167),
    "phone": (0.1, 0.775),
    "messages": (0.3, 0.775),
    "contacts": (0.5, 0.775),
    "settings": (0.7, 0.775),
    "camera": (0.9, 0.775),
    "gmail": (0.875, 0.3167),
}
DRAWER = {"files": (0.125, 0.3333), "tasks": (0.625, 0.4583)}
FAB = (0.848, 0.8775)  # the round "+" button at the bottom right of list screens
SAVE = (0.867, 0.0808)  # "Save" at the right of an editor's app bar
FIELDS = (0.1525, 0.2258, 0.2992, 0.3725, 0.4458)  # y of an editor's 1st..5th text field
ROWS = tuple(0.1575 + i * 0.0833 for i in range(9))  # y of list rows under an app bar
SWITCH = (0.875, 0.1533)  # the first switch of a settings page
SDCARD_DOWNLOAD_ROW = 4  # /sdcard: Alarms, Android, DCIM, Documents, Download, ...
SEEDED_TASKS = 3


def _s(action: str, **params: Any) -> Step:
    return Step(ENV, action, params)


def _tap(point: tuple[float, float]) -> Step:
    return _s("tap", point=point)


def _launch(app: str) -> list[Step]:
    """Go to the home screen (a previous sub-task may have left an app open) and tap the app's icon."""
    return [_s("press", button="home"), _tap(HOME[app])]


def _field(i: int) -> Step:
    return _tap((0.5, FIELDS[i]))


def _android(envs: Mapping[str, Any]) -> Any:
    return envs[ENV]


# ---- contacts ---------------------------------------------------------------------------------------------

CONTACTS_ADD = register(
    SubTaskTemplate(
        id="contacts_add",
        description="In the Contacts app, create a new contact named {name} with the phone number {number}.",
        attributes={"name": "name", "number": "phone_number"},
        evaluator=lambda name, number: [ev.contact_exists(name=name, number=number)],
        solution=lambda name, number: [
            *_launch("contacts"),
            _tap(FAB),
            _s("write_text", text=name),
            _field(2),
            _s("write_text", text=number),
            _tap(SAVE),
        ],
        platforms=PLATFORMS,
        apps=("com.android.contacts",),
        output_type="phone_number",
        output=lambda name, number: number,
    )
)

# ---- messages ---------------------------------------------------------------------------------------


def _sms_solution(recipient: str, message: str) -> list[Step]:
    return [
        *_launch("messages"),
        _tap(FAB),
        _s("write_text", text=recipient),
        _tap((0.5, 0.8325)),  # the message field at the bottom
        _s("write_text", text=message),
        _tap((0.5, 0.9025)),  # Send
    ]


SMS_SEND = register(
    SubTaskTemplate(
        id="sms_send",
        description="Using the Messages app, send the text message '{message}' to the phone number {number}.",
        attributes={"number": "phone_number", "message": "text"},
        evaluator=lambda number, message: [ev.sms_sent(to=number, body_contains=message)],
        solution=lambda number, message: _sms_solution(number, message),
        platforms=PLATFORMS,
        apps=("com.google.android.apps.messaging",),
        inputs=("number", "message"),
    )
)


def _sms_contact_setup(envs: Mapping[str, Any], name: str, number: str, message: str) -> None:
    _android(envs).add_contact(name, number)


SMS_SEND_TO_CONTACT = register(
    SubTaskTemplate(
        id="sms_send_to_contact",
        description=(
            "{name} is in the phone's contacts. Using the Messages app, send {name} the text message "
            "'{message}'."
        ),
        attributes={"name": "name", "number": "phone_number", "message": "text"},
        evaluator=lambda name, number, message: [ev.sms_sent(to=number, body_contains=message)],
        setup=_sms_contact_setup,
        # the recipient field resolves a contact's name to the contact's number
        solution=lambda name, number, message: _sms_solution(name, message),
        platforms=PLATFORMS,
        apps=("com.google.android.apps.messaging", "com.android.contacts"),
        hidden=("number",),
    )
)

# ---- phone ------------------------------------------------------------------------------------------

PHONE_CALL = register(
    SubTaskTemplate(
        id="phone_call",
        description="Using the Phone app's keypad, call the number {number}.",
        attributes={"number": "phone_number"},
        evaluator=lambda number: [ev.call_made(number=number)],
        solution=lambda number: [
            *_launch("phone"),
            _tap(FAB),  # the keypad button
            _s("write_text", text=number),
            _tap((0.5, 0.5808)),  # Call
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.dialer",),
        inputs=("number",),
    )
)

# ---- calendar -------------------------------------------------------------------------------------------

CALENDAR_ADD_EVENT = register(
    SubTaskTemplate(
        id="calendar_add_event",
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
            *_launch("calendar"),
            _tap(FAB),
            _s("write_text", text=title),
            _field(1),
            _s("write_text", text=date),
            _field(2),
            _s("write_text", text=start),
            _tap(SAVE),
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.calendar",),
        output_type="date",
        output=lambda title, date, start: date,
    )
)

# ---- clock ------------------------------------------------------------------------------------------------

CLOCK_SET_ALARM = register(
    SubTaskTemplate(
        id="clock_set_alarm",
        description="In the Clock app, add an alarm for {hour:02d}:{minute:02d} (24-hour clock), turned on.",
        attributes={"hour": "hour", "minute": "minute"},
        evaluator=lambda hour, minute: [ev.alarm_set(hour=hour, minute=minute)],
        solution=lambda hour, minute: [
            *_launch("clock"),
            _tap(FAB),
            _s("write_text", text=str(hour)),
            _field(1),
            _s("write_text", text=str(minute)),
            _tap(SAVE),
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.deskclock",),
    )
)

# ---- notes ------------------------------------------------------------------------------------------------

NOTES_CREATE = register(
    SubTaskTemplate(
        id="notes_create",
        description="In Keep Notes, create a note titled '{title}' whose text is '{body}'.",
        attributes={"title": "word", "body": "text"},
        evaluator=lambda title, body: [
            ev.note_exists(title=title),
            ev.note_exists(title=title, body_contains=body),
        ],
        solution=lambda title, body: [
            *_launch("keep"),
            _tap(FAB),
            _s("write_text", text=title),
            _field(1),
            _s("write_text", text=body),
            _tap(SAVE),
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.keep",),
        output_type="text",
        output=lambda title, body: body,
        inputs=("body",),
    )
)

# ---- tasks ------------------------------------------------------------------------------------------------


def _open_tasks() -> list[Step]:
    return [_s("open_app_drawer"), _tap(DRAWER["tasks"])]


TASKS_ADD = register(
    SubTaskTemplate(
        id="tasks_add",
        description="Open the Tasks app (it is in the app drawer) and add the to-do item '{title}'.",
        attributes={"title": "text"},
        evaluator=lambda title: [
            ev.app_in_foreground(package="com.google.android.apps.tasks"),
            ev.task_exists(title=title, done=False),
        ],
        solution=lambda title: [*_open_tasks(), _tap(FAB), _s("write_text", text=title), _tap(SAVE)],
        platforms=PLATFORMS,
        apps=("com.google.android.apps.tasks",),
        inputs=("title",),
    )
)


def _tasks_complete_setup(envs: Mapping[str, Any], title: str) -> None:
    _android(envs).add_task(title)


TASKS_COMPLETE = register(
    SubTaskTemplate(
        id="tasks_complete",
        description="In the Tasks app (in the app drawer), mark the to-do item '{title}' as completed.",
        attributes={"title": "text"},
        evaluator=lambda title: [ev.task_exists(title=title, done=True)],
        setup=_tasks_complete_setup,
        # open tasks are listed in the order they were added: the new one comes after the seeded ones
        solution=lambda title: [*_open_tasks(), _tap((0.5, ROWS[SEEDED_TASKS]))],
        platforms=PLATFORMS,
        apps=("com.google.android.apps.tasks",),
    )
)

# ---- settings ---------------------------------------------------------------------------------------------

SETTINGS_DARK_THEME = register(
    SubTaskTemplate(
        id="settings_dark_theme",
        description="In the Settings app, turn on the dark theme (under Display).",
        attributes={},
        evaluator=lambda: [ev.dark_theme(on=True)],
        solution=lambda: [*_launch("settings"), _tap((0.5, ROWS[2])), _tap(SWITCH)],
        platforms=PLATFORMS,
        apps=("com.android.settings",),
    )
)

SETTINGS_BLUETOOTH_ON = register(
    SubTaskTemplate(
        id="settings_bluetooth_on",
        description="In the Settings app, turn Bluetooth on (under Connected devices).",
        attributes={},
        evaluator=lambda: [ev.setting_equals(namespace="global", key="bluetooth_on", value="1")],
        solution=lambda: [*_launch("settings"), _tap((0.5, ROWS[1])), _tap(SWITCH)],
        platforms=PLATFORMS,
        apps=("com.android.settings",),
    )
)

# ---- camera and files -------------------------------------------------------------------------------------

CAMERA_TAKE_PHOTO = register(
    SubTaskTemplate(
        id="camera_take_photo",
        description="Open the Camera app and take a photo (it is saved under /sdcard/DCIM/Camera).",
        attributes={},
        evaluator=lambda: [ev.app_in_foreground(package="com.android.camera2"), ev.photo_taken(at_least=1)],
        solution=lambda: [*_launch("camera"), _tap((0.5, 0.8583))],
        platforms=PLATFORMS,
        apps=("com.android.camera2",),
    )
)


def _files_delete_setup(envs: Mapping[str, Any], filename: str) -> None:
    _android(envs).write_file(f"/sdcard/Download/{filename}", f"Contents of {filename}\n")


FILES_DELETE = register(
    SubTaskTemplate(
        id="files_delete",
        description=(
            "Using the Files app (in the app drawer), delete the file {filename} from the Download folder of "
            "the phone's internal storage (touch and hold a file to delete it)."
        ),
        attributes={"filename": "filename"},
        evaluator=lambda filename: [ev.file_absent(path=f"/sdcard/Download/{filename}")],
        setup=_files_delete_setup,
        solution=lambda filename: [
            _s("open_app_drawer"),
            _tap(DRAWER["files"]),
            _tap((0.5, ROWS[SDCARD_DOWNLOAD_ROW])),
            _s("long_tap", point=(0.5, ROWS[0])),  # the only file in Download
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.documentsui",),
    )
)

# ---- more: timers and alarms, settings, to-dos, notes, replies, call-backs, mail -------------------------

CLOCK_TABS = {"alarm": (0.25, 0.1471), "timer": (0.75, 0.1471)}
ALARM_ROWS = tuple(0.22 + i * 0.0833 for i in range(8))  # alarm rows under the Alarm/Timer tabs
SEEDED_ALARMS = 2  # 07:00 and 08:30; sampled alarm hours are later, so a new alarm is the third row
NETWORK_SWITCHES = {"wifi": (0.875, 0.1533), "mobile_data": (0.875, 0.2283), "airplane": (0.875, 0.3033)}

CLOCK_START_TIMER = register(
    SubTaskTemplate(
        id="clock_start_timer",
        description="In the Clock app's Timer tab, start a timer of {minutes} minutes.",
        attributes={"minutes": "duration_minutes"},
        evaluator=lambda minutes: [ev.timer_set(minutes=minutes)],
        solution=lambda minutes: [
            *_launch("clock"),
            _tap(CLOCK_TABS["timer"]),
            _tap((0.5, 0.215)),
            _s("write_text", text=str(minutes)),
            _tap((0.5, 0.285)),  # Start
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.deskclock",),
    )
)


def _alarm_setup(envs: Mapping[str, Any], hour: int, minute: int) -> None:
    _android(envs).add_alarm(hour, minute, enabled=True)


CLOCK_TURN_OFF_ALARM = register(
    SubTaskTemplate(
        id="clock_turn_off_alarm",
        description=(
            "In the Clock app, turn off the alarm set for {hour:02d}:{minute:02d}, keeping the alarm itself."
        ),
        attributes={"hour": "hour", "minute": "minute"},
        evaluator=lambda hour, minute: [ev.alarm_set(hour=hour, minute=minute, enabled=False)],
        setup=_alarm_setup,
        # tapping an alarm's row toggles it; alarms are listed by time, the seeded ones first
        solution=lambda hour, minute: [*_launch("clock"), _tap((0.5, ALARM_ROWS[SEEDED_ALARMS]))],
        platforms=PLATFORMS,
        apps=("com.google.android.deskclock",),
    )
)

SETTINGS_WIFI_OFF = register(
    SubTaskTemplate(
        id="settings_wifi_off",
        description="In the Settings app, turn Wi-Fi off (under Network & internet).",
        attributes={},
        evaluator=lambda: [ev.setting_equals(namespace="global", key="wifi_on", value="0")],
        solution=lambda: [*_launch("settings"), _tap((0.5, ROWS[0])), _tap(NETWORK_SWITCHES["wifi"])],
        platforms=PLATFORMS,
        apps=("com.android.settings",),
    )
)

SETTINGS_AIRPLANE_MODE = register(
    SubTaskTemplate(
        id="settings_airplane_mode",
        description="In the Settings app, turn on airplane mode (under Network & internet).",
        attributes={},
        evaluator=lambda: [ev.setting_equals(namespace="global", key="airplane_mode_on", value="1")],
        solution=lambda: [*_launch("settings"), _tap((0.5, ROWS[0])), _tap(NETWORK_SWITCHES["airplane"])],
        platforms=PLATFORMS,
        apps=("com.android.settings",),
    )
)

TASKS_DELETE = register(
    SubTaskTemplate(
        id="tasks_delete",
        description=(
            "In the Tasks app (in the app drawer), delete the to-do item '{title}' (touch and hold an item "
            "to delete it)."
        ),
        attributes={"title": "text"},
        evaluator=lambda title: [~ev.task_exists(title=title)],
        setup=_tasks_complete_setup,
        solution=lambda title: [*_open_tasks(), _s("long_tap", point=(0.5, ROWS[SEEDED_TASKS]))],
        platforms=PLATFORMS,
        apps=("com.google.android.apps.tasks",),
    )
)


def _note_setup(envs: Mapping[str, Any], title: str, body: str, **_: Any) -> None:
    _android(envs).add_note(title, body)  # modified last, so it is the first note listed


NOTES_EDIT = register(
    SubTaskTemplate(
        id="notes_edit",
        description=(
            "In Keep Notes, open the note titled '{title}' and add the sentence '{extra}' at the end of its "
            "text."
        ),
        attributes={"title": "word", "body": "text", "extra": "text"},
        evaluator=lambda title, body, extra: [
            ev.note_exists(title=title, body_contains=body) & ev.note_exists(title=title, body_contains=extra)
        ],
        setup=_note_setup,
        solution=lambda title, body, extra: [
            *_launch("keep"),
            _tap((0.5, ROWS[0])),  # opens the editor with the cursor at the end of the text
            _s("write_text", text=" " + extra),
            _tap(SAVE),
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.keep",),
        inputs=("extra",),
        hidden=("body",),
    )
)

NOTES_DELETE = register(
    SubTaskTemplate(
        id="notes_delete",
        description="In Keep Notes, delete the note titled '{title}' (touch and hold a note to delete it).",
        attributes={"title": "word", "body": "text"},
        evaluator=lambda title, body: [~ev.note_exists(title=title)],
        setup=_note_setup,
        solution=lambda title, body: [*_launch("keep"), _s("long_tap", point=(0.5, ROWS[0]))],
        platforms=PLATFORMS,
        apps=("com.google.android.keep",),
    )
)


def _reply_setup(envs: Mapping[str, Any], sender: str, message: str) -> None:
    _android(envs).add_sms(sender, "Are you still coming today? Let me know.")


SMS_REPLY = register(
    SubTaskTemplate(
        id="sms_reply",
        description=(
            "A text message from {sender} has just arrived. In the Messages app, reply to it with "
            "'{message}'."
        ),
        attributes={"sender": "phone_number", "message": "text"},
        evaluator=lambda sender, message: [ev.sms_sent(to=sender, body_contains=message)],
        setup=_reply_setup,
        # the newest conversation is listed first; opening it focuses the message field
        solution=lambda sender, message: [
            *_launch("messages"),
            _tap((0.5, ROWS[0])),
            _tap((0.5, 0.8325)),
            _s("write_text", text=message),
            _tap((0.5, 0.9025)),  # Send
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.apps.messaging",),
        inputs=("message",),
    )
)


def _missed_call_setup(envs: Mapping[str, Any], number: str) -> None:
    _android(envs).add_call(number, kind=3)


PHONE_CALL_BACK = register(
    SubTaskTemplate(
        id="phone_call_back",
        description=(
            "You just missed a call. In the Phone app, call back the number that called most recently (it is "
            "at the top of the call history)."
        ),
        attributes={"number": "phone_number"},
        evaluator=lambda number: [ev.call_made(number=number)],
        setup=_missed_call_setup,
        solution=lambda number: [*_launch("phone"), _tap((0.5, ROWS[0]))],  # tapping a call calls back
        platforms=PLATFORMS,
        apps=("com.google.android.dialer",),
        output_type="phone_number",
        output=lambda number: number,
        hidden=("number",),
    )
)

MAIL_SEND = register(
    SubTaskTemplate(
        id="mail_send",
        description=(
            "In the Gmail app, send an email to {to} with the subject '{subject}' and the text '{body}'."
        ),
        attributes={"to": "email", "subject": "word", "body": "text"},
        evaluator=lambda to, subject, body: [ev.mail_sent(to=to, subject=subject, body_contains=body)],
        solution=lambda to, subject, body: [
            *_launch("gmail"),
            _tap(FAB),  # Compose: the cursor is in To
            _s("write_text", text=to),
            _field(1),
            _s("write_text", text=subject),
            _field(2),
            _s("write_text", text=body),
            _tap(SAVE),  # Send
        ],
        platforms=PLATFORMS,
        apps=("com.google.android.gm",),
        inputs=("body",),
    )
)

ANDROID_TEMPLATES = (
    CONTACTS_ADD,
    SMS_SEND,
    SMS_SEND_TO_CONTACT,
    PHONE_CALL,
    CALENDAR_ADD_EVENT,
    CLOCK_SET_ALARM,
    NOTES_CREATE,
    TASKS_ADD,
    TASKS_COMPLETE,
    SETTINGS_DARK_THEME,
    SETTINGS_BLUETOOTH_ON,
    CAMERA_TAKE_PHOTO,
    FILES_DELETE,
    CLOCK_START_TIMER,
    CLOCK_TURN_OFF_ALARM,
    SETTINGS_WIFI_OFF,
    SETTINGS_AIRPLANE_MODE,
    TASKS_DELETE,
    NOTES_EDIT,
    NOTES_DELETE,
    SMS_REPLY,
    PHONE_CALL_BACK,
    MAIL_SEND,
)

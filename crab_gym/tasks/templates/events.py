"""Templates whose tasks react to a device event (:mod:`crab_gym.core.events`): a text message, a call, a
notification, an e-mail, a calendar reminder or a file arrives during the episode, and the task needs what it
brings. Nothing is satisfied before it fires; the scripted solution waits for it (root ``wait`` steps), then
does what a single-device template's solution does.

Two kinds: templates derived from one whose setup prepares a message, a call or a file (:func:`arriving`:
that part of the setup becomes events at ``at_step``, the rest stays setup), and templates written here for
the events no setup makes (notifications, e-mails, calendar reminders). Interactive: never drawn by the
generator; their tasks are ``load_tasks("events")``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.events import DeviceEvent
from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import EVENT_SETS, Step, SubTaskTemplate, get_template, register
from crab_gym.envs.android import evaluators as phone
from crab_gym.envs.root import answer_equals
from crab_gym.tasks.templates import android, cross, desktop  # noqa: F401 - the bases register first
from crab_gym.tasks.templates.ask import solve

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as desk
else:
    desk = lazy_module("crab_gym.envs.desktop.evaluators")

ANDROID, BOTH = ("android",), ("ubuntu", "android")
EVENT_OPS = ("add_sms", "add_call", "write_file")  # setup operations that become events when they arrive


def wait_steps(n: int, seconds: int = 1) -> list[Step]:
    """The oracle waits ``n`` steps for the event."""
    return [Step("root", "wait", {"seconds": seconds})] * n


class _Split:
    """A device as a setup sees it: event operations are collected as events (``at_step``); the others go
    to ``real`` (or nowhere, when only the events are wanted)."""

    def __init__(self, name: str, real: Any, events: list[DeviceEvent] | None, at_step: int) -> None:
        self._name, self._real, self._events, self._at = name, real, events, at_step

    def __getattr__(self, op: str) -> Any:
        if op in EVENT_OPS:
            return self._collect(op)
        if self._real is None:
            return lambda *args, **kwargs: None
        return getattr(self._real, op)

    def _collect(self, op: str) -> Callable[..., None]:
        def collect(*args: Any, **kwargs: Any) -> None:
            if self._events is None:
                return
            if op == "add_sms":
                kind, params = "sms", {"sender": args[0], "body": args[1]}
            elif op == "add_call":
                kind, params = "call", {"number": args[0]}
            else:
                kind, params = "file", {"device": self._name, "path": args[0], "content": args[1]}
            self._events.append(DeviceEvent(kind, params, at_step=self._at))

        return collect


def arriving(base: str, new_id: str, description: str, at_step: int = 2, **extra: Any) -> SubTaskTemplate:
    """Template ``base`` with the messages, calls and files its setup makes arriving after step
    ``at_step`` instead of at reset; the oracle waits for them, then solves as ``base`` does."""
    tpl = get_template(base)
    assert tpl.setup is not None and not tpl.screen_setup, f"{base}: its setup must make something arrive"
    base_setup = tpl.setup

    def setup(envs: Mapping[str, Any], **attrs: Any) -> None:
        base_setup({n: _Split(n, d, None, at_step) for n, d in envs.items()}, **attrs)

    def events(**attrs: Any) -> list[DeviceEvent]:
        out: list[DeviceEvent] = []
        base_setup({n: _Split(n, None, out, at_step) for n in tpl.platforms}, **attrs)
        return out

    def solution(**attrs: Any) -> list[Step]:
        return wait_steps(at_step) + tpl.solution(**attrs)

    fields = {"id": new_id, "description": description, "attributes": tpl.attributes, "setup": setup,
              "evaluator": tpl.evaluator, "events": events, "solution": solution, "platforms": tpl.platforms,
              "apps": tpl.apps, "hidden": tpl.hidden, "sets": EVENT_SETS}  # fmt: skip
    return SubTaskTemplate(**{**fields, **extra})


DERIVED = (
    arriving("sms_reply", "event_sms_reply",
             "A text message is about to arrive on the phone. When it comes, reply to it in the Messages app "
             "with '{message}'.", hidden=("sender",)),
    arriving("phone_call_back", "event_call_back",
             "Someone is about to call the phone, and the call will be missed. When it is, call that number "
             "back with the Phone app (the newest call is at the top of the call history)."),
    arriving("cross_sms_code_to_file", "event_sms_code_to_file",
             "A verification code will arrive by text message from {sender}. When it comes, write just the "
             "code as the only line of the file {path} on the desktop."),
    arriving("terminal_count_lines", "event_count_lines",
             "A text file {source} with one entry per line is about to be saved. When it appears, count its "
             "lines with the terminal and save just that number in the file {target}.", at_step=3),
    arriving("terminal_copy_file", "event_copy_file",
             "The file {source} is being downloaded. When it appears, copy it with the terminal into the "
             "folder {folder} (create the folder if it is missing), keeping the original where it is."),
    arriving("terminal_archive", "event_archive",
             "The file {source} is about to be written. When it appears, pack it with the terminal into a "
             "gzip-compressed tar archive {archive}.", at_step=3),
    arriving("terminal_make_executable", "event_make_executable",
             "A script {path} is being downloaded. When it appears, make it executable with the terminal "
             "(give it execute permission)."),
    arriving("terminal_sort_lines", "event_sort_lines",
             "A list will be saved as the file {source}. When it appears, sort its lines alphabetically with "
             "the terminal and save the sorted lines in the file {target}."),
    arriving("terminal_grep_lines", "event_grep_lines",
             "A log file {source} is about to be written. When it appears, save the lines that contain the "
             "word '{word}' (and only those, in their order) in the file {target}, using the terminal.",
             at_step=3),
    arriving("terminal_replace_word", "event_replace_word",
             "The text file {path} is about to arrive. When it does, replace every occurrence of the word "
             "'{old}' with '{new}' in it (for example with sed in a terminal) and save the file."),
    arriving("cross_file_to_phone_note", "event_file_to_phone_note",
             "A sentence is about to be saved in the desktop file {path}. When it appears, create a note on "
             "the phone in Keep Notes titled {title} whose text is that sentence."),
)  # fmt: skip


def _at(kind: str, at_step: int = 2, **params: str) -> DeviceEvent:
    return DeviceEvent(kind, params, at_step=at_step)


WRITTEN = (
    SubTaskTemplate(
        id="event_notification_alarm",
        sets=EVENT_SETS,
        description="A notification will tell when my taxi comes. Set a turned-on alarm in the Clock app for "
        "that time.",
        attributes={"hour": "hour", "minute": "minute"},
        evaluator=lambda hour, minute: [phone.alarm_set(hour=hour, minute=minute)],
        events=lambda hour, minute: [
            DeviceEvent(
                "notification",
                {"title": "Taxi", "text": f"Your taxi arrives at {hour:02d}:{minute:02d}"},
                at_seconds=5,
            )
        ],
        solution=lambda hour, minute: wait_steps(1, 5) + solve("clock_set_alarm", hour=hour, minute=minute),
        platforms=ANDROID,
        apps=("com.google.android.deskclock",),
        hidden=("hour", "minute"),
    ),
    SubTaskTemplate(
        id="event_notification_locker_note",
        sets=EVENT_SETS,
        description="The parcel locker will send its code in a notification. When it comes, create a note "
        "in Keep Notes titled '{title}' holding the code.",
        attributes={"title": "word", "code": "number"},
        evaluator=lambda title, code: [phone.note_exists(title=title, body_contains=str(code))],
        events=lambda title, code: [_at("notification", title="Parcel locker", text=f"Your code is {code}")],
        solution=lambda title, code: wait_steps(2) + solve("notes_create", title=title, body=str(code)),
        platforms=ANDROID,
        apps=("com.google.android.keep",),
        hidden=("code",),
    ),
    SubTaskTemplate(
        id="event_notification_to_mail",
        sets=EVENT_SETS,
        description="A notification will say where to send the report. When it comes, send an email there "
        "from the Gmail app with the subject '{subject}' and the text '{body}'.",
        attributes={"to": "email", "subject": "word", "body": "text"},
        evaluator=lambda to, subject, body: [phone.mail_sent(to=to, subject=subject, body_contains=body)],
        events=lambda to, subject, body: [
            _at("notification", title="Reminder", text=f"Send the report to {to}")
        ],
        solution=lambda to, subject, body: (
            wait_steps(2) + solve("mail_send", to=to, subject=subject, body=body)
        ),
        platforms=ANDROID,
        apps=("com.google.android.gm",),
        hidden=("to",),
    ),
    SubTaskTemplate(
        id="event_email_to_calendar",
        sets=EVENT_SETS,
        description="An email with the date and time of the kickoff meeting will arrive in Gmail. When it "
        "does, add the meeting to the Calendar app as an event titled '{title}' (the phone's time zone "
        "is UTC).",
        attributes={"title": "word", "date": "date", "start": "clock_time"},
        evaluator=lambda title, date, start: [phone.event_exists(title=title, date=date, start=start)],
        events=lambda title, date, start: [
            _at(
                "email",
                sender="office@example.org",
                subject="Kickoff",
                body=f"The kickoff is on {date} at {start}.",
            )
        ],
        solution=lambda title, date, start: (
            wait_steps(2) + solve("calendar_add_event", title=title, date=date, start=start)
        ),
        platforms=ANDROID,
        apps=("com.google.android.gm", "com.google.android.calendar"),
        hidden=("date", "start"),
    ),
    SubTaskTemplate(
        id="event_email_to_task",
        sets=EVENT_SETS,
        description="My manager is about to email me a to-do. When the email arrives in Gmail, add its "
        "text as an item in the Tasks app (in the app drawer).",
        attributes={"title": "text"},
        evaluator=lambda title: [phone.task_exists(title=title, done=False)],
        events=lambda title: [_at("email", sender="manager@example.org", subject="To-do", body=title)],
        solution=lambda title: wait_steps(2) + solve("tasks_add", title=title),
        platforms=ANDROID,
        apps=("com.google.android.gm", "com.google.android.apps.tasks"),
        hidden=("title",),
    ),
    SubTaskTemplate(
        id="event_reminder_to_sms",
        sets=EVENT_SETS,
        description="A calendar reminder will pop up for my dentist appointment. When it does, text the "
        "appointment's start time (HH:MM) to {number} with the Messages app.",
        attributes={"number": "phone_number", "date": "date", "start": "clock_time"},
        evaluator=lambda number, date, start: [phone.sms_sent(to=number, body_contains=start)],
        events=lambda number, date, start: [
            DeviceEvent("calendar_reminder", {"title": "Dentist", "date": date, "start": start}, at_seconds=5)
        ],
        solution=lambda number, date, start: (
            wait_steps(1, 5) + solve("sms_send", number=number, message=start)
        ),
        platforms=ANDROID,
        apps=("com.google.android.calendar", "com.google.android.apps.messaging"),
        hidden=("date", "start"),
    ),
    SubTaskTemplate(
        id="event_call_to_contact",
        sets=EVENT_SETS,
        description="{name} is about to call from a new number, and the call will be missed. When it is, "
        "save that number in the Contacts app as a new contact named {name}.",
        attributes={"name": "name", "number": "phone_number"},
        evaluator=lambda name, number: [phone.contact_exists(name=name, number=number)],
        events=lambda name, number: [_at("call", number=number)],
        solution=lambda name, number: wait_steps(2) + solve("contacts_add", name=name, number=number),
        platforms=ANDROID,
        apps=("com.google.android.dialer", "com.android.contacts"),
        hidden=("number",),
    ),
    SubTaskTemplate(
        id="event_sms_code_answer",
        sets=EVENT_SETS,
        description="A one-time code will arrive by text message. When it does, submit the code as the "
        "answer.",
        attributes={"code": "number"},
        evaluator=lambda code: [answer_equals(value=str(code))],
        events=lambda code: [_at("sms", sender="CrabBank", body=f"Your one-time code is {code}")],
        solution=lambda code: [*wait_steps(2), Step("root", "submit", {"answer": str(code)})],
        platforms=ANDROID,
        apps=("com.google.android.apps.messaging",),
        hidden=("code",),
    ),
    SubTaskTemplate(
        id="event_email_code_to_file",
        sets=EVENT_SETS,
        description="A confirmation code will arrive by email on the phone. When it does, write just the "
        "code as the only line of the file {path} on the desktop.",
        attributes={"code": "number", "path": "path"},
        evaluator=lambda code, path: [desk.file_equals(path=path, text=str(code))],
        events=lambda code, path: [
            _at(
                "email",
                sender="shop@example.org",
                subject="Your code",
                body=f"Your confirmation code is {code}.",
            )
        ],
        solution=lambda code, path: wait_steps(2) + solve("vim_write_file", path=path, text=str(code)),
        platforms=BOTH,
        apps=("com.google.android.gm", "terminal", "vim"),
        hidden=("code",),
    ),
    SubTaskTemplate(
        id="event_reminder_to_file",
        sets=EVENT_SETS,
        description="A calendar reminder for the team lunch will pop up on the phone. When it does, write "
        "its start time (HH:MM) as the only line of the file {path} on the desktop.",
        attributes={"path": "path", "date": "date", "start": "clock_time"},
        evaluator=lambda path, date, start: [desk.file_equals(path=path, text=start)],
        events=lambda path, date, start: [
            _at("calendar_reminder", title="Team lunch", date=date, start=start)
        ],
        solution=lambda path, date, start: wait_steps(2) + solve("vim_write_file", path=path, text=start),
        platforms=BOTH,
        apps=("com.google.android.calendar", "terminal", "vim"),
        hidden=("date", "start"),
    ),
    SubTaskTemplate(
        id="event_desktop_file_to_sms",
        sets=EVENT_SETS,
        description="A file {path} with a message for {number} is about to be saved on the desktop. When it "
        "appears, text that message to {number} from the phone's Messages app.",
        attributes={"path": "path", "number": "phone_number", "message": "text"},
        evaluator=lambda path, number, message: [phone.sms_sent(to=number, body_contains=message)],
        events=lambda path, number, message: [
            _at("file", device="ubuntu", path=path, content=f"{message}\n")
        ],
        solution=lambda path, number, message: (
            wait_steps(2) + solve("sms_send", number=number, message=message)
        ),
        platforms=BOTH,
        apps=("terminal", "com.google.android.apps.messaging"),
        hidden=("message",),
    ),
    SubTaskTemplate(
        id="event_phone_download_to_note",
        sets=EVENT_SETS,
        description="A file is being downloaded on the phone; a notification says when it is done. Then "
        "create a note in Keep Notes titled '{title}' whose text is the downloaded file's name.",
        attributes={"name": "filename", "title": "word"},
        evaluator=lambda name, title: [phone.note_exists(title=title, body_contains=name)],
        events=lambda name, title: [
            _at("file", device="android", path=f"/sdcard/Download/{name}", content="downloaded\n")
        ],
        solution=lambda name, title: wait_steps(2) + solve("notes_create", title=title, body=name),
        platforms=ANDROID,
        apps=("com.google.android.documentsui", "com.google.android.keep"),
        hidden=("name",),
    ),
)

EVENT_TEMPLATES: tuple[SubTaskTemplate, ...] = DERIVED + WRITTEN
for _template in EVENT_TEMPLATES:
    register(_template)

__all__ = ["EVENT_TEMPLATES", "arriving", "wait_steps"]

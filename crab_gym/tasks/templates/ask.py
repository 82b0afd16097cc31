"""Templates that can only be finished by asking the user (``ask_user``): the instruction leaves out a fact
(who the boss is, a number, a time) that nothing on the devices tells, and the task's simulated user knows it
(:class:`~crab_gym.core.user.UserFact`). Contacts that could be meant are on the phone, so a guess is one of
several. The scripted solution asks first, then reuses a single-device template's solution.

These templates are interactive: registered (task files can name them) but never drawn by the generator,
so v0 and ``generate_tasks`` stay as they were. Their tasks: ``load_tasks("ask-user")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import ASK_SETS, Step, SubTaskTemplate, get_template, register
from crab_gym.core.user import UserFact
from crab_gym.envs.android import evaluators as phone

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as desk
else:
    desk = lazy_module("crab_gym.envs.desktop.evaluators")

ANDROID, DESKTOP, BOTH = ("android",), ("ubuntu",), ("ubuntu", "android")
MESSAGES, CONTACTS = "com.google.android.apps.messaging", "com.android.contacts"


def ask(question: str) -> Step:
    """The oracle's question to the user."""
    return Step("root", "ask_user", {"question": question})


def solve(template: str, **attrs: Any) -> list[Step]:
    """A registered template's scripted solution."""
    return get_template(template).solution(**attrs)


def _two_contacts(envs: Mapping[str, Any], first: tuple[str, str], second: tuple[str, str]) -> None:
    envs["android"].add_contact(*first)
    envs["android"].add_contact(*second)


BOSS = UserFact("boss", ("boss", "manager", "supervisor"), "My boss is {boss}.")

ASK_SMS_BOSS = SubTaskTemplate(
    id="ask_sms_boss",
    sets=ASK_SETS,
    description="Text my boss '{message}' with the Messages app. My boss is in the phone's contacts.",
    attributes={
        "boss": "name",
        "number": "phone_number",
        "other": "name",
        "other_number": "phone_number",
        "message": "text",
    },  # fmt: skip
    evaluator=lambda boss, number, other, other_number, message: [
        phone.sms_sent(to=number, body_contains=message)
    ],
    setup=lambda envs, boss, number, other, other_number, message: _two_contacts(
        envs, (other, other_number), (boss, number)
    ),
    solution=lambda boss, number, other, other_number, message: [
        ask("Who is your boss?"),
        *solve("sms_send_to_contact", name=boss, number=number, message=message),
    ],
    platforms=ANDROID,
    apps=(MESSAGES, CONTACTS),
    hidden=("boss", "number"),
    user=(BOSS,),
)

ASK_CALL_RESTAURANT = SubTaskTemplate(
    id="ask_call_restaurant",
    sets=ASK_SETS,
    description="Call the restaurant where I booked dinner tonight, with the Phone app's keypad.",
    attributes={"number": "phone_number"},
    evaluator=lambda number: [phone.call_made(number=number)],
    solution=lambda number: [
        ask("What is the restaurant's phone number?"),
        *solve("phone_call", number=number),
    ],
    platforms=ANDROID,
    apps=("com.google.android.dialer",),
    hidden=("number",),
    user=(UserFact("number", ("restaurant", "number", "phone"), "The restaurant's number is {number}."),),
)

ASK_ALARM_WAKE = SubTaskTemplate(
    id="ask_alarm_wake",
    sets=ASK_SETS,
    description="In the Clock app, add an alarm, turned on, for the time I have to get up tomorrow.",
    attributes={"hour": "hour", "minute": "minute"},
    evaluator=lambda hour, minute: [phone.alarm_set(hour=hour, minute=minute)],
    solution=lambda hour, minute: [
        ask("What time do you have to get up tomorrow?"),
        *solve("clock_set_alarm", hour=hour, minute=minute),
    ],
    platforms=ANDROID,
    apps=("com.google.android.deskclock",),
    hidden=("hour", "minute"),
    user=(
        UserFact("hour", ("time", "when", "get up", "wake"), "I have to get up at {hour:02d}:{minute:02d}."),
    ),
)

ASK_CALENDAR_DENTIST = SubTaskTemplate(
    id="ask_calendar_dentist",
    sets=ASK_SETS,
    description=(
        "In the Calendar app, add my dentist appointment as an event titled '{title}' (the phone's time "
        "zone is UTC)."
    ),
    attributes={"title": "word", "date": "date", "start": "clock_time"},
    evaluator=lambda title, date, start: [phone.event_exists(title=title, date=date, start=start)],
    solution=lambda title, date, start: [
        ask("When is your dentist appointment: which date and what time?"),
        *solve("calendar_add_event", title=title, date=date, start=start),
    ],
    platforms=ANDROID,
    apps=("com.google.android.calendar",),
    hidden=("date", "start"),
    user=(UserFact("date", ("when", "date", "time", "day"), "It is on {date} at {start}."),),
)

ASK_NOTE_DOOR_CODE = SubTaskTemplate(
    id="ask_note_door_code",
    sets=ASK_SETS,
    description="In Keep Notes, create a note titled '{title}' holding the door code of my new flat.",
    attributes={"title": "word", "code": "number"},
    evaluator=lambda title, code: [phone.note_exists(title=title, body_contains=str(code))],
    solution=lambda title, code: [
        ask("What is the door code?"),
        *solve("notes_create", title=title, body=str(code)),
    ],
    platforms=ANDROID,
    apps=("com.google.android.keep",),
    hidden=("code",),
    user=(UserFact("code", ("code", "door"), "The door code is {code}."),),
)

ASK_MAIL_COLLEAGUE = SubTaskTemplate(
    id="ask_mail_colleague",
    sets=ASK_SETS,
    description=(
        "In the Gmail app, send my colleague an email with the subject '{subject}' and the text '{body}'."
    ),
    attributes={"to": "email", "subject": "word", "body": "text"},
    evaluator=lambda to, subject, body: [phone.mail_sent(to=to, subject=subject, body_contains=body)],
    solution=lambda to, subject, body: [
        ask("What is your colleague's email address?"),
        *solve("mail_send", to=to, subject=subject, body=body),
    ],
    platforms=ANDROID,
    apps=("com.google.android.gm",),
    hidden=("to",),
    user=(UserFact("to", ("email", "e-mail", "address", "colleague"), "My colleague's address is {to}."),),
)

ASK_CONTACT_NEIGHBOUR = SubTaskTemplate(
    id="ask_contact_neighbour",
    sets=ASK_SETS,
    description="Save my new neighbour in the Contacts app, with their name and phone number.",
    attributes={"name": "name", "number": "phone_number"},
    evaluator=lambda name, number: [phone.contact_exists(name=name, number=number)],
    solution=lambda name, number: [
        ask("What is your neighbour's name?"),
        ask("What is your neighbour's phone number?"),
        *solve("contacts_add", name=name, number=number),
    ],
    platforms=ANDROID,
    apps=(CONTACTS,),
    hidden=("name", "number"),
    user=(
        UserFact("name", ("name", "called", "who"), "My neighbour is called {name}."),
        UserFact("number", ("number", "phone"), "Their number is {number}."),
    ),
)

ASK_FILE_FLIGHT = SubTaskTemplate(
    id="ask_file_flight",
    sets=ASK_SETS,
    description="On the desktop, save my flight number as the only line of the file {path}.",
    attributes={"path": "path", "flight": "number"},
    evaluator=lambda path, flight: [desk.file_equals(path=path, text=f"LH{flight}")],
    solution=lambda path, flight: [
        ask("What is your flight number?"),
        *solve("vim_write_file", path=path, text=f"LH{flight}"),
    ],
    platforms=DESKTOP,
    apps=("terminal", "vim"),
    hidden=("flight",),
    user=(UserFact("flight", ("flight",), "My flight number is LH{flight}."),),
)

ASK_FOLDER_PROJECT = SubTaskTemplate(
    id="ask_folder_project",
    sets=ASK_SETS,
    description="On the desktop, create the folder for my new project inside ~/Documents.",
    attributes={"name": "foldername"},
    evaluator=lambda name: [desk.dir_exists(path=f"~/Documents/{name}")],
    solution=lambda name: [
        ask("What should the project's folder be called?"),
        *solve("terminal_create_folder", folder=f"~/Documents/{name}"),
    ],
    platforms=DESKTOP,
    apps=("terminal",),
    hidden=("name",),
    user=(UserFact("name", ("name", "called", "folder"), "Call the folder {name}."),),
)

ASK_CURSOR_SIZE = SubTaskTemplate(
    id="ask_cursor_size",
    sets=ASK_SETS,
    description=(
        "Set the desktop's mouse pointer to the size I like: the GNOME interface setting cursor-size "
        "(schema org.gnome.desktop.interface), for example with gsettings in a terminal."
    ),
    attributes={"size": "cursor_size"},
    evaluator=lambda size: [
        desk.gsetting_number(schema="org.gnome.desktop.interface", key="cursor-size", value=size)
    ],
    solution=lambda size: [ask("Which cursor size do you like?"), *solve("settings_cursor_size", size=size)],
    platforms=DESKTOP,
    apps=("terminal",),
    hidden=("size",),
    user=(UserFact("size", ("size", "big", "large", "like"), "I like the cursor at size {size}."),),
)


def _meeting_setup(
    envs: Mapping[str, Any], path: str, start: str, boss: str, number: str, other: str, other_number: str
) -> None:
    envs["ubuntu"].write_file(path, f"The team meeting is moved to {start} today.\n")
    _two_contacts(envs, (boss, number), (other, other_number))


ASK_MEETING_TO_BOSS = SubTaskTemplate(
    id="ask_meeting_to_boss",
    sets=ASK_SETS,
    description=(
        "The desktop file {path} says when the team meeting is. Text that time to my boss from the phone's "
        "Messages app; my boss is in the phone's contacts."
    ),
    attributes={
        "path": "path",
        "start": "clock_time",
        "boss": "name",
        "number": "phone_number",
        "other": "name",
        "other_number": "phone_number",
    },  # fmt: skip
    evaluator=lambda path, start, boss, number, other, other_number: [
        phone.sms_sent(to=number, body_contains=start)
    ],
    setup=_meeting_setup,
    solution=lambda path, start, boss, number, other, other_number: [
        ask("Who is your boss?"),
        *solve("sms_send_to_contact", name=boss, number=number, message=f"The meeting is at {start}."),
    ],
    platforms=BOTH,
    apps=("terminal", MESSAGES, CONTACTS),
    hidden=("start", "boss", "number"),
    user=(BOSS,),
)

ASK_TEMPLATES: tuple[SubTaskTemplate, ...] = (
    ASK_SMS_BOSS,
    ASK_CALL_RESTAURANT,
    ASK_ALARM_WAKE,
    ASK_CALENDAR_DENTIST,
    ASK_NOTE_DOOR_CODE,
    ASK_MAIL_COLLEAGUE,
    ASK_CONTACT_NEIGHBOUR,
    ASK_FILE_FLIGHT,
    ASK_FOLDER_PROJECT,
    ASK_CURSOR_SIZE,
    ASK_MEETING_TO_BOSS,
)
for _template in ASK_TEMPLATES:
    register(_template)

__all__ = ["ASK_TEMPLATES", "ask", "solve"]

"""Cross-device sub-task templates: information read on one device must be used on the other.

Each has a check on both devices in order (look it up there, use it here), so a policy that works on one
device alone completes at most half. Solutions reuse the single-device templates' scripted solutions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, Step, SubTaskTemplate, get_template, register
from crab_gym.envs.android import evaluators as phone
from crab_gym.tasks.templates.android.layout import HOME

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as desk
else:
    desk = lazy_module("crab_gym.envs.desktop.evaluators")

PLATFORMS = ("ubuntu", "android")
CONTACTS = "com.android.contacts"
MESSAGES = "com.google.android.apps.messaging"


def _open_on_phone(app: str) -> list[Step]:
    return [Step("android", "press", {"button": "home"}), Step("android", "tap", {"point": HOME[app]})]


def _write_file_with_vim(path: str, text: str) -> list[Step]:
    return get_template("vim_write_file").solution(path=path, text=text)


def _contact_setup(envs: Mapping[str, Any], name: str, number: str, path: str) -> None:
    envs["android"].add_contact(name, number)


CONTACT_TO_FILE = register(
    SubTaskTemplate(
        id="cross_contact_number_to_file",
        sets=V0_SETS,
        description=(
            "Look up {name}'s phone number in the phone's Contacts app, then on the desktop save that "
            "number, exactly as the phone shows it, as the only line of the file {path}."
        ),
        attributes={"name": "name", "number": "phone_number", "path": "path"},
        evaluator=lambda name, number, path: [
            phone.app_in_foreground(package=CONTACTS),
            desk.file_equals(path=path, text=number),
        ],
        setup=_contact_setup,
        solution=lambda name, number, path: [
            *_open_on_phone("contacts"),
            *_write_file_with_vim(path, number),
        ],
        platforms=PLATFORMS,
        apps=(CONTACTS, "terminal"),
        output_type="path",
        output=lambda name, number, path: path,
        hidden=("number",),
    )
)


def _code_setup(envs: Mapping[str, Any], sender: str, code: int, path: str) -> None:
    envs["android"].add_sms(sender, f"Your crab-gym verification code is {code}. Do not share it.")


SMS_CODE_TO_FILE = register(
    SubTaskTemplate(
        id="cross_sms_code_to_file",
        sets=V0_SETS,
        description=(
            "A text message with a verification code arrived on the phone from {sender}. Read it in the "
            "Messages app and write just the code as the only line of the file {path} on the desktop."
        ),
        attributes={"sender": "phone_number", "code": "number", "path": "path"},
        evaluator=lambda sender, code, path: [
            phone.app_in_foreground(package=MESSAGES),
            desk.file_equals(path=path, text=str(code)),
        ],
        setup=_code_setup,
        solution=lambda sender, code, path: [
            *_open_on_phone("messages"),
            *_write_file_with_vim(path, str(code)),
        ],
        platforms=PLATFORMS,
        apps=(MESSAGES, "terminal"),
        output_type="path",
        output=lambda sender, code, path: path,
        hidden=("code",),
    )
)


def _instructions_setup(envs: Mapping[str, Any], path: str, number: str, message: str) -> None:
    desktop = envs["ubuntu"]
    desktop.write_file(path, f"Please text {number} this message:\n{message}\n")
    desktop.open_app("text_editor", str(desktop.session.resolve(path)))


FILE_TO_SMS = register(
    SubTaskTemplate(
        id="cross_file_to_sms",
        sets=V0_SETS,
        description=(
            "The file {path}, open in the desktop's Text Editor, says whom to text and what. Send that text "
            "message from the phone's Messages app."
        ),
        attributes={"path": "path", "number": "phone_number", "message": "text"},
        evaluator=lambda path, number, message: [
            phone.app_in_foreground(package=MESSAGES),
            phone.sms_sent(to=number, body_contains=message),
        ],
        setup=_instructions_setup,
        solution=lambda path, number, message: get_template("sms_send").solution(
            number=number, message=message
        ),
        platforms=PLATFORMS,
        apps=("text_editor", MESSAGES),
        screen_setup=True,
        hidden=("number", "message"),
    )
)


def _note_setup(envs: Mapping[str, Any], path: str, title: str, body: str) -> None:
    envs["ubuntu"].write_file(path, f"{body}\n")


FILE_TO_NOTE = register(
    SubTaskTemplate(
        id="cross_file_to_phone_note",
        sets=V0_SETS,
        description=(
            "On the phone, create a note in Keep Notes titled {title} whose text is the sentence stored in "
            "the desktop file {path} (open it on the desktop to read it)."
        ),
        attributes={"path": "path", "title": "word", "body": "text"},
        evaluator=lambda path, title, body: [phone.note_exists(title=title, body_contains=body)],
        setup=_note_setup,
        solution=lambda path, title, body: [
            Step("ubuntu", "search_application", {"name": "text editor"}),
            Step("ubuntu", "hotkey", {"keys": ["ctrl", "o"]}),
            Step("ubuntu", "write_text", {"text": path}),
            Step("ubuntu", "press", {"key": "enter"}),
            *get_template("notes_create").solution(title=title, body=body),
        ],
        platforms=PLATFORMS,
        apps=("text_editor", "com.google.android.keep"),
        hidden=("body",),
    )
)

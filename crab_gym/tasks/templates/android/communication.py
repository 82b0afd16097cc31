"""Contacts, messages, phone and mail templates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crab_gym.core.tasks import V0_SETS, V1_SETS, Step, SubTaskTemplate
from crab_gym.envs.android import evaluators as ev
from crab_gym.tasks.templates.android.layout import (
    ACTION,
    FAB,
    PLATFORMS,
    ROWS,
    SAVE,
    SEARCH_ROWS,
    android,
    field,
    launch,
    step,
    tap,
)

# ---- contacts ---------------------------------------------------------------------------------------------

CONTACTS_ADD = SubTaskTemplate(
    id="contacts_add",
    sets=V0_SETS,
    description="In the Contacts app, create a new contact named {name} with the phone number {number}.",
    attributes={"name": "name", "number": "phone_number"},
    evaluator=lambda name, number: [ev.contact_exists(name=name, number=number)],
    solution=lambda name, number: [
        *launch("contacts"),
        tap(FAB),
        step("write_text", text=name),
        field(2),
        step("write_text", text=number),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.android.contacts",),
    output_type="phone_number",
    output=lambda name, number: number,
)

# ---- messages ---------------------------------------------------------------------------------------


def _sms_solution(recipient: str, message: str) -> list[Step]:
    return [
        *launch("messages"),
        tap(FAB),
        step("write_text", text=recipient),
        tap((0.5, 0.8325)),  # the message field at the bottom
        step("write_text", text=message),
        tap((0.5, 0.9025)),  # Send
    ]


SMS_SEND = SubTaskTemplate(
    id="sms_send",
    sets=V0_SETS,
    description="Using the Messages app, send the text message '{message}' to the phone number {number}.",
    attributes={"number": "phone_number", "message": "text"},
    evaluator=lambda number, message: [ev.sms_sent(to=number, body_contains=message)],
    solution=lambda number, message: _sms_solution(number, message),
    platforms=PLATFORMS,
    apps=("com.google.android.apps.messaging",),
    inputs=("number", "message"),
)


def _sms_contact_setup(envs: Mapping[str, Any], name: str, number: str, message: str) -> None:
    android(envs).add_contact(name, number)


SMS_SEND_TO_CONTACT = SubTaskTemplate(
    id="sms_send_to_contact",
    sets=V0_SETS,
    description=(
        "{name} is in the phone's contacts. Using the Messages app, send {name} the text message '{message}'."
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

# ---- phone ------------------------------------------------------------------------------------------

PHONE_CALL = SubTaskTemplate(
    id="phone_call",
    sets=V0_SETS,
    description="Using the Phone app's keypad, call the number {number}.",
    attributes={"number": "phone_number"},
    evaluator=lambda number: [ev.call_made(number=number)],
    solution=lambda number: [
        *launch("phone"),
        tap(FAB),  # the keypad button
        step("write_text", text=number),
        tap((0.5, 0.5808)),  # Call
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.dialer",),
    inputs=("number",),
)


def _reply_setup(envs: Mapping[str, Any], sender: str, message: str) -> None:
    android(envs).add_sms(sender, "Are you still coming today? Let me know.")


SMS_REPLY = SubTaskTemplate(
    id="sms_reply",
    sets=V0_SETS,
    description=(
        "A text message from {sender} has just arrived. In the Messages app, reply to it with '{message}'."
    ),
    attributes={"sender": "phone_number", "message": "text"},
    evaluator=lambda sender, message: [ev.sms_sent(to=sender, body_contains=message)],
    setup=_reply_setup,
    # the newest conversation is listed first; opening it focuses the message field
    solution=lambda sender, message: [
        *launch("messages"),
        tap((0.5, ROWS[0])),
        tap((0.5, 0.8325)),
        step("write_text", text=message),
        tap((0.5, 0.9025)),  # Send
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.apps.messaging",),
    inputs=("message",),
)


def _missed_call_setup(envs: Mapping[str, Any], number: str) -> None:
    android(envs).add_call(number, kind=3)


PHONE_CALL_BACK = SubTaskTemplate(
    id="phone_call_back",
    sets=V0_SETS,
    description=(
        "You just missed a call. In the Phone app, call back the number that called most recently (it is "
        "at the top of the call history)."
    ),
    attributes={"number": "phone_number"},
    evaluator=lambda number: [ev.call_made(number=number)],
    setup=_missed_call_setup,
    solution=lambda number: [*launch("phone"), tap((0.5, ROWS[0]))],  # tapping a call calls back
    platforms=PLATFORMS,
    apps=("com.google.android.dialer",),
    output_type="phone_number",
    output=lambda number: number,
    hidden=("number",),
)

MAIL_SEND = SubTaskTemplate(
    id="mail_send",
    sets=V0_SETS,
    description=(
        "In the Gmail app, send an email to {to} with the subject '{subject}' and the text '{body}'."
    ),
    attributes={"to": "email", "subject": "word", "body": "text"},
    evaluator=lambda to, subject, body: [ev.mail_sent(to=to, subject=subject, body_contains=body)],
    solution=lambda to, subject, body: [
        *launch("gmail"),
        tap(FAB),  # Compose: the cursor is in To
        step("write_text", text=to),
        field(1),
        step("write_text", text=subject),
        field(2),
        step("write_text", text=body),
        tap(SAVE),  # Send
    ],
    platforms=PLATFORMS,
    apps=("com.google.android.gm",),
    inputs=("body",),
)


CONTACTS_ADD_EMAIL = SubTaskTemplate(
    id="contacts_add_email",
    sets=V1_SETS,
    description="In the Contacts app, create a new contact named {name} with the email address {email}.",
    attributes={"name": "name", "email": "email"},
    evaluator=lambda name, email: [ev.contact_has_email(name=name, email=email)],
    solution=lambda name, email: [
        *launch("contacts"),
        tap(FAB),
        step("write_text", text=name),
        field(3),
        step("write_text", text=email),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=("com.android.contacts",),
    output_type="email",
    output=lambda name, email: email,
    inputs=("name", "email"),
)


def _contact_email_setup(envs: Mapping[str, Any], name: str, email: str) -> None:
    android(envs).add_contact(name, email=email)


CONTACTS_FIND_EMAIL = SubTaskTemplate(
    id="contacts_find_email",
    sets=V1_SETS,
    description="In the Contacts app, find the email address of the contact {name} and open their card.",
    attributes={"name": "name", "email": "email"},
    evaluator=lambda name, email: [
        ev.app_in_foreground(package="com.android.contacts"),
        ev.element_shown(resource_id="large_title", text=name)
        & ev.element_shown(resource_id="email", text=email),
    ],
    setup=_contact_email_setup,
    solution=lambda name, email: [
        *launch("contacts"),
        tap(ACTION),  # Search
        step("write_text", text=name),
        tap((0.5, SEARCH_ROWS[0])),
    ],
    platforms=PLATFORMS,
    apps=("com.android.contacts",),
    output_type="email",
    output=lambda name, email: email,
    inputs=("name",),
    hidden=("email",),
)

"""Mail (com.google.android.gm): inbox, reading, and compose writing to mail.db."""

from __future__ import annotations

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.gm", "Gmail", (234, 67, 53))


@APP.screen("main", ".ConversationListActivityGmail")
def inbox(s: Screen) -> None:
    folder = s.state.setdefault("folder", "inbox")
    s.app_bar(
        "Inbox" if folder == "inbox" else "Sent",
        back=False,
        actions=[
            (
                "Sent" if folder == "inbox" else "Inbox",
                lambda: s.state.__setitem__("folder", "sent" if folder == "inbox" else "inbox"),
            )
        ],
    )
    items = [
        Item(
            subject,
            (sender if folder == "inbox" else recipient) or "",
            icon=sender or "?",
            rid="subject",
            on_click=lambda mid=mid: s.phone.push("read", message_id=mid),
        )
        for mid, sender, recipient, subject in rows(
            s.phone,
            db.MAIL_DB,
            "SELECT _id, sender, recipient, subject"
            " FROM messages WHERE folder = ? ORDER BY date DESC, _id DESC",
            (folder,),
        )
    ]
    s.list(folder, items, rid="thread_list_view", empty="Nothing in " + folder)
    s.fab("Compose", lambda: s.phone.push("compose", focus="to"), rid="compose_button")


@APP.screen("read", ".ConversationListActivityGmail")
def read(s: Screen) -> None:
    found = rows(
        s.phone,
        db.MAIL_DB,
        "SELECT sender, subject, body FROM messages WHERE _id = ?",
        (s.state.get("message_id"),),
    )
    s.app_bar("")
    if found:
        sender, subject, body = found[0]
        s.text(subject, size=60, rid="subject_and_folder_view", height=160)
        s.text(sender or "", rid="sender_name", muted=True)
        s.text(body or "", rid="body")


@APP.screen("compose", ".ComposeActivityGmail")
def compose(s: Screen) -> None:
    def send() -> None:
        to, subject, body = fields(s, "to", "subject", "body")
        if to:
            execute(
                s.phone,
                db.MAIL_DB,
                "INSERT INTO messages (folder, sender, recipient, subject, body, date, read)"
                " VALUES ('sent', 'me@example.com', ?, ?, ?, ?, 1)",
                (to, subject, body, s.phone.now_ms()),
            )
            s.phone.back()

    s.app_bar("Compose", actions=[("Send", send)])
    s.field("to", "To", rid="to")
    s.field("subject", "Subject", rid="subject")
    s.field("body", "Compose email", rid="body")

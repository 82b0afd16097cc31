"""Messages (com.google.android.apps.messaging): conversations, a thread, and compose, over mmssms.db."""

from __future__ import annotations

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import contact_name, rows

APP = AppSpec("com.google.android.apps.messaging", "Messages", (11, 87, 208))
# the conversation (threads row) with an address, as the telephony provider finds it
THREAD = (
    "SELECT t._id FROM threads t JOIN canonical_addresses a ON t.recipient_ids = CAST(a._id AS TEXT) "
    "WHERE a.address = ? ORDER BY t._id LIMIT 1"
)


def resolve_recipient(phone, text: str) -> str:
    """A typed contact name becomes that contact's number; anything else is taken as an address."""
    r = rows(
        phone,
        db.CONTACTS_DB,
        "SELECT data1 FROM view_phones WHERE lower(display_name) = lower(?) ORDER BY _id LIMIT 1",
        (text.strip(),),
    )
    return r[0][0] if r else text.strip()


def send_sms(phone, address: str, body: str) -> None:
    with phone.lock, db.connect(phone.fs, db.SMS_DB) as c:
        db.insert_sms(c, address, body, phone.now_ms(), 2, read=1)


@APP.screen("main", ".ui.ConversationListActivity")
def conversations(s: Screen) -> None:
    s.app_bar("Messages", back=False)
    threads = rows(
        s.phone,
        db.SMS_DB,
        "SELECT t._id, a.address, t.snippet, t.date FROM threads t JOIN canonical_addresses a "
        "ON t.recipient_ids = CAST(a._id AS TEXT) ORDER BY t.date DESC, t._id DESC",
    )
    names = dict(
        rows(s.phone, db.CONTACTS_DB, "SELECT data1, display_name FROM view_phones ORDER BY _id DESC")
    )
    items = [
        Item(
            names.get(addr, addr),
            body,
            icon=names.get(addr, addr),
            rid="conversation_name",
            on_click=lambda a=addr: s.phone.push("conversation", address=a, focus="body"),
        )
        for _tid, addr, body, _d in threads
    ]
    s.list("threads", items, rid="conversation_list", empty="No conversations")
    s.fab("Start chat", lambda: s.phone.push("compose", focus="to"), rid="start_chat_fab")


def _composer(s: Screen, address: str | None) -> None:
    def send() -> None:
        values = s.state.setdefault("fields", {})
        to = address or resolve_recipient(s.phone, values.get("to", ""))
        body = values.get("body", "")
        if not to or not body.strip():
            return
        send_sms(s.phone, to, body)
        values["body"] = ""
        if address is None:
            s.phone.replace("conversation", address=to, focus="body")

    s.field("body", "Text message", rid="compose_message_text", on_enter=send)
    s.button("Send", send, rid="send_message_button_icon", icon="send")


@APP.screen("conversation", ".ui.conversation.ConversationActivity")
def conversation(s: Screen) -> None:
    address = s.state.get("address", "")
    s.app_bar(contact_name(s.phone, address))
    msgs = rows(
        s.phone,
        db.SMS_DB,
        f"SELECT body, type FROM sms WHERE thread_id = ({THREAD}) ORDER BY date, _id",
        (address,),
    )
    items = [
        Item(
            body,
            "You" if t == 2 else contact_name(s.phone, address),
            rid="message_text",
            bubble="out" if t == 2 else "in",
        )
        for body, t in msgs
    ]
    s.list("messages", items, rid="message_list", row_h=170, bottom=360)
    s.y = s.bottom - s.px(360)
    _composer(s, address)


@APP.screen("compose", ".ui.conversation.ConversationActivity")
def compose(s: Screen) -> None:
    s.app_bar("New conversation")
    s.field("to", "Type a name, phone number, or email", rid="recipient_text_view")
    s.y = s.bottom - s.px(360)
    _composer(s, None)

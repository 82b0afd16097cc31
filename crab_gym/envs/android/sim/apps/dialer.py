"""Phone (com.google.android.dialer): keypad, recents from calllog.db, and a call screen."""

from __future__ import annotations

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.view import View
from ..ui.widgets import Item
from .base import contact_name, execute, rows

APP = AppSpec("com.google.android.dialer", "Phone", (26, 115, 232))
KEYS = "123456789*0#"


@APP.handles("tel")
def place_call(phone, number: str) -> None:
    """An outgoing call: a row in the call log and the in-call screen."""
    name = contact_name(phone, number)
    execute(
        phone,
        db.CALLLOG_DB,
        "INSERT INTO calls (number, date, duration, type, name, new, is_read) VALUES (?, ?, 0, 2, ?, 0, 1)",
        (number, phone.now_ms(), None if name == number else name),
    )
    phone.launch(APP.package, "incall", number=number)


@APP.screen("main", ".extensions.GoogleDialtactsActivity")
def recents(s: Screen) -> None:
    s.app_bar("Recents", back=False)
    kinds = {1: "Incoming", 2: "Outgoing", 3: "Missed"}
    items = [
        Item(
            name or number,
            f"{kinds.get(t, 'Call')} · {number}",
            icon=name or number,
            rid="call_log_item",
            on_click=lambda n=number: place_call(s.phone, n),
        )
        for number, name, t in rows(
            s.phone, db.CALLLOG_DB, "SELECT number, name, type FROM calls ORDER BY date DESC, _id DESC"
        )
    ]
    s.list("calls", items, rid="recycler_view", empty="No recent calls")
    s.fab("key pad", lambda: s.phone.push("keypad", focus="digits"), rid="dialpad_fab", icon="dialpad")


@APP.screen("keypad", ".extensions.GoogleDialtactsActivity")
def keypad(s: Screen) -> None:
    s.app_bar("Keypad")
    s.field("digits", "Enter a number", rid="digits")
    fields = s.state.setdefault("fields", {})
    w, h = s.right // 3, s.px(200)
    top = s.y + s.px(40)
    for i, k in enumerate(KEYS):
        x, y = (i % 3) * w, top + (i // 3) * h

        def press(k=k) -> None:
            fields["digits"] = fields.get("digits", "") + k

        s.root.add(
            View(
                cls="android.widget.FrameLayout",
                package=s.pkg,
                rid=s.rid(f"dialpad_key_{'star' if k == '*' else 'pound' if k == '#' else k}"),
                text=k,
                desc=k,
                clickable=True,
                focusable=True,
                on_click=press,
                size=s.px(72),
                align="center",
                fg=s.c["text"],
                bounds=(x, y, x + w, y + h),
            )
        )
    s.y = top + 4 * h + s.px(20)

    def call() -> None:
        number = fields.get("digits", "").strip()
        if number:
            fields["digits"] = ""
            place_call(s.phone, number)

    s.button("Call", call, rid="dialpad_voice_call_button", icon="call", tone="call")


@APP.screen("incall", "com.android.incallui.InCallActivity")
def incall(s: Screen) -> None:
    number = s.state.get("number", "")
    s.y += s.px(200)
    s.text(contact_name(s.phone, number), size=72, rid="contactgrid_contact_name", height=200)
    s.text("Calling…", size=44, rid="contactgrid_status_text", muted=True)
    s.y = s.bottom - s.px(400)
    s.button("End call", s.phone.back, rid="incall_end_call", icon="call_end", tone="danger")

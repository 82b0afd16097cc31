"""Contacts (com.android.contacts): the list, a contact's card, and the editor that writes contacts2.db."""

from __future__ import annotations

from ..storage import db
from ..system.providers import delete as provider_delete
from ..system.registry import AppSpec, uri_handler
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import fields, rows

APP = AppSpec("com.android.contacts", "Contacts", (26, 115, 232))


def _contacts(phone) -> list[tuple]:
    return rows(
        phone,
        db.CONTACTS_DB,
        "SELECT c._id, c.display_name, (SELECT data1 FROM view_phones p WHERE "
        "p.contact_id = c._id ORDER BY p._id LIMIT 1) FROM view_contacts c ORDER BY c.display_name",
    )


def _items(s: Screen, found: list[tuple]) -> list[Item]:
    return [
        Item(
            name or "(No name)",
            number or "",
            icon=name or "?",
            rid="cliv_name_textview",
            on_click=lambda cid=cid: s.phone.push("detail", contact_id=cid),
        )
        for cid, name, number in found
    ]


@APP.screen("main", ".activities.PeopleActivity")
def people(s: Screen) -> None:
    s.app_bar("Contacts", back=False, actions=[("Search", lambda: s.phone.push("search", focus="query"))])
    s.list("contacts", _items(s, _contacts(s.phone)), rid="contact_list", row_h=190, empty="No contacts")
    s.fab("Create contact", lambda: s.phone.push("edit", focus="first_name"), rid="floating_action_button")


@APP.screen("search", ".activities.PeopleActivity")
def search(s: Screen) -> None:
    """The contacts whose name, number or email holds the query (as the app's search bar filters)."""
    s.app_bar("Search contacts")
    s.field("query", "Search contacts", rid="search_view")
    (query,) = fields(s, "query")
    found = [  # the contact whose whole name it is first, as the app ranks results
        (cid, name, number)
        for cid, name, number in sorted(
            _contacts(s.phone), key=lambda r: (r[1] or "").casefold() != query.casefold()
        )
        if query
        and (
            query.casefold() in (name or "").casefold()
            or (number and query in number)
            or any(query.casefold() in e.casefold() for e in _emails(s.phone, cid))
        )
    ]
    s.list("results", _items(s, found), rid="search_list", row_h=190, empty="No contacts found")


def _emails(phone, cid: int) -> list[str]:
    sql = "SELECT data1 FROM view_emails WHERE contact_id = ? ORDER BY _id"
    return [r[0] for r in rows(phone, db.CONTACTS_DB, sql, (cid,))]


@APP.screen("edit", ".activities.ContactEditorActivity")
def editor(s: Screen) -> None:
    def save() -> None:
        first, last, phone_no, email = (
            s.state.get("fields", {}).get(k, "").strip()
            for k in ("first_name", "last_name", "phone", "email")
        )
        name = " ".join(p for p in (first, last) if p)
        if not (name or phone_no):
            return
        with s.phone.lock, db.connect(s.phone.fs, db.CONTACTS_DB) as c:
            cid = db.add_contact(c, name, phone_no, email)
        s.phone.replace("detail", contact_id=cid)

    s.app_bar("Create contact", actions=[("Save", save)])
    s.field("first_name", "First name")
    s.field("last_name", "Last name")
    s.field("phone", "Phone")
    s.field("email", "Email", on_enter=save)


@APP.screen("detail", ".quickcontact.QuickContactActivity")
def detail(s: Screen) -> None:
    cid = s.state.get("contact_id")
    found = rows(s.phone, db.CONTACTS_DB, "SELECT display_name FROM view_contacts WHERE _id = ?", (cid,))
    name = found[0][0] if found else "(deleted)"
    numbers = [
        r[0]
        for r in rows(
            s.phone, db.CONTACTS_DB, "SELECT data1 FROM view_phones WHERE contact_id = ? ORDER BY _id", (cid,)
        )
    ]
    emails = _emails(s.phone, cid)

    def delete() -> None:
        provider_delete(s.phone, f"content://com.android.contacts/contacts/{cid}")
        s.phone.back()

    def call() -> None:
        place_call = uri_handler("tel")  # the dialer's, loaded at the first call
        if numbers and place_call:
            place_call(s.phone, numbers[0])

    def text() -> None:
        if numbers:
            s.phone.launch(
                "com.google.android.apps.messaging", "compose", fields={"to": numbers[0]}, focus="body"
            )

    s.app_bar("", actions=[("Delete", delete)])
    s.text(name, size=72, rid="large_title", height=200)
    for n in numbers:
        s.text(n, size=48, rid="header")
    for e in emails:
        s.text(e, size=44, rid="email", muted=True)
    s.button("Call", call, rid="call_button")
    s.button("Text", text, rid="message_button")

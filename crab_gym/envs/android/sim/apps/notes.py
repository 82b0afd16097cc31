"""Notes (com.google.android.keep): a list of notes and an editor that saves on Save or back, in keep.db."""

from __future__ import annotations

from ..storage import db
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.keep", "Keep Notes", (251, 188, 4))


@APP.screen("main", ".activities.BrowseActivity")
def browse(s: Screen) -> None:
    s.app_bar("Notes", back=False)
    items = [
        Item(
            title or "(untitled)",
            body.replace("\n", " "),
            rid="index_note_title",
            on_click=lambda nid=nid, t=title, b=body: s.phone.push(
                "edit", note_id=nid, fields={"title": t, "body": b}, focus="body"
            ),
            on_long_click=lambda nid=nid: execute(
                s.phone, db.NOTES_DB, "DELETE FROM notes WHERE _id = ?", (nid,)
            ),
        )
        for nid, title, body in rows(
            s.phone,
            db.NOTES_DB,
            "SELECT _id, title, body FROM notes WHERE "
            "archived = 0 ORDER BY pinned DESC, modified DESC, _id DESC",
        )
    ]
    s.list("notes", items, rid="browse_note_list", empty="Notes you add appear here")
    s.fab("New text note", lambda: s.phone.push("edit", focus="title"), rid="new_note_button")


def save_note(s: Screen) -> None:
    title, body = fields(s, "title", "body")
    if s.state.get("saved") or not (title or body):
        return
    now = s.phone.now_ms()
    nid = s.state.get("note_id")
    if nid:
        execute(
            s.phone,
            db.NOTES_DB,
            "UPDATE notes SET title = ?, body = ?, modified = ? WHERE _id = ?",
            (title, body, now, nid),
        )
    else:
        execute(
            s.phone,
            db.NOTES_DB,
            "INSERT INTO notes (title, body, created, modified) VALUES (?,?,?,?)",
            (title, body, now, now),
        )
    s.state["saved"] = True


@APP.screen("edit", ".activities.EditorActivity")
def editor(s: Screen) -> None:
    s.state["on_back"] = lambda: save_note(s)

    def done() -> None:
        s.phone.back()

    s.app_bar("", actions=[("Save", done)])
    s.field("title", "Title", rid="editable_title")
    s.field("body", "Note", rid="edit_note_text")

"""Google Drive (com.google.android.apps.docs): My Drive's files and folders, a new folder, an upload from the
phone's storage, long-press to remove; the entries live in DocList.db, an upload's bytes under files/."""

from __future__ import annotations

import mimetypes
import posixpath
import shutil

from ..storage import db
from ..storage.seeddata import FOLDER_MIME
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item
from .base import execute, fields, rows

APP = AppSpec("com.google.android.apps.docs", "Drive", (30, 142, 62))
BLOBS = "/data/data/com.google.android.apps.docs/files/blobs"


def _size(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} B"


def entries(phone, parent: int | None) -> list[tuple[int, str, str, int]]:
    """(id, title, mime type, size) of a folder's entries (None: My Drive), folders first, by name."""
    return rows(
        phone,
        db.DRIVE_DB,
        "SELECT _id, title, mime_type, size FROM entries WHERE trashed = 0 AND parent_id IS ? "
        "ORDER BY mime_type != ?, title COLLATE NOCASE",
        (parent, FOLDER_MIME),
    )


@APP.screen("main", ".app.NewMainProxyActivity")
def browse(s: Screen) -> None:
    folder = s.state.get("folder")
    title = s.state.get("title", "My Drive")
    s.app_bar(title, back=folder is not None)
    items = []
    for eid, name, mime, size in entries(s.phone, folder):
        is_folder = mime == FOLDER_MIME

        def open_(eid=eid, name=name, is_folder=is_folder) -> None:
            if is_folder:
                s.phone.push("main", folder=eid, title=name)
            else:
                s.phone.push("detail", entry=eid)

        items.append(
            Item(
                name,
                "Folder" if is_folder else _size(size),
                glyph="folder" if is_folder else "description",
                title_rid="entry_label",
                desc=f"{name} Folder" if is_folder else name,
                rid="entry_container",
                on_click=open_,
                on_long_click=lambda eid=eid: execute(
                    s.phone, db.DRIVE_DB, "UPDATE entries SET trashed = 1 WHERE _id = ?", (eid,)
                ),
            )
        )
    s.list(f"drive{folder}", items, rid="doc_list_view", empty="No files here yet")
    s.fab("New", lambda: s.phone.push("new", folder=folder), rid="fab_create_new")


@APP.screen("new", ".create.CreateNewDocActivity")
def new(s: Screen) -> None:
    folder = s.state.get("folder")
    s.app_bar("Create new")
    s.list(
        "new",
        [
            Item(
                "Folder",
                glyph="create_new_folder",
                rid="create_folder",
                on_click=lambda: s.phone.replace("folder", folder=folder, focus="name"),
            ),
            Item(
                "Upload",
                glyph="upload",
                rid="upload",
                on_click=lambda: s.phone.replace("upload", folder=folder, path="/sdcard"),
            ),
        ],
        rid="create_options",
    )


def create_folder(s: Screen) -> None:
    (name,) = fields(s, "name")
    if not name or "/" in name:
        return
    now = s.phone.now_ms()
    execute(
        s.phone,
        db.DRIVE_DB,
        "INSERT INTO entries (title, mime_type, parent_id, created, modified) VALUES (?,?,?,?,?)",
        (name, FOLDER_MIME, s.state.get("folder"), now, now),
    )
    s.phone.back()


@APP.screen("folder", ".doclist.dialogs.CreateFolderActivity")
def new_folder(s: Screen) -> None:
    s.app_bar("New folder", actions=[("Create", lambda: create_folder(s))])
    s.field("name", "Folder name", rid="edit_text", on_enter=lambda: create_folder(s))


def upload(phone, folder: int | None, path: str) -> int:
    """Copy a file of the phone's storage into Drive (as the app's upload does); returns its entry id."""
    host = phone.fs.resolve(path)
    name = posixpath.basename(path)
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    now = phone.now_ms()
    eid = execute(
        phone,
        db.DRIVE_DB,
        "INSERT INTO entries (title, mime_type, parent_id, size, created, modified) VALUES (?,?,?,?,?,?)",
        (name, mime, folder, host.stat().st_size, now, now),
    )
    blob = phone.fs.resolve(f"{BLOBS}/{eid}")
    blob.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(host, blob)
    execute(phone, db.DRIVE_DB, "UPDATE entries SET blob = ? WHERE _id = ?", (f"{BLOBS}/{eid}", eid))
    return eid


@APP.screen("upload", "com.google.android.apps.docs.app.PickActivity")
def pick(s: Screen) -> None:
    """The system picker Drive's upload opens: folders of /sdcard to walk, a file to upload."""
    path = s.state.get("path", "/sdcard")
    host = s.phone.fs.resolve(path)
    s.app_bar("Upload from " + (posixpath.basename(path) if path != "/sdcard" else "Internal storage"))
    children = sorted(host.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())) if host.is_dir() else []
    items = []
    for p in children:
        if p.name.startswith("."):
            continue
        child = posixpath.join(path, p.name)
        if p.is_dir():
            on_click = lambda child=child: s.phone.push("upload", folder=s.state.get("folder"), path=child)  # noqa: E731
        else:

            def on_click(child=child) -> None:
                upload(s.phone, s.state.get("folder"), child)
                while s.phone.current.screen == "upload":
                    s.phone.back()

        items.append(
            Item(
                p.name,
                "Folder" if p.is_dir() else _size(p.stat().st_size),
                glyph="folder" if p.is_dir() else "description",
                rid="item_title",
                on_click=on_click,
            )
        )
    s.list(path, items, rid="dir_list", empty="No items")


@APP.screen("detail", ".detailspanel.DetailActivity")
def detail(s: Screen) -> None:
    found = rows(
        s.phone,
        db.DRIVE_DB,
        "SELECT title, mime_type, size, modified FROM entries WHERE _id = ?",
        (s.state.get("entry"),),
    )
    s.app_bar("Details")
    if not found:
        s.text("This file is no longer in Drive", muted=True)
        return
    title, mime, size, _ = found[0]
    s.text(title, size=60, rid="entry_label", height=160)
    s.text(mime, rid="mime_type", muted=True)
    s.text(_size(size), rid="size", muted=True)

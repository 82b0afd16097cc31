"""Files (com.google.android.documentsui): browse /sdcard, open folders, a file's details (the inspector),
long-press to delete."""

from __future__ import annotations

import datetime as dt
import mimetypes
import posixpath
import shutil

from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.widgets import Item

APP = AppSpec("com.google.android.documentsui", "Files", (26, 115, 232))


@APP.screen("main", "com.android.documentsui.files.FilesActivity")
def browse(s: Screen) -> None:
    path = s.state.setdefault("path", "/sdcard")
    host = s.phone.fs.resolve(path)
    s.app_bar(posixpath.basename(path) if path != "/sdcard" else "Internal storage", back=path != "/sdcard")
    if path != "/sdcard":
        s.state["on_back"] = None
    entries = sorted(host.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())) if host.is_dir() else []
    items = []
    for p in entries:
        if p.name.startswith("."):
            continue
        child = posixpath.join(path, p.name)

        is_dir = p.is_dir()

        def open_(child=child, is_dir=is_dir) -> None:
            s.phone.push("main" if is_dir else "inspector", path=child)

        def delete(p=p) -> None:
            shutil.rmtree(p) if p.is_dir() else p.unlink()

        size = "" if p.is_dir() else f"{p.stat().st_size} B"
        items.append(
            Item(
                p.name,
                "Folder" if p.is_dir() else size,
                glyph="folder" if is_dir else "description",
                rid="item_title",
                on_click=open_,
                on_long_click=delete,
            )
        )
    s.list(path, items, rid="dir_list", empty="No items")


def modified(mtime: float) -> tuple[str, str]:
    """A file's modification time as the inspector shows it, in the phone's zone (UTC): '4 June 2024',
    '09:30'."""
    when = dt.datetime.fromtimestamp(mtime, dt.timezone.utc)
    return f"{when.day} {when:%B %Y}", f"{when:%H:%M}"


@APP.screen("inspector", "com.android.documentsui.inspector.InspectorActivity")
def inspector(s: Screen) -> None:
    """A file's details: name, type, size, when it was last modified (the date it was written) and where."""
    path = s.state.get("path", "")
    host = s.phone.fs.resolve(path)
    s.app_bar("File info")
    if not host.is_file():
        s.text("This file no longer exists", rid="error", muted=True)
        return
    s.phone.fs.times.settle()
    st = host.stat()
    day, time = modified(st.st_mtime)
    s.text(posixpath.basename(path), size=56, rid="title", height=150)
    for label, value, rid in (
        ("Type", mimetypes.guess_type(path)[0] or "application/octet-stream", "type"),
        ("Size", f"{st.st_size} B", "size"),
        ("Modified", day, "date_modified"),
        ("Time", time, "time_modified"),
        ("Location", posixpath.dirname(path), "path"),
    ):
        s.text(label, size=36, muted=True)
        s.text(value, size=44, rid=rid)

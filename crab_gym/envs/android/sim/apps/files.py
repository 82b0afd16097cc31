"""Files (com.google.android.documentsui): browse /sdcard, open folders, long-press to delete."""

from __future__ import annotations

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
            if is_dir:
                s.phone.push("main", path=child)

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

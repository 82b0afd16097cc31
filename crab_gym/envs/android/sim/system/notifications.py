"""The notification service: ``cmd notification post [-t TITLE] TAG TEXT`` (the shell's own command, as on
Android 10+), the posted notifications listed in the pulled-down shade under the quick settings tiles, newest
first, and ``cmd notification list``. They live in the system's memory, so a reset clears them."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..ui.theme import palette
from ..ui.view import View

if TYPE_CHECKING:
    from ..shell.context import Ctx

PKG = "com.android.systemui"
SHOWN = 3  # the shade has room for this many under the tiles
USAGE = "usage: cmd notification post [-t|--title TITLE] [-S|--style STYLE] [-v] TAG TEXT"


@dataclass(frozen=True)
class Notification:
    tag: str
    title: str
    text: str
    package: str = "com.android.shell"


def posted(phone) -> list[Notification]:
    """The phone's notifications, oldest first."""
    notes: list[Notification] = phone.notifications
    return notes


def post(phone, note: Notification) -> None:
    """Post (a notification with the same tag replaces the older one, as Android's do)."""
    with phone.lock:
        notes = posted(phone)
        notes[:] = [n for n in notes if n.tag != note.tag] + [note]
        phone.invalidate()


def notification_cmd(ctx: Ctx, args: list[str]) -> int:
    """`cmd notification post|list`."""
    if args[:1] == ["list"]:
        for n in posted(ctx.phone):
            ctx.print(f"0|{n.package}|{zlib.crc32(n.tag.encode()) % 10_000}|{n.tag}|2000")
        return 0
    if args[:1] != ["post"]:
        ctx.eprint(USAGE)
        return 1
    rest, title = args[1:], ""
    while rest and rest[0].startswith("-") and len(rest) > 2:
        flag = rest.pop(0)
        if flag in ("-t", "--title"):
            title = rest.pop(0)
        elif flag in ("-S", "--style", "-i", "--icon", "-I", "--large-icon"):
            rest.pop(0)
        elif flag not in ("-v", "--verbose"):
            ctx.eprint(f"unknown flag {flag}\n{USAGE}")
            return 1
    if len(rest) != 2:
        ctx.eprint(USAGE)
        return 1
    post(ctx.phone, Notification(rest[0], title, rest[1]))
    return 0


def draw(phone, panel: View, top: int) -> None:
    """The newest notifications in the shade, from ``top`` down (title bold, then the text)."""
    w, s = phone.width, phone.width / 1080
    row = int(100 * s)
    for i, n in enumerate(reversed(posted(phone)[-SHOWN:])):
        y = top + i * row
        text = f"{n.title}: {n.text}" if n.title else n.text
        panel.add(card(phone, text, (int(40 * s), y, w - int(40 * s), y + row - int(10 * s))))


def card(phone, text: str, bounds: tuple[int, int, int, int], **changes) -> View:
    """One notification's rounded card (in the shade, or heads-up over the screen with ``changes``)."""
    c, s = palette(phone.dark), phone.width / 1080
    fields = dict(cls="android.widget.TextView", package=PKG, rid=f"{PKG}:id/notification_text", text=text,
                  desc=text, bounds=bounds, shape="round", radius=int(24 * s),
                  bg=c["surface_container_highest"], fg=c["text"], size=int(34 * s))  # fmt: skip
    return View(**{**fields, **changes})

"""Composite Material widgets the layout helper builds: list rows (an `Item`: avatar, icon, checkbox,
title, subtitle), chat bubbles, and dialogs over a scrim. Each is plain Views, so the uiautomator dump shows
every part."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

from . import fonts
from .theme import Color, avatar
from .view import Handler, View


@dataclass
class Item:
    """One row of a list: title, optional subtitle, tap and long-press handlers."""

    title: str
    subtitle: str = ""
    on_click: Handler | None = None
    on_long_click: Handler | None = None
    rid: str = ""
    icon: str = ""  # a name: its initial is drawn in an avatar circle
    checked: bool | None = None  # a checkbox row when not None
    glyph: str = ""  # a Material icon drawn before the text (settings pages, files)
    bubble: str = ""  # "in" or "out": a chat message drawn as a bubble (Messages)
    title_rid: str = "title"  # the title text's resource id (an app's own, as Drive's entry_label)
    desc: str = ""  # the row's and its title text's content description


class Rows(Sequence[Item]):
    """``count`` list rows, row ``i`` made by ``make(i)`` when it is read: a long list whose rows cost
    something to make (the world clock's city picker: hundreds, each with its time difference) makes only
    those in view (``Screen.list`` reads no others)."""

    def __init__(self, count: int, make: Callable[[int], Item]) -> None:
        self.length, self.make = count, make

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, i: int) -> Item: ...
    @overload
    def __getitem__(self, i: slice) -> list[Item]: ...
    def __getitem__(self, i: int | slice) -> Item | list[Item]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.length))]
        if not -self.length <= i < self.length:
            raise IndexError(i)
        return self.make(i % self.length)


class Screen(Protocol):
    """What the widgets draw on: a layout.Screen's phone, package, palette, right edge and root."""

    phone: Any
    pkg: str
    c: dict[str, Color]
    right: int
    root: View

    def px(self, v: float) -> int: ...

    def rid(self, name: str) -> str: ...


def list_row(s: Screen, lv: View, it: Item, y1: int, rh: int, top: int, end: int) -> View:
    """One row of a list whose top is at ``y1`` (maybe scrolled partly out of ``top``..``end``)."""
    y2 = y1 + rh
    cy1, cy2 = max(y1, top), min(y2, end)
    row = lv.add(
        View(
            cls="android.widget.LinearLayout",
            package=s.pkg,
            bounds=(0, cy1, s.right, cy2),
            clickable=it.on_click is not None,
            long_clickable=it.on_long_click is not None,
            focusable=True,
            on_click=it.on_click,
            on_long_click=it.on_long_click,
            rid=s.rid(it.rid) if it.rid else "",
            desc=it.desc,  # a clickable row is named by it (a mark's name, TalkBack's label)
        )
    )
    if it.bubble:
        _bubble(s, row, it, y1, top, end)
        return row
    tx = s.px(48)
    lead = (tx, max(y1 + s.px(40), cy1), tx + s.px(120), min(y1 + s.px(160), cy2))
    if it.icon:
        bg, fg = avatar(it.icon, s.phone.dark)
        row.add(
            View(
                cls="android.widget.ImageView",
                package=s.pkg,
                rid=s.rid("avatar"),
                shape="circle",
                hint=it.icon[:1].upper(),
                bg=bg,
                fg=fg,
                size=s.px(50),
                bold=True,
                align="center",
                bounds=lead,
            )
        )
        tx += s.px(160)
    elif it.glyph:
        row.add(
            View(
                cls="android.widget.ImageView",
                package=s.pkg,
                rid="android:id/icon",
                shape="none",
                icon=it.glyph,
                fg=s.c["muted"],
                size=s.px(66),
                bounds=lead,
            )
        )
        tx += s.px(160)
    if it.checked is not None:
        row.add(
            View(
                cls="android.widget.CheckBox",
                package=s.pkg,
                checkable=True,
                checked=it.checked,
                clickable=True,
                focusable=True,
                on_click=it.on_click,
                shape="check",
                fg=s.c["primary"],
                bg=s.c["muted"],
                bounds=(tx, max(y1 + s.px(60), cy1), tx + s.px(80), min(y1 + s.px(140), cy2)),
            )
        )
        tx += s.px(120)
    t_y = y1 + (s.px(36) if it.subtitle else s.px(70))
    if top <= t_y and t_y + s.px(60) <= end:
        row.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                text=it.title,
                desc=it.desc,
                rid=s.rid(it.title_rid),
                bounds=(tx, t_y, s.right - s.px(48), t_y + s.px(64)),
                fg=s.c["text"],
                size=s.px(46),
            )
        )
    s_y = y1 + s.px(108)
    if it.subtitle and top <= s_y and s_y + s.px(56) <= end:
        row.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                text=it.subtitle,
                rid=s.rid("subtitle"),
                bounds=(tx, s_y, s.right - s.px(48), s_y + s.px(56)),
                fg=s.c["muted"],
                size=s.px(38),
            )
        )
    return row


def _bubble(s: Screen, row: View, it: Item, y1: int, top: int, end: int) -> None:
    """A chat message: a rounded bubble as wide as its text (up to 3/4 of the screen), on the right for
    sent ("out") and the left for received ("in") messages, with the sender below it."""
    out = it.bubble == "out"
    size, pad = s.px(44), s.px(40)
    text = fonts.fit(it.title, int(s.right * 0.75) - 2 * pad, size)
    w = int(fonts.text_width(text, size)) + 2 * pad + 2
    x1 = s.right - s.px(48) - w if out else s.px(48)
    b1, b2 = y1 + s.px(12), y1 + s.px(116)
    if top <= b1 and b2 <= end:
        bubble = row.add(
            View(
                cls="android.widget.FrameLayout",
                package=s.pkg,
                rid=s.rid("message_content"),
                bounds=(x1, b1, x1 + w, b2),
                shape="round",
                radius=s.px(52),
                bg=s.c["bubble_out" if out else "surface_container_high"],
            )
        )
        bubble.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                text=it.title,
                desc=it.desc,
                rid=s.rid(it.title_rid),
                bounds=(x1 + pad, b1, x1 + w - pad, b2),
                fg=s.c["on_bubble_out" if out else "text"],
                size=size,
            )
        )
    c1 = y1 + s.px(120)
    if it.subtitle and top <= c1 and c1 + s.px(46) <= end:
        row.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                text=it.subtitle,
                rid=s.rid("subtitle"),
                bounds=(x1 + s.px(16), c1, x1 + w - s.px(16), c1 + s.px(46)),
                fg=s.c["muted"],
                size=s.px(32),
                align="right" if out else "left",
            )
        )


def dialog(s: Screen, title: str, buttons: list[tuple[str, Handler, str]], message: str = "") -> View:
    """A Material 3 dialog centred over a scrim: title, optional message, text buttons at the bottom right."""
    c, w, h = s.c, s.phone.width, s.phone.height
    s.root.add(View(cls="android.view.View", package=s.pkg, bounds=(0, 0, w, h), shape="scrim"))
    x1, x2 = s.px(84), s.right - s.px(84)
    rows = len(fonts.wrap(title, x2 - x1 - s.px(128), s.px(62), max_lines=3))  # as Android wraps a title
    title_h = s.px(90) if rows == 1 else s.px(82) * rows + s.px(8)
    height = s.px(64 + (120 if message else 0) + 40 + 130 + 40) + title_h
    y1 = (h - height) // 2
    card = s.root.add(
        View(
            cls="android.widget.LinearLayout",
            package=s.pkg,
            rid="android:id/parentPanel",
            bounds=(x1, y1, x2, y1 + height),
            shape="round",
            radius=s.px(74),
            bg=c["surface_container_high"],
        )
    )
    y = y1 + s.px(64)
    card.add(
        View(
            cls="android.widget.TextView",
            package=s.pkg,
            rid="android:id/alertTitle",
            text=title,
            bounds=(x1 + s.px(64), y, x2 - s.px(64), y + title_h),
            fg=c["text"],
            size=s.px(62),
            lines=3,
        )
    )
    y += title_h
    if message:
        card.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                rid="android:id/message",
                text=message,
                bounds=(x1 + s.px(64), y + s.px(20), x2 - s.px(64), y + s.px(120)),
                fg=c["muted"],
                size=s.px(40),
            )
        )
        y += s.px(120)
    y += s.px(40)
    bx = x2 - s.px(40)
    for label, handler, rid in reversed(buttons):
        bw = int(fonts.text_width(label, s.px(40), True)) + s.px(96)
        card.add(
            View(
                cls="android.widget.Button",
                package=s.pkg,
                rid=rid,
                text=label,
                clickable=True,
                focusable=True,
                on_click=handler,
                bounds=(bx - bw, y, bx, y + s.px(130)),
                shape="pill",
                fg=c["primary"],
                size=s.px(40),
                bold=True,
                align="center",
            )
        )
        bx -= bw + s.px(16)
    return card

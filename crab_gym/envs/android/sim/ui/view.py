"""The retained UI model: a tree of Views (what uiautomator dumps and what the renderer draws) and its XML
dump. Every pixel the renderer draws belongs to a View of this tree, inside that View's bounds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .theme import DARK, LIGHT

ATTR_ESCAPES = {'"': "&quot;", "'": "&apos;", "\n": "&#10;"}
# XML escapes as a table (xml.sax.saxutils.escape's output; that module imports urllib, http and ssl)
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", **ATTR_ESCAPES})

COLORS = LIGHT  # the light palette; DARK is the dark one (see theme.py)
__all__ = ["COLORS", "DARK", "Handler", "View", "to_xml"]


class Handler(Protocol):
    """What a tap or a long press runs: called with no arguments (a lambda may bind loop values as defaults,
    which `Callable[[], object]` would refuse)."""

    def __call__(self) -> object: ...


@dataclass(eq=False)
class View:
    cls: str = "android.widget.FrameLayout"
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)
    package: str = ""
    text: str = ""
    rid: str = ""
    desc: str = ""
    clickable: bool = False
    long_clickable: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    password: bool = False
    selected: bool = False
    children: list[View] = field(default_factory=list)
    on_click: Handler | None = None
    on_long_click: Handler | None = None
    # drawing hints (not dumped; see render.py for what each shape draws)
    bg: tuple[int, int, int] | None = None
    fg: tuple[int, int, int] | None = None
    size: int = 0  # text or icon size in device pixels
    bold: bool = False  # Roboto Medium instead of Regular
    # rect | round | circle | pill | outline | underline | switch | check | tab | scrim | gradient
    # | track (a slider's) | triangle | ring | box (navigation buttons) | none
    shape: str = "rect"
    hint: str = ""  # drawn (muted) when there is no text; a letter in an avatar
    align: str = "left"  # left | center | right
    lines: int = 1  # most lines its text wraps to (fonts.wrap); 1: one line, cut with an ellipsis
    icon: str = ""  # a Material icon drawn in the view (before the text when both are set)
    radius: int = 0  # corner radius of a "round" shape in device pixels (0: a quarter of the height)
    scroll_key: str = ""

    def add(self, child: View) -> View:
        self.children.append(child)
        return child

    def contains(self, x: float, y: float) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


def to_xml(root: View, rotation: int = 0) -> str:
    """The uiautomator dump format, one line, attribute order as on a real device."""
    parts = [f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"{rotation}\">"]

    def b(v: bool) -> str:
        return "true" if v else "false"

    def node(v: View, index: int) -> None:
        x1, y1, x2, y2 = v.bounds
        parts.append(
            f'<node index="{index}" text="{v.text.translate(_ATTR)}" resource-id="{v.rid.translate(_TEXT)}" '
            f'class="{v.cls}" package="{v.package}" content-desc="{v.desc.translate(_ATTR)}" '
            f'checkable="{b(v.checkable)}" checked="{b(v.checked)}" clickable="{b(v.clickable)}" '
            f'enabled="{b(v.enabled)}" focusable="{b(v.focusable)}" focused="{b(v.focused)}" '
            f'scrollable="{b(v.scrollable)}" long-clickable="{b(v.long_clickable)}" '
            f'password="{b(v.password)}" '
            f'selected="{b(v.selected)}" bounds="[{x1},{y1}][{x2},{y2}]"'
        )
        if v.children:
            parts.append(">")
            for i, c in enumerate(v.children):
                node(c, i)
            parts.append("</node>")
        else:
            parts.append(" />")

    node(root, 0)
    parts.append("</hierarchy>")
    return "".join(parts)

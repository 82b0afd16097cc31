"""The retained UI model: a tree of Views (what uiautomator dumps and what the renderer draws), its XML dump,
and the colour themes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

Handler = Callable[[], object]
ATTR_ESCAPES = {'"': "&quot;", "'": "&apos;", "\n": "&#10;"}

COLORS = {
    "bg": (255, 251, 254),
    "surface": (243, 237, 247),
    "primary": (103, 80, 164),
    "on_primary": (255, 255, 255),
    "text": (28, 27, 31),
    "muted": (96, 93, 102),
    "hint": (140, 136, 146),
    "divider": (225, 222, 230),
    "status": (243, 237, 247),
    "nav": (243, 237, 247),
    "focus": (103, 80, 164),
    "danger": (179, 38, 30),
}
DARK = {
    "bg": (28, 27, 31),
    "surface": (43, 41, 48),
    "primary": (208, 188, 255),
    "on_primary": (56, 30, 114),
    "text": (230, 225, 229),
    "muted": (202, 196, 208),
    "hint": (147, 143, 153),
    "divider": (73, 69, 79),
    "status": (28, 27, 31),
    "nav": (28, 27, 31),
    "focus": (208, 188, 255),
    "danger": (242, 184, 181),
}


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
    # drawing hints (not dumped)
    bg: tuple[int, int, int] | None = None
    fg: tuple[int, int, int] | None = None
    size: int = 0
    bold: bool = False
    shape: str = "rect"  # rect | round | circle | pill | underline | switch | none
    hint: str = ""
    align: str = "left"  # left | center
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
            f'<node index="{index}" text="{escape(v.text, ATTR_ESCAPES)}" resource-id="{escape(v.rid)}" '
            f'class="{v.cls}" package="{v.package}" content-desc="{escape(v.desc, ATTR_ESCAPES)}" '
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

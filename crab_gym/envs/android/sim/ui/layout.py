"""Screen, the layout helper with which apps build their screens in a few lines (app bar, fields, buttons,
switches, scrolling lists, floating buttons, tabs, dialogs); widgets.py draws list rows (`Item`) and dialogs.

Geometry is in 1080-wide design pixels scaled to the phone; the look is Material 3 (see theme.py). Task
scripts tap fixed points of these layouts, so a restyle keeps every box where it is.
"""

from __future__ import annotations

import builtins  # in Screen, annotations after its `list` method name the type as builtins.list
from collections.abc import Callable, Sequence

from . import widgets
from .theme import palette
from .view import Handler, View
from .widgets import Item

TONES = {"danger": ((179, 38, 30), (255, 255, 255)), "call": ((30, 142, 62), (255, 255, 255))}


class Screen:
    """Vertical layout of an app screen between the status bar and the navigation bar.

    Sizes are given in 1080-wide design pixels and scaled to the phone's width.
    """

    def __init__(self, phone, activity, root: View) -> None:
        self.phone, self.act, self.root = phone, activity, root
        self.pkg = activity.package
        self.c = palette(phone.dark)
        self.s = phone.width / 1080
        self.left, self.right = 0, phone.width
        self.y = phone.status_h
        self.bottom = phone.height - phone.nav_h
        self.state = activity.state

    def px(self, v: float) -> int:
        return int(round(v * self.s))

    def rid(self, name: str) -> str:
        return f"{self.pkg}:id/{name}" if name else ""

    def view(self, **kw) -> View:
        kw.setdefault("package", self.pkg)
        if "rid" in kw:
            kw["rid"] = self.rid(kw["rid"])
        return self.root.add(View(**kw))

    def app_bar(
        self, title: str, back: bool = True, actions: list[tuple[str, Handler]] | None = None
    ) -> None:
        h = self.px(168)
        bar = self.view(
            cls="android.view.ViewGroup",
            bounds=(0, self.y, self.right, self.y + h),
            rid="toolbar",
            bg=self.c["bg"],
        )
        x = self.px(48)
        if back:
            bar.add(
                View(
                    cls="android.widget.ImageButton",
                    package=self.pkg,
                    desc="Navigate up",
                    bounds=(self.px(16), self.y + self.px(30), self.px(124), self.y + self.px(138)),
                    clickable=True,
                    focusable=True,
                    on_click=self.phone.back,
                    text="",
                    shape="none",
                    icon="arrow_back",
                    fg=self.c["text"],
                    size=self.px(66),
                )
            )
            x = self.px(150)
        bar.add(
            View(
                cls="android.widget.TextView",
                package=self.pkg,
                text=title,
                bounds=(x, self.y + self.px(40), self.right - self.px(300), self.y + self.px(128)),
                fg=self.c["text"],
                size=self.px(58),
            )
        )
        ax = self.right - self.px(24)
        for desc, handler in reversed(actions or []):
            bar.add(
                View(
                    cls="android.widget.Button",
                    package=self.pkg,
                    text=desc,
                    rid=self.rid(desc.lower()),
                    bounds=(ax - self.px(240), self.y + self.px(34), ax, self.y + self.px(134)),
                    clickable=True,
                    focusable=True,
                    on_click=handler,
                    fg=self.c["primary"],
                    size=self.px(40),
                    bold=True,
                    align="center",
                )
            )
            ax -= self.px(260)
        self.y += h

    def text(
        self, text: str, size: int = 44, rid: str = "", muted: bool = False, height: int = 0, lines: int = 1
    ) -> View:
        """A TextView; with ``lines`` > 1 it wraps onto that many lines (its height grows to hold them)."""
        h = self.px(height or (size * 2 if lines == 1 else round(size * 1.4 * lines) + size // 2))
        v = self.view(
            cls="android.widget.TextView",
            text=text,
            rid=rid,
            bounds=(self.px(48), self.y, self.right - self.px(48), self.y + h),
            fg=self.c["muted" if muted else "text"],
            size=self.px(size),
            lines=lines,
        )
        self.y += h
        return v

    def field(
        self, key: str, hint: str, rid: str = "", password: bool = False, on_enter: Handler | None = None
    ) -> View:
        fields = self.state.setdefault("fields", {})
        value = fields.get(key, "")
        focused = self.state.get("focus") == key
        h = self.px(160)

        def focus() -> None:
            self.state["focus"] = key

        v = self.view(
            cls="android.widget.EditText",
            rid=rid or key,
            text=("•" * len(value) if password else value) or hint,
            bounds=(self.px(48), self.y + self.px(16), self.right - self.px(48), self.y + h),
            clickable=True,
            focusable=True,
            focused=focused,
            long_clickable=True,
            password=password,
            on_click=focus,
            shape="outline",
            hint=hint if not value else "",
            fg=self.c["text"],
            size=self.px(44),
            bg=self.c["primary" if focused else "outline"],
        )
        v.scroll_key = key
        self.phone.enter_handlers[key] = on_enter
        self.y += h + self.px(16)
        return v

    def button(
        self,
        text: str,
        on_click: Handler,
        rid: str = "",
        enabled: bool = True,
        icon: str = "",
        tone: str = "",
    ) -> View:
        """A filled button across the screen; ``tone`` "danger" or "call" for red and green ones."""
        h = self.px(140)
        bg, fg = TONES.get(tone) or (self.c["primary"], self.c["on_primary"])
        v = self.view(
            cls="android.widget.Button",
            text=text,
            rid=rid,
            bounds=(self.px(48), self.y + self.px(20), self.right - self.px(48), self.y + h),
            clickable=enabled,
            focusable=True,
            enabled=enabled,
            on_click=on_click,
            shape="pill",
            bg=bg if enabled else self.c["surface_container_highest"],
            fg=fg if enabled else self.c["muted"],
            icon=icon,
            size=self.px(40),
            bold=True,
            align="center",
        )
        self.y += h + self.px(20)
        return v

    def switch(self, label: str, checked: bool, on_toggle: Handler, rid: str = "") -> View:
        h = self.px(180)
        row = self.view(
            cls="android.widget.LinearLayout",
            bounds=(0, self.y, self.right, self.y + h),
            clickable=True,
            focusable=True,
            on_click=on_toggle,
        )
        row.add(
            View(
                cls="android.widget.TextView",
                package=self.pkg,
                text=label,
                rid="android:id/title",
                bounds=(self.px(48), self.y + self.px(50), self.right - self.px(260), self.y + self.px(130)),
                fg=self.c["text"],
                size=self.px(46),
            )
        )
        row.add(
            View(
                cls="android.widget.Switch",
                package=self.pkg,
                rid=self.rid(rid) or "android:id/switch_widget",
                text="ON" if checked else "OFF",
                checkable=True,
                checked=checked,
                clickable=True,
                focusable=True,
                on_click=on_toggle,
                shape="switch",
                fg=self.c["primary"],
                bg=self.c["outline"],
                bounds=(
                    self.right - self.px(210),
                    self.y + self.px(50),
                    self.right - self.px(60),
                    self.y + self.px(130),
                ),
            )
        )
        self.y += h
        return row

    def list(
        self,
        key: str,
        items: Sequence[Item],
        rid: str = "list",
        row_h: int = 200,
        bottom: int = 0,
        empty: str = "Nothing here yet",
    ) -> View:
        """A vertically scrolling list filling the screen down to `bottom` (design px above the nav bar).
        Only the rows in view are read from ``items`` (a :class:`~.widgets.Rows` makes them on demand)."""
        top, end = self.y, self.bottom - self.px(bottom)
        rh = self.px(row_h)
        scroll_max = max(0, len(items) * rh - (end - top))
        scroll = min(max(0, int(self.state.get("scroll", {}).get(key, 0))), scroll_max)
        self.state.setdefault("scroll", {})[key] = scroll
        lv = self.view(
            cls="androidx.recyclerview.widget.RecyclerView",
            rid=rid,
            bounds=(0, top, self.right, end),
            scrollable=scroll_max > 0,
            focusable=True,
        )
        lv.scroll_key = key
        if not items:
            lv.add(
                View(
                    cls="android.widget.TextView",
                    package=self.pkg,
                    text=empty,
                    fg=self.c["muted"],
                    size=self.px(44),
                    align="center",
                    bounds=(0, top + self.px(200), self.right, top + self.px(300)),
                )
            )
        for i in range(scroll // rh if rh > 0 else len(items), len(items)):  # the first row in view on
            y1 = top + i * rh - scroll
            if y1 >= end:
                break
            if y1 + rh > top:
                widgets.list_row(self, lv, items[i], y1, rh, top, end)
        self.y = end
        return lv

    def fab(self, desc: str, on_click: Handler, rid: str = "fab", icon: str = "add") -> View:
        """A Material floating action button (a rounded square with an icon) at the bottom right."""
        size = self.px(200)
        x2, y2 = self.right - self.px(64), self.bottom - self.px(64)
        return self.view(
            cls="android.widget.ImageButton",
            desc=desc,
            rid=rid,
            clickable=True,
            focusable=True,
            on_click=on_click,
            bounds=(x2 - size, y2 - size, x2, y2),
            shape="round",
            radius=self.px(56),
            bg=self.c["primary_container"],
            fg=self.c["on_primary_container"],
            icon=icon,
            size=self.px(80),
        )

    def tabs(self, names: builtins.list[str], current: str, on_select: Callable[[str], Handler]) -> None:
        h = self.px(150)
        w = self.right // max(1, len(names))
        for i, n in enumerate(names):
            self.view(
                cls="android.widget.TextView",
                text=n,
                desc=n,
                clickable=True,
                focusable=True,
                selected=n == current,
                on_click=on_select(n),
                align="center",
                size=self.px(40),
                bold=True,
                bounds=(i * w, self.y, (i + 1) * w, self.y + h),
                fg=self.c["primary" if n == current else "muted"],
                shape="tab" if n == current else "rect",
            )
        self.y += h

    def dialog(self, title: str, buttons: builtins.list[tuple[str, Handler, str]], message: str = "") -> View:
        """A Material dialog over a scrim: a title, an optional message and (label, handler, resource id)
        buttons; resource ids are Android's own (``android:id/...``)."""
        return widgets.dialog(self, title, buttons, message)

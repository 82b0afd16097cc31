"""The home screen (dock, a few icons, an app drawer button) and the app drawer (every app, in a grid)."""

from __future__ import annotations

from ..system.clock import home_date
from ..system.registry import APPS, LAUNCHER, AppSpec
from ..ui.layout import Screen
from ..ui.theme import app_icon
from ..ui.view import View
from . import recents

APP = AppSpec(LAUNCHER, "Pixel Launcher", (66, 133, 244), in_drawer=False)
HOME_APPS = [
    "com.google.android.dialer",
    "com.google.android.apps.messaging",
    "com.android.contacts",
    "com.android.settings",
    "com.android.camera2",
]
ICON = 180


def _icons(
    s: Screen, packages: list[str], top: int, cols: int = 4, rid: str = "icon", ink: str = "text"
) -> int:
    """A grid of app icons (a coloured circle with the app's glyph) with their labels below."""
    cell_w = s.right // cols
    cell_h = s.px(300)
    for i, pkg in enumerate(packages):
        app = APPS[pkg]
        cx = (i % cols) * cell_w + cell_w // 2
        y = top + (i // cols) * cell_h
        size = s.px(ICON)

        def launch(p=pkg) -> None:
            s.phone.launch(p)

        cell = s.view(
            cls="android.widget.TextView",
            text=app.label,
            desc=app.label,
            clickable=True,
            long_clickable=True,
            focusable=True,
            on_click=launch,
            on_long_click=launch,
            bounds=(cx - cell_w // 2, y, cx + cell_w // 2, y + cell_h),
            rid=rid,
            shape="none",
            size=0,
        )
        glyph, bg, fg = app_icon(pkg, app.color)
        cell.add(
            View(
                cls="android.widget.ImageView",
                package=s.pkg,
                shape="circle",
                bg=bg,
                fg=fg,
                icon=glyph,
                size=s.px(96),
                bounds=(cx - size // 2, y + s.px(20), cx + size // 2, y + s.px(20) + size),
            )
        )
        cell.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                text=app.label,
                fg=s.c[ink],
                size=s.px(36),
                align="center",
                bounds=(cx - cell_w // 2, y + s.px(210), cx + cell_w // 2, y + s.px(270)),
            )
        )
    return top + ((len(packages) + cols - 1) // cols) * cell_h


def _swipe(s: Screen):
    def on_swipe(x1: float, y1: float, x2: float, y2: float) -> None:
        if y1 - y2 > s.px(200):
            s.state["drawer"] = True
        elif y2 - y1 > s.px(200):
            s.state["drawer"] = False

    return on_swipe


@APP.screen("home", "com.google.android.apps.nexuslauncher.NexusLauncherActivity")
def home(s: Screen) -> None:
    s.state["on_swipe"] = _swipe(s)
    s.root.rid = ""
    if s.state.get("drawer"):
        s.view(
            cls="android.widget.EditText",
            text="Search your phone and more",
            rid="search_box",
            bounds=(s.px(48), s.y + s.px(40), s.right - s.px(48), s.y + s.px(180)),
            shape="pill",
            bg=s.c["surface_container_high"],
            fg=s.c["muted"],
            icon="search",
            size=s.px(42),
            align="left",
        )
        apps = sorted((a for a in APPS.values() if a.in_drawer), key=lambda a: a.label.lower())
        drawer = s.view(
            cls="androidx.recyclerview.widget.RecyclerView",
            rid="apps_list_view",
            bounds=(0, s.y + s.px(220), s.right, s.bottom),
        )
        drawer.desc = "Apps list"
        _icons(s, [a.package for a in apps], s.y + s.px(240))
        return
    s.view(
        cls="android.view.View",
        rid="wallpaper",
        bounds=(0, 0, s.right, s.phone.height),
        shape="gradient",
        bg=s.c["wallpaper_top"],
        fg=s.c["wallpaper_bottom"],
    )
    s.view(
        cls="android.widget.TextView",
        text=home_date(s.phone),  # the phone's clock (system/clock.py)
        rid="date",
        fg=s.c["on_wallpaper"],
        size=s.px(60),
        bounds=(s.px(60), s.y + s.px(60), s.right, s.y + s.px(160)),
    )
    _icons(
        s,
        [
            "com.google.android.calendar",
            "com.google.android.deskclock",
            "com.google.android.keep",
            "com.google.android.gm",
        ],
        s.y + s.px(500),
        rid="workspace_icon",
        ink="on_wallpaper",
    )
    dock_top = s.bottom - s.px(560)

    def open_drawer() -> None:
        s.state["drawer"] = True

    s.view(
        cls="android.widget.ImageButton",
        desc="Apps",
        rid="all_apps_handle",
        text="",
        clickable=True,
        focusable=True,
        on_click=open_drawer,
        hint="Apps",
        icon="keyboard_arrow_up",
        fg=s.c["on_wallpaper"],
        size=s.px(38),
        align="center",
        bounds=(
            s.right // 2 - s.px(150),
            dock_top - s.px(120),
            s.right // 2 + s.px(150),
            dock_top - s.px(20),
        ),
    )
    _icons(s, HOME_APPS, dock_top, cols=5, rid="hotseat_icon", ink="on_wallpaper")
    s.view(
        cls="android.widget.TextView",
        text="Search",
        desc="Search",
        rid="search_container_hotseat",
        clickable=True,
        focusable=True,
        on_click=open_drawer,
        shape="pill",
        bg=s.c["surface_container_high"],
        fg=s.c["muted"],
        icon="search",
        size=s.px(42),
        align="left",
        bounds=(s.px(60), s.bottom - s.px(230), s.right - s.px(60), s.bottom - s.px(80)),
    )


APP.screen("recents", "com.android.quickstep.RecentsActivity")(recents.overview)  # overview: apps/recents.py

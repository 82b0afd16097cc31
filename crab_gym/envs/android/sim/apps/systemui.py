"""System UI drawn over every screen: the status bar, the quick settings shade, the navigation bar."""

from __future__ import annotations

from ..system import notifications
from ..system.clock import status_bar_time
from ..system.providers import get_setting, put_setting
from ..ui.theme import palette
from ..ui.view import View

PKG = "com.android.systemui"


STATUS_ICONS = (  # (Material icon, resource id, content description), left to right
    ("wifi", "wifi_signal", "Wifi signal full."),
    ("signal_cellular_4_bar", "mobile_signal", "Phone four bars."),
    ("battery_full", "battery_icon", ""),
)


def decorate(phone, root: View) -> None:
    c = palette(phone.dark)
    w, h, s = phone.width, phone.height, phone.width / 1080
    # over a wallpaper (the home screen) the bars are see-through, as on a Pixel
    see_through = any(v.shape == "gradient" for v in root.children)
    ink = c["on_wallpaper"] if see_through else c["text"]
    bar = root.add(
        View(
            cls="android.widget.FrameLayout",
            package=PKG,
            rid=f"{PKG}:id/status_bar",
            bounds=(0, 0, w, phone.status_h),
            bg=None if see_through else c["bg"],
        )
    )
    bar.add(
        View(
            cls="android.widget.TextView",
            package=PKG,
            rid=f"{PKG}:id/clock",
            text=status_bar_time(phone),  # the phone's clock (system/clock.py; `date` sets it)
            bounds=(int(48 * s), 0, int(300 * s), phone.status_h),
            fg=ink,
            size=int(40 * s),
            bold=True,
        )
    )
    x = w - int(220 * s) - len(STATUS_ICONS) * int(62 * s)
    for icon, rid, desc in STATUS_ICONS:
        bar.add(
            View(
                cls="android.widget.ImageView",
                package=PKG,
                rid=f"{PKG}:id/{rid}",
                desc=desc,
                bounds=(x, 0, x + int(60 * s), phone.status_h),
                shape="none",
                icon=icon,
                fg=ink,
                size=int(46 * s),
            )
        )
        x += int(62 * s)
    bar.add(
        View(
            cls="android.widget.TextView",
            package=PKG,
            rid=f"{PKG}:id/battery",
            text="100%",
            desc="Battery 100 percent.",
            bounds=(w - int(220 * s), 0, w - int(48 * s), phone.status_h),
            fg=ink,
            size=int(40 * s),
            bold=True,
        )
    )
    if phone.shade_open:
        shade(phone, root)
    top = h - phone.nav_h
    nav = root.add(
        View(
            cls="android.widget.FrameLayout",
            package=PKG,
            rid=f"{PKG}:id/navigation_bar_frame",
            bounds=(0, top, w, h),
            bg=None if see_through else c["bg"],
        )
    )
    third = w // 3
    for i, (name, desc, glyph, fn) in enumerate(
        (
            ("back", "Back", "triangle", phone.back),
            ("home", "Home", "ring", phone.home),
            ("recent_apps", "Overview", "box", phone.home),
        )
    ):
        nav.add(
            View(
                cls="android.widget.ImageView",
                package=PKG,
                rid=f"{PKG}:id/{name}",
                desc=desc,
                clickable=True,
                long_clickable=False,
                focusable=True,
                on_click=fn,
                bounds=(i * third, top, (i + 1) * third, h),
                shape=glyph,
                fg=ink,
            )
        )


QS_TILES = [  # (label, settings namespace, key, on value, off value, Material icon)
    ("Internet", "global", "wifi_on", "1", "0", "wifi"),
    ("Bluetooth", "global", "bluetooth_on", "1", "0", "bluetooth"),
    ("Airplane mode", "global", "airplane_mode_on", "1", "0", "airplanemode_active"),
    ("Dark theme", "secure", "ui_night_mode", "2", "1", "dark_mode"),
]


def shade(phone, root: View) -> None:
    """The pulled-down quick settings panel: one toggle tile per setting, the notifications under them."""
    c = palette(phone.dark)
    w, s = phone.width, phone.width / 1080
    top, h = phone.status_h, int(900 * s)
    panel = root.add(
        View(
            cls="android.widget.FrameLayout",
            package=PKG,
            rid=f"{PKG}:id/quick_settings_panel",
            bounds=(0, 0, w, top + h),
            bg=c["surface_container"],
            scrollable=False,
        )
    )
    tile_w, tile_h = (w - int(120 * s)) // 2, int(200 * s)
    for i, (label, ns, name, on, off, icon) in enumerate(QS_TILES):
        checked = get_setting(phone, ns, name) == on
        x = int(40 * s) + (i % 2) * (tile_w + int(40 * s))
        y = top + int(80 * s) + (i // 2) * (tile_h + int(40 * s))

        def toggle(ns=ns, name=name, value=off if checked else on) -> None:
            put_setting(phone, ns, name, value)

        panel.add(
            View(
                cls="android.widget.Switch",
                package=PKG,
                rid=f"{PKG}:id/tile",
                text=label,
                desc=label,
                checkable=True,
                checked=checked,
                clickable=True,
                focusable=True,
                on_click=toggle,
                shape="round",
                radius=tile_h // 2,
                bg=c["primary"] if checked else c["surface_container_highest"],
                fg=c["on_primary"] if checked else c["text"],
                size=int(40 * s),
                bold=True,
                icon=icon,
                align="center",
                bounds=(x, y, x + tile_w, y + tile_h),
            )
        )
    rows = (len(QS_TILES) + 1) // 2
    notifications.draw(phone, panel, top + int(80 * s) + rows * (tile_h + int(40 * s)))


def swipe(phone, x1: float, y1: float, x2: float, y2: float) -> bool:
    """System gestures: pull the shade down from the status bar, push it back up. True when consumed."""
    s = phone.width / 1080
    if not phone.shade_open and y1 <= phone.status_h * 1.5 and y2 - y1 > 200 * s:
        phone.shade_open = True
        return True
    if phone.shade_open and y1 - y2 > 200 * s:
        phone.shade_open = False
        return True
    return phone.shade_open

"""System UI drawn over every screen: the status bar, the quick settings shade, the navigation bar."""

from __future__ import annotations

from ..system import notifications, overlays, power
from ..system.clock import status_bar_time
from ..system.providers import get_setting, put_setting
from ..ui.theme import palette
from ..ui.view import View
from . import recents

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
    overlays.draw(phone, root)  # system dialogs and heads-up notifications, under the shade
    if phone.shade_open:
        shade(phone, root)
    if power.power_menu(phone):
        global_actions(phone, root)
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
            ("recent_apps", "Overview", "box", lambda: recents.show(phone)),
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

        tile = _tile(label, "tile", toggle, (x, y, x + tile_w, y + tile_h), tile_h // 2, int(40 * s))
        tile.cls, tile.checkable, tile.checked, tile.bold, tile.icon = (
            "android.widget.Switch",
            True,
            checked,
            True,
            icon,
        )
        tile.bg = c["primary"] if checked else c["surface_container_highest"]
        tile.fg = c["on_primary"] if checked else c["text"]
        panel.add(tile)
    rows = (len(QS_TILES) + 1) // 2
    notifications.draw(phone, panel, top + int(80 * s) + rows * (tile_h + int(40 * s)))


def global_actions(phone, root: View) -> None:
    """The power menu (a long press of power): Emergency, Lockdown, Power off, Restart, Screenshot."""
    c = palette(phone.dark)
    w, h, s = phone.width, phone.height, phone.width / 1080
    root.add(View(cls="android.view.View", package=PKG, bounds=(0, 0, w, h), shape="scrim"))

    def emergency() -> None:
        power.close_menu(phone)
        phone.launch("com.google.android.dialer")

    def lockdown() -> None:
        power.close_menu(phone)
        power.sleep(phone, "lockdown")
        power.wake(phone)

    def power_off() -> None:
        power.close_menu(phone)
        power.sleep(phone, "power_menu")

    def restart() -> None:
        power.close_menu(phone)
        phone.home()
        power.sleep(phone, "reboot")
        power.wake(phone)

    actions = (
        ("Emergency", "emergency", emergency),
        ("Lockdown", "lockdown", lockdown),
        ("Power off", "power_off", power_off),
        ("Restart", "restart", restart),
    )
    size = int(260 * s)
    x0, y0 = (w - 2 * size - int(40 * s)) // 2, h // 2 - size - int(20 * s)
    for i, (label, rid, fn) in enumerate(actions):
        x, y = x0 + (i % 2) * (size + int(40 * s)), y0 + (i // 2) * (size + int(40 * s))
        tile = _tile(label, rid, fn, (x, y, x + size, y + size), int(40 * s), int(36 * s))
        tile.bg, tile.fg = c["surface_container_highest"], c["text"]
        root.add(tile)


def _tile(label: str, rid: str, on_click, bounds: tuple[int, int, int, int], radius: int, size: int) -> View:
    """A rounded, labelled, clickable SystemUI tile (quick settings, the power menu)."""
    return View(
        cls="android.widget.LinearLayout",
        package=PKG,
        rid=f"{PKG}:id/{rid}",
        text=label,
        desc=label,
        clickable=True,
        focusable=True,
        on_click=on_click,
        shape="round",
        radius=radius,
        size=size,
        align="center",
        bounds=bounds,
    )


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

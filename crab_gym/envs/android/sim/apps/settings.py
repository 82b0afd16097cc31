"""Settings (com.android.settings): network, Bluetooth, display (dark theme, brightness); writes the
settings tables."""

from __future__ import annotations

from ..system.providers import get_setting, put_setting
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.view import View
from ..ui.widgets import Item

APP = AppSpec("com.android.settings", "Settings", (95, 99, 104))
PAGES = [  # (title, summary, screen, Material icon)
    ("Network & internet", "Wi-Fi, mobile, data usage", "network", "wifi"),
    ("Connected devices", "Bluetooth, pairing", "connected", "devices"),
    ("Display", "Dark theme, brightness", "display", "brightness_medium"),
]


@APP.screen("main", ".Settings")
def main(s: Screen) -> None:
    s.app_bar("Settings", back=False)
    s.list(
        "pages",
        [Item(t, sub, glyph=g, rid="title", on_click=lambda p=p: s.phone.push(p)) for t, sub, p, g in PAGES],
    )


def _toggle(s: Screen, label: str, ns: str, name: str, on: str = "1", off: str = "0", rid: str = "") -> None:
    checked = get_setting(s.phone, ns, name) == on

    def flip() -> None:
        put_setting(s.phone, ns, name, off if checked else on)

    s.switch(label, checked, flip, rid=rid)


@APP.screen("network", ".SubSettings")
def network(s: Screen) -> None:
    s.app_bar("Network & internet")
    _toggle(s, "Wi-Fi", "global", "wifi_on", rid="wifi_switch")
    _toggle(s, "Mobile data", "global", "mobile_data", rid="mobile_data_switch")
    _toggle(s, "Airplane mode", "global", "airplane_mode_on", rid="airplane_mode_switch")


def bluetooth_name(phone) -> str:
    """The name other devices see over Bluetooth: Settings.Secure's bluetooth_name, else the device name."""
    return get_setting(phone, "secure", "bluetooth_name") or get_setting(phone, "global", "device_name") or ""


@APP.screen("connected", ".SubSettings")
def connected(s: Screen) -> None:
    s.app_bar("Connected devices")
    _toggle(s, "Bluetooth", "global", "bluetooth_on", rid="bluetooth_switch")
    s.list(
        "prefs",
        [
            Item(
                "Device name",
                bluetooth_name(s.phone),
                glyph="bluetooth",
                rid="device_name",
                on_click=lambda: s.phone.push("rename", focus="name"),
            )
        ],
    )


@APP.screen("rename", ".SubSettings")
def rename(s: Screen) -> None:
    """ "Rename this device": a new Bluetooth name, kept in Settings.Secure bluetooth_name as the adapter
    keeps it."""

    def save() -> None:
        name = s.state.get("fields", {}).get("name", "").strip()
        if name:
            put_setting(s.phone, "secure", "bluetooth_name", name)
            s.phone.back()

    s.app_bar("Rename this device", actions=[("Rename", save)])
    s.field("name", bluetooth_name(s.phone), rid="edittext", on_enter=save)


@APP.screen("display", ".SubSettings")
def display(s: Screen) -> None:
    s.app_bar("Display")
    _toggle(s, "Dark theme", "secure", "ui_night_mode", on="2", off="1", rid="dark_theme_switch")
    value = int(get_setting(s.phone, "system", "screen_brightness") or 0)
    s.text("Brightness level", size=48, rid="brightness_title")
    x1, x2 = s.px(60), s.right - s.px(60)
    top = s.y

    def set_level() -> None:
        x, _ = s.phone.last_touch
        level = round(max(0.0, min(1.0, (x - x1) / (x2 - x1))) * 255)
        put_setting(s.phone, "system", "screen_brightness", str(level))

    bar = s.view(
        cls="android.widget.SeekBar",
        rid="seekbar",
        text=str(value),
        desc="Brightness",
        clickable=True,
        focusable=True,
        on_click=set_level,
        bounds=(x1, top, x2, top + s.px(100)),
        shape="track",
        bg=s.c["secondary_container"],
    )
    fill = x1 + int((x2 - x1) * value / 255)
    bar.add(
        View(
            package=s.pkg,
            bounds=(x1, top, max(x1 + 1, fill), top + s.px(100)),
            shape="track",
            bg=s.c["primary"],
        )
    )
    handle = max(x1, min(fill, x2 - s.px(12)))
    bar.add(
        View(
            package=s.pkg,
            bounds=(handle, top, handle + s.px(12), top + s.px(100)),
            shape="pill",
            bg=s.c["primary"],
        )
    )
    s.y = top + s.px(140)

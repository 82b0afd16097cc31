"""The phone's colours: Material 3 baseline colour roles for the light and the dark theme, contact avatar
tones and the launcher's app icons.

Colour values are the Material 3 baseline scheme (primary #6750A4); ``dark`` is what Android draws when
``settings secure ui_night_mode`` is 2. The older short names (bg, text, muted, ...) are kept as aliases so
every screen reads one palette.
"""

from __future__ import annotations

import zlib

Color = tuple[int, int, int]


def _hex(h: str) -> Color:
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)


def _palette(roles: dict[str, str]) -> dict[str, Color]:
    p = {k: _hex(v) for k, v in roles.items()}
    p.update(
        bg=p["surface"],
        text=p["on_surface"],
        muted=p["on_surface_variant"],
        hint=p["on_surface_variant"],
        divider=p["outline_variant"],
        status=p["surface_container"],
        nav=p["surface_container"],
        focus=p["primary"],
        danger=p["error"],
    )
    return p


LIGHT = _palette(
    {
        "primary": "#6750A4",
        "on_primary": "#FFFFFF",
        "primary_container": "#EADDFF",
        "on_primary_container": "#21005D",
        "secondary_container": "#E8DEF8",
        "on_secondary_container": "#1D192B",
        "surface": "#FEF7FF",
        "on_surface": "#1D1B20",
        "surface_variant": "#E7E0EC",
        "on_surface_variant": "#49454F",
        "surface_container_low": "#F7F2FA",
        "surface_container": "#F3EDF7",
        "surface_container_high": "#ECE6F0",
        "surface_container_highest": "#E6E0E9",
        "outline": "#79747E",
        "outline_variant": "#CAC4D0",
        "error": "#B3261E",
        "scrim": "#000000",
        "wallpaper_top": "#D7E3FF",
        "wallpaper_bottom": "#F4D9F2",
        "on_wallpaper": "#1D1B20",
        "bubble_out": "#6750A4",
        "on_bubble_out": "#FFFFFF",
    }
)
DARK = _palette(
    {
        "primary": "#D0BCFF",
        "on_primary": "#381E72",
        "primary_container": "#4F378B",
        "on_primary_container": "#EADDFF",
        "secondary_container": "#4A4458",
        "on_secondary_container": "#E8DEF8",
        "surface": "#141218",
        "on_surface": "#E6E0E9",
        "surface_variant": "#49454F",
        "on_surface_variant": "#CAC4D0",
        "surface_container_low": "#1D1B20",
        "surface_container": "#211F26",
        "surface_container_high": "#2B2930",
        "surface_container_highest": "#36343B",
        "outline": "#938F99",
        "outline_variant": "#49454F",
        "error": "#F2B8B5",
        "scrim": "#000000",
        "wallpaper_top": "#1B2A4A",
        "wallpaper_bottom": "#3A1F3D",
        "on_wallpaper": "#F4EFF4",
        "bubble_out": "#4F378B",
        "on_bubble_out": "#EADDFF",
    }
)

# Contact avatars: (background, letter) tones, picked by a stable hash of the name.
AVATARS_LIGHT = [
    ("#C2E7FF", "#001D35"),
    ("#C4EED0", "#072711"),
    ("#FFDAD6", "#410002"),
    ("#FFDEA8", "#271900"),
    ("#E8DEF8", "#1D192B"),
    ("#FFD8E4", "#31111D"),
    ("#B9F0EF", "#002020"),
    ("#FFDBCB", "#341100"),
]
AVATARS_DARK = [
    ("#004A77", "#C2E7FF"),
    ("#0F5223", "#C4EED0"),
    ("#8C1D18", "#FFDAD6"),
    ("#5C4300", "#FFDEA8"),
    ("#4A4458", "#E8DEF8"),
    ("#633B48", "#FFD8E4"),
    ("#004F4F", "#B9F0EF"),
    ("#723600", "#FFDBCB"),
]

# Launcher icons: (Material icon, circle colour, glyph colour) by package; the same in both themes, as
# app icons are.
APP_ICONS: dict[str, tuple[str, str, str]] = {
    "com.android.contacts": ("person", "#1A73E8", "#FFFFFF"),
    "com.google.android.apps.messaging": ("chat", "#0B57D0", "#FFFFFF"),
    "com.google.android.dialer": ("call", "#1E8E3E", "#FFFFFF"),
    "com.google.android.calendar": ("calendar_today", "#4285F4", "#FFFFFF"),
    "com.google.android.deskclock": ("schedule", "#3C4043", "#8AB4F8"),
    "com.google.android.apps.tasks": ("task_alt", "#1A73E8", "#FFFFFF"),
    "com.google.android.keep": ("lightbulb", "#FBBC04", "#FFFFFF"),
    "com.google.android.documentsui": ("folder", "#1A73E8", "#FFFFFF"),
    "com.android.settings": ("settings", "#5F6368", "#FFFFFF"),
    "com.google.android.gm": ("mail", "#EA4335", "#FFFFFF"),
    "com.android.camera2": ("photo_camera", "#3C4043", "#FFFFFF"),
    "com.google.android.apps.docs": ("add_to_drive", "#1E8E3E", "#FFFFFF"),
    "com.android.chrome": ("public", "#1A73E8", "#FFFFFF"),
    "com.google.android.apps.maps": ("location_on", "#EA4335", "#FFFFFF"),
}


def palette(dark: bool) -> dict[str, Color]:
    return DARK if dark else LIGHT


def avatar(name: str, dark: bool) -> tuple[Color, Color]:
    """(background, letter colour) of a contact's avatar: stable across runs and processes."""
    tones = AVATARS_DARK if dark else AVATARS_LIGHT
    bg, fg = tones[zlib.crc32(name.encode("utf-8")) % len(tones)]
    return _hex(bg), _hex(fg)


def app_icon(package: str, fallback: Color) -> tuple[str, Color, Color]:
    """(icon name, circle colour, glyph colour) of an app's launcher icon."""
    if package in APP_ICONS:
        name, bg, fg = APP_ICONS[package]
        return name, _hex(bg), _hex(fg)
    return "android", fallback, (255, 255, 255)

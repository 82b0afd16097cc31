"""Desktop settings templates: GNOME interface keys (colour scheme, scaling, font, cursor, animations,
clock format) set through gsettings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import (
    INTERFACE,
    PLATFORMS,
    terminal,
)

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

# ---- settings -------------------------------------------------------------------------------------


_SCHEMES = {"dark": "prefer-dark", "light": "prefer-light"}


def _scheme(color_scheme: str) -> str:
    try:
        return _SCHEMES[color_scheme]
    except KeyError:
        raise ValueError(f"color_scheme must be one of {sorted(_SCHEMES)}, got {color_scheme!r}") from None


SETTINGS_COLOR_SCHEME = SubTaskTemplate(
    id="settings_color_scheme",
    sets=V0_SETS,
    description=(
        "Switch the desktop to the {color_scheme} style: set the GNOME interface setting color-scheme "
        "(schema org.gnome.desktop.interface) to prefer-{color_scheme}, for example with gsettings in a "
        "terminal."
    ),
    attributes={"color_scheme": "color_scheme"},
    evaluator=lambda color_scheme: [
        ev.gsetting_equals(schema=INTERFACE, key="color-scheme", value=f"'{_scheme(color_scheme)}'")
    ],
    solution=lambda color_scheme: terminal(f"gsettings set {INTERFACE} color-scheme {_scheme(color_scheme)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
)


SETTINGS_TEXT_SCALING = SubTaskTemplate(
    id="settings_text_scaling",
    sets=V0_SETS,
    description=(
        "Make the desktop's text bigger: set the GNOME interface setting text-scaling-factor "
        "(schema org.gnome.desktop.interface) to {factor}, for example with gsettings in a terminal."
    ),
    attributes={"factor": "scale"},
    evaluator=lambda factor: [ev.gsetting_number(schema=INTERFACE, key="text-scaling-factor", value=factor)],
    solution=lambda factor: terminal(f"gsettings set {INTERFACE} text-scaling-factor {factor}"),
    platforms=PLATFORMS,
    apps=("terminal",),
)


SETTINGS_FONT = SubTaskTemplate(
    id="settings_font",
    sets=V0_SETS,
    description=(
        "Change the desktop's interface font to '{font} {size}': set the GNOME interface setting "
        "font-name (schema org.gnome.desktop.interface) to that value, for example with gsettings."
    ),
    attributes={"font": "font", "size": "font_size"},
    evaluator=lambda font, size: [
        ev.gsetting_equals(schema=INTERFACE, key="font-name", value=f"'{font} {size}'")
    ],
    solution=lambda font, size: terminal(f"gsettings set {INTERFACE} font-name '{font} {size}'"),
    platforms=PLATFORMS,
    apps=("terminal",),
)


SETTINGS_CURSOR_SIZE = SubTaskTemplate(
    id="settings_cursor_size",
    sets=V0_SETS,
    description=(
        "Make the mouse pointer bigger: set the GNOME interface setting cursor-size (schema "
        "org.gnome.desktop.interface) to {size}, for example with gsettings in a terminal."
    ),
    attributes={"size": "cursor_size"},
    evaluator=lambda size: [ev.gsetting_number(schema=INTERFACE, key="cursor-size", value=size)],
    solution=lambda size: terminal(f"gsettings set {INTERFACE} cursor-size {size}"),
    platforms=PLATFORMS,
    apps=("terminal",),
)

SETTINGS_ANIMATIONS_OFF = SubTaskTemplate(
    id="settings_animations_off",
    sets=V0_SETS,
    description=(
        "Turn off the desktop's animations: set the GNOME interface setting enable-animations (schema "
        "org.gnome.desktop.interface) to false, for example with gsettings in a terminal."
    ),
    attributes={},
    evaluator=lambda: [ev.gsetting_equals(schema=INTERFACE, key="enable-animations", value="false")],
    solution=lambda: terminal(f"gsettings set {INTERFACE} enable-animations false"),
    platforms=PLATFORMS,
    apps=("terminal",),
)

SETTINGS_CLOCK_FORMAT = SubTaskTemplate(
    id="settings_clock_format",
    sets=V0_SETS,
    description=(
        "Show the desktop clock in 12-hour format: set the GNOME interface setting clock-format (schema "
        "org.gnome.desktop.interface) to 12h, for example with gsettings in a terminal."
    ),
    attributes={},
    evaluator=lambda: [ev.gsetting_equals(schema=INTERFACE, key="clock-format", value="'12h'")],
    solution=lambda: terminal(f"gsettings set {INTERFACE} clock-format 12h"),
    platforms=PLATFORMS,
    apps=("terminal",),
)

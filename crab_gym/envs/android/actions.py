"""Android actions (the CRAB paper's Table 2 for Android); positions are normalised (x, y) points.

Parameter names share one type across devices: ``point`` and ``text`` are the desktop's, ``direction`` is the
core Direction, ``distance`` the core Distance; ``button`` is Android's own (desktop's ``key`` is
another set).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from crab_gym.core.actions import Direction, Distance, Point, TypedText, action
from crab_gym.envs.android.device import KEY_BACK, KEY_ENTER, KEY_HOME

if TYPE_CHECKING:
    from crab_gym.envs.android import AndroidEnv

Button = Literal["home", "back", "enter"]
BUTTON_KEYS = {"home": KEY_HOME, "back": KEY_BACK, "enter": KEY_ENTER}
# How far a swipe goes from the screen centre, as a fraction of the screen's height (up/down) or width.
SWIPE_FRACTION = {"short": 0.15, "medium": 0.3, "long": 0.45}
SWIPE_MS = 300


@action
def tap(env: AndroidEnv, point: Point) -> None:
    """Tap the screen at a point.

    Args:
        point: Where to tap, as (x, y) fractions of the screen width and height.
    """
    env.device.tap(*env.to_pixels(point))


@action
def long_tap(env: AndroidEnv, point: Point) -> None:
    """Touch and hold at a point (about 0.8 s): opens context actions, deletes list items in some apps.

    Args:
        point: Where to press, as (x, y) fractions of the screen width and height.
    """
    env.device.long_press(*env.to_pixels(point))


@action
def swipe(env: AndroidEnv, direction: Direction, distance: Distance = "medium") -> None:
    """Swipe a finger from the centre of the screen; "up" scrolls a list down and opens the app drawer.

    Args:
        direction: Which way the finger moves: "up", "down", "left" or "right".
        distance: How far the finger moves: "short", "medium" or "long".
    """
    w, h = env.screen_size
    cx, cy = w // 2, h // 2
    f = SWIPE_FRACTION[distance]
    dx, dy = {"up": (0, -f * h), "down": (0, f * h), "left": (-f * w, 0), "right": (f * w, 0)}[direction]
    env.device.swipe(cx, cy, int(round(cx + dx)), int(round(cy + dy)), SWIPE_MS)


@action
def write_text(env: AndroidEnv, text: TypedText) -> None:
    """Type text into the focused text field; a newline presses Enter.

    Args:
        text: The text to type, exactly.
    """
    for i, line in enumerate(text.split("\n")):
        if i:
            env.device.keyevent(KEY_ENTER)
        if line:
            env.device.text(line)


@action
def press(env: AndroidEnv, button: Button) -> None:
    """Press a navigation button or key.

    Args:
        button: "home" (go to the home screen), "back" (go back, close the keyboard or a dialog) or "enter".
    """
    env.device.keyevent(BUTTON_KEYS[button])


@action
def open_app_drawer(env: AndroidEnv) -> None:
    """Go to the home screen and open the app drawer, which lists every installed app."""
    w, h = env.screen_size
    env.device.keyevent(KEY_HOME)
    env.device.swipe(w // 2, int(h * 0.75), w // 2, int(h * 0.25), SWIPE_MS)


ACTIONS = (tap, long_tap, swipe, write_text, press, open_app_drawer)

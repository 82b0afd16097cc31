"""Desktop actions (the CRAB paper's Table 2 for Ubuntu, plus drag, move, holds); positions are normalised."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from crab_gym.core.actions import Bounds, Direction, InvalidAction, Point, Typable, TypedText, action
from crab_gym.envs.base import ActionResult
from crab_gym.envs.desktop.primitives.x11 import BUTTONS, KEYS

if TYPE_CHECKING:
    from crab_gym.envs.desktop import DesktopEnv

Key = Literal[KEYS]  # type: ignore[valid-type]  # a Literal of the key names X11 knows, built at run time
Keys = Annotated[list[Key], Bounds(min_length=1, max_length=4)]
Clicks = Annotated[int, Bounds(ge=1, le=10)]
Button = Literal["left", "middle", "right"]  # its params are "mouse_button": the phone's press has "button"
AppName = Annotated[str, Bounds(min_length=1, max_length=64), Typable]


@action
def click(env: DesktopEnv, point: Point) -> None:
    """Click the left mouse button at a point on the screen.

    Args:
        point: Where to click, as (x, y) fractions of the screen width and height.
    """
    env.x.click(*env.x.to_pixels(point))


@action
def right_click(env: DesktopEnv, point: Point) -> None:
    """Click the right mouse button at a point on the screen (opens context menus).

    Args:
        point: Where to click, as (x, y) fractions of the screen width and height.
    """
    env.x.click(*env.x.to_pixels(point), button=3)


@action
def double_click(env: DesktopEnv, point: Point) -> None:
    """Double-click the left mouse button at a point on the screen (opens files, selects words).

    Args:
        point: Where to double-click, as (x, y) fractions of the screen width and height.
    """
    env.x.click(*env.x.to_pixels(point), count=2)


@action
def middle_click(env: DesktopEnv, point: Point) -> None:
    """Click the middle mouse button at a point (pastes the primary selection, opens links in new tabs).

    Args:
        point: Where to click, as (x, y) fractions of the screen width and height.
    """
    env.x.click(*env.x.to_pixels(point), button=2)


@action
def triple_click(env: DesktopEnv, point: Point) -> None:
    """Triple-click the left mouse button at a point (selects a whole line or paragraph).

    Args:
        point: Where to triple-click, as (x, y) fractions of the screen width and height.
    """
    env.x.click(*env.x.to_pixels(point), count=3)


@action
def move(env: DesktopEnv, point: Point) -> None:
    """Move the mouse pointer to a point without clicking (hover).

    Args:
        point: Where to move, as (x, y) fractions of the screen width and height.
    """
    env.x.move(*env.x.to_pixels(point))


@action
def drag(env: DesktopEnv, start: Point, end: Point) -> None:
    """Press the left button at one point, move to another and release (drag and drop, select).

    Args:
        start: Where the drag starts, as (x, y) fractions of the screen.
        end: Where the drag ends, as (x, y) fractions of the screen.
    """
    env.x.drag(env.x.to_pixels(start), env.x.to_pixels(end))


@action
def write_text(env: DesktopEnv, text: TypedText) -> None:
    """Type text with the keyboard at the current focus; a newline presses Enter.

    Args:
        text: The text to type, exactly (any Unicode characters).
    """
    env.x.type_text(text)


@action
def press(env: DesktopEnv, key: Key) -> None:
    """Press and release one key.

    Args:
        key: The key name, e.g. "enter", "esc", "tab", "backspace", "up", "f5", "a".
    """
    env.x.key_combo([key])


@action
def hotkey(env: DesktopEnv, keys: Keys) -> None:
    """Press keys together, in order, then release them (a keyboard shortcut such as ctrl+s).

    Args:
        keys: The keys of the shortcut in order, e.g. ["ctrl", "s"] or ["ctrl", "shift", "t"].
    """
    env.x.key_combo(list(keys))


@action
def scroll(env: DesktopEnv, direction: Direction, amount: Clicks = 3) -> None:
    """Turn the mouse wheel where the pointer is.

    Args:
        direction: Which way the content moves into view: "up", "down", "left" or "right".
        amount: How many wheel clicks, 1 to 10.
    """
    env.x.scroll(direction, amount)


@action
def search_application(env: DesktopEnv, name: AppName) -> ActionResult:
    """Open the application launcher (Super key), search for an application by name and start it.

    Args:
        name: Words from the application's name, e.g. "terminal", "text editor", "writer".
    """
    if "\n" in name:
        raise InvalidAction("search_application: parameter 'name' must be one line")
    outcome = env.launch_from_launcher(name)
    return ActionResult(info={"opened_window": outcome == "window", "launch": outcome})


@action
def mouse_down(env: DesktopEnv, mouse_button: Button = "left") -> None:
    """Press a mouse button where the pointer is and keep it down (a later move drags; mouse_up releases).

    Args:
        mouse_button: "left", "middle" or "right".
    """
    env.hold_button(BUTTONS[mouse_button], True)


@action
def mouse_up(env: DesktopEnv, mouse_button: Button = "left") -> None:
    """Release a mouse button held by mouse_down, where the pointer is (ends a drag).

    Args:
        mouse_button: "left", "middle" or "right".
    """
    env.hold_button(BUTTONS[mouse_button], False)


@action
def key_down(env: DesktopEnv, key: Key) -> None:
    """Press one key and keep it down: later clicks and keys get it as a modifier (key_up releases it).

    Args:
        key: The key name, e.g. "shift", "ctrl", "alt", "a".
    """
    env.hold_key(key, True)


@action
def key_up(env: DesktopEnv, key: Key) -> None:
    """Release a key held by key_down.

    Args:
        key: The key name, as given to key_down.
    """
    env.hold_key(key, False)


ACTIONS = (
    click,
    right_click,
    double_click,
    move,
    drag,
    write_text,
    press,
    hotkey,
    scroll,
    search_application,
    middle_click,  # after the others: the action indices of the first ten stay as they were
    triple_click,
    mouse_down,  # held across steps; every reset releases them
    mouse_up,
    key_down,
    key_up,
)

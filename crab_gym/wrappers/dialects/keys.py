"""Key names as agents write them (xdotool keysyms, pyautogui names, OpenAI's CUA names) -> our key names.

The desktop's keys are the closed vocabulary of ``crab_gym.envs.desktop.primitives.x11.KEYS``; the phone
has three buttons (home, back, enter), reached by the key names that mean them.
"""

from __future__ import annotations

from crab_gym.core.actions import InvalidAction
from crab_gym.envs.desktop.primitives.x11 import KEYS

_KNOWN = frozenset(KEYS)

ALIASES: dict[str, str] = {
    # xdotool / X keysym names (lower-cased)
    "return": "enter", "kp_enter": "enter", "escape": "esc", "control_l": "ctrl", "control_r": "ctrl",
    "ctrl_l": "ctrl", "ctrl_r": "ctrl", "shift_l": "shift", "shift_r": "shift", "alt_l": "alt",
    "alt_r": "alt", "super_l": "super", "super_r": "super", "meta_l": "super", "meta_r": "super",
    "prior": "pageup", "next": "pagedown", "page_up": "pageup", "page_down": "pagedown",
    "caps_lock": "capslock", "print": "printscreen", "kp_delete": "delete", "back_space": "backspace",
    "grave": "`", "minus": "-", "equal": "=", "bracketleft": "[", "bracketright": "]", "backslash": "\\",
    "semicolon": ";", "apostrophe": "'", "comma": ",", "period": ".", "slash": "/",
    # pyautogui and OpenAI computer-use names
    "cmd": "super", "command": "super", "option": "alt", "altleft": "alt", "altright": "alt",
    "ctrlleft": "ctrl", "ctrlright": "ctrl", "shiftleft": "shift", "shiftright": "shift",
    "winleft": "super", "winright": "super", "pgup": "pageup", "pgdn": "pagedown", "arrowup": "up",
    "arrowdown": "down", "arrowleft": "left", "arrowright": "right", "prtsc": "printscreen",
    "prntscrn": "printscreen", "apps": "menu", "divide": "/", " ": "space",
}  # fmt: skip

PHONE_KEYS: dict[str, str] = {
    "enter": "enter", "home": "home", "esc": "back", "back": "back", "xf86back": "back",
    "xf86homepage": "home", "keycode_home": "home", "keycode_back": "back", "keycode_enter": "enter",
}  # fmt: skip
"""Key names that mean a phone button, after :data:`ALIASES` (``Escape`` goes back, ``Return`` is enter)."""

SHIFTED = dict(zip('~!@#$%^&*()_+{}|:"<>?', "`1234567890-=[]\\;',./", strict=True))


def desktop_keys(name: str) -> tuple[str, ...]:
    """Our key names for one key as an agent names it: ("ctrl",), ("shift", "a") for "A"; else
    InvalidAction naming the key."""
    if not isinstance(name, str) or not name:
        raise InvalidAction(f"a key name must be a non-empty string; got {name!r}")
    if len(name) == 1:
        if name.isupper():
            return ("shift", name.lower())
        if name in SHIFTED:
            return ("shift", SHIFTED[name])
        if name in _KNOWN:
            return (name,)
        raise InvalidAction(f"the desktop cannot press the key {name!r} (type it as text instead)")
    low = name.lower()
    key = ALIASES.get(low, low)
    if key in _KNOWN:
        return (key,)
    raise InvalidAction(
        f"unknown key {name!r}; keys are letters, digits, punctuation and {', '.join(KEYS[:40])}"
    )


def combo(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """One chord (keys held together) in our names, shift added for upper-case letters, duplicates dropped."""
    out: list[str] = []
    for n in names:
        for k in desktop_keys(n):
            if k not in out:
                out.append(k)
    return tuple(out)


def phone_button(name: str) -> str:
    """The phone button a key name means (home, back, enter), or InvalidAction."""
    low = name.lower() if isinstance(name, str) else ""
    button = PHONE_KEYS.get(ALIASES.get(low, low))
    if button is None:
        raise InvalidAction(
            f"the phone has no key {name!r}; its keys are Return (enter), Escape or Back (back) and Home"
        )
    return button

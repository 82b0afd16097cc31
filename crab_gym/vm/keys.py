"""Keys as QEMU sends them: key names and characters to QEMU key codes (qcodes) on the guest's US layout.

A character the layout lacks (``ü``, ``€``, ``中``) is typed on a keypad key whose keysym the guest's probe
agent changes for the moment (see :data:`SPARE_KEYS`), so every character still arrives as a key event
through QEMU.
"""

from __future__ import annotations

from crab_gym.envs.desktop.primitives.x11 import KEY_ALIASES, keysym_for_char

# Agent key names (crab_gym.envs.desktop.primitives.x11.KEYS) -> qcodes.
NAMED: dict[str, str] = {
    "enter": "ret", "return": "ret", "esc": "esc", "escape": "esc", "tab": "tab", "space": "spc",
    "backspace": "backspace", "delete": "delete", "del": "delete", "insert": "insert", "home": "home",
    "end": "end", "pageup": "pgup", "pagedown": "pgdn", "up": "up", "down": "down", "left": "left",
    "right": "right", "ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt", "super": "meta_l",
    "win": "meta_l", "meta": "meta_l", "capslock": "caps_lock", "printscreen": "print", "menu": "menu",
    **{f"f{i}": f"f{i}" for i in range(1, 13)},
}  # fmt: skip

# US layout: the unshifted character of each key, and what Shift gives.
_PLAIN = {
    "`": "grave_accent", "-": "minus", "=": "equal", "[": "bracket_left", "]": "bracket_right",
    "\\": "backslash", ";": "semicolon", "'": "apostrophe", ",": "comma", ".": "dot", "/": "slash",
    " ": "spc", "\n": "ret", "\t": "tab",
}  # fmt: skip
_SHIFTED = {
    "~": "grave_accent", "!": "1", "@": "2", "#": "3", "$": "4", "%": "5", "^": "6", "&": "7", "*": "8",
    "(": "9", ")": "0", "_": "minus", "+": "equal", "{": "bracket_left", "}": "bracket_right",
    "|": "backslash", ":": "semicolon", '"': "apostrophe", "<": "comma", ">": "dot", "?": "slash",
}  # fmt: skip

# Keypad keys (qcode, X keycode = evdev code + 8): agents never press them, so they carry the characters the
# layout lacks. Fifteen characters can be in flight at once.
SPARE_KEYS: tuple[tuple[str, int], ...] = (
    ("kp_0", 90), ("kp_1", 87), ("kp_2", 88), ("kp_3", 89), ("kp_4", 83), ("kp_5", 84), ("kp_6", 85),
    ("kp_7", 79), ("kp_8", 80), ("kp_9", 81), ("kp_decimal", 91), ("kp_add", 86), ("kp_subtract", 82),
    ("kp_multiply", 63), ("kp_divide", 106),
)  # fmt: skip


def qcode_for_name(name: str) -> tuple[str, bool]:
    """(qcode, shift) for a key name of the action vocabulary (or a single character); ValueError if none."""
    low = name.lower()
    if low in NAMED:
        return NAMED[low], False
    if len(name) == 1:
        found = qcode_for_char(name)
        if found is not None:
            return found
    if low in KEY_ALIASES:  # an X keysym name we have no qcode for
        raise ValueError(f"no QEMU key for {name!r}")
    raise ValueError(f"unknown key {name!r}")


def qcode_for_char(ch: str) -> tuple[str, bool] | None:
    """(qcode, shift) that types ``ch`` on a US layout, or None if the layout lacks it."""
    if "a" <= ch <= "z" or "0" <= ch <= "9":
        return ch, False
    if "A" <= ch <= "Z":
        return ch.lower(), True
    if ch in _PLAIN:
        return _PLAIN[ch], False
    if ch in _SHIFTED:
        return _SHIFTED[ch], True
    return None


def keysym(ch: str) -> int:
    """The X keysym of a character (Latin-1 as itself, others as 0x01000000 + code point)."""
    return keysym_for_char(ch)


def key_event(qcode: str, down: bool) -> dict:
    return {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}

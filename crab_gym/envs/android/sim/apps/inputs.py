"""Input to the phone: touches (tap, long press, swipe), typed text and key events, as functions of the phone
(``Phone.tap`` and its siblings call them). A handler an app set runs guarded: a failure crashes that app."""

from __future__ import annotations

from ..system import overlays, power
from ..system.keycodes import KEYCODES
from ..ui.view import View
from . import recents, systemui

__all__ = ["LONG_PRESS_MS", "TAP_SLOP", "hit", "keyevent", "long_press", "swipe", "tap", "text"]

LONG_PRESS_MS = 500
TAP_SLOP = 24


def hit(phone, x: float, y: float, want) -> View | None:
    """The topmost enabled view under (x, y) that ``want`` accepts."""
    found = None
    for v in phone.ui_tree().walk():  # later in the walk = drawn on top
        if v.enabled and want(v) and v.contains(x, y):
            found = v
    return found


def tap(phone, x: float, y: float) -> None:
    """A tap: a click on what is under it (outside the open shade: closes it; a system dialog is modal)."""
    with phone.lock:
        phone.last_touch = (x, y)
        if phone.shade_open and phone.status_h + phone.width / 1080 * 900 <= y < phone.height - phone.nav_h:
            phone.shade_open = False  # a tap outside the shade closes it
            phone.invalidate()
            return
        v = hit(phone, x, y, lambda v: v.clickable)
        if overlays.dialog_up(phone) and (v is None or v.package not in overlays.PACKAGES.values()):
            return  # a system dialog is modal: the app under its scrim gets no touch
        if v is not None and v.on_click is not None:
            phone._guarded(v.on_click)
            phone.invalidate()


def long_press(phone, x: float, y: float) -> None:
    """A long press: the long click of what is under it."""
    with phone.lock:
        phone.last_touch = (x, y)
        v = hit(phone, x, y, lambda v: v.long_clickable and v.on_long_click is not None)
        if v is not None:
            phone._guarded(v.on_long_click)
            phone.invalidate()


def swipe(phone, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
    """A swipe (the power, overlay and system UI gestures first, then a scroll or the app's swipe); one that
    barely moves is a tap, or a long press if it lasted long enough."""
    with phone.lock:
        if abs(x2 - x1) < TAP_SLOP and abs(y2 - y1) < TAP_SLOP:
            if duration_ms >= LONG_PRESS_MS:
                phone.long_press(x1, y1)
            else:
                phone.tap(x1, y1)
            return
        act = phone.current
        if (
            power.swipe(phone, x1, y1, x2, y2)
            or overlays.swipe(phone, x1, y1, x2, y2)
            or systemui.swipe(phone, x1, y1, x2, y2)
        ):
            phone.invalidate()
            return
        v = hit(phone, x1, y1, lambda v: v.scrollable)
        if v is not None and v.scroll_key:
            scroll = act.state.setdefault("scroll", {})
            scroll[v.scroll_key] = max(0, scroll.get(v.scroll_key, 0) + int(y1 - y2))
        else:
            handler = act.state.get("on_swipe")
            if handler:
                phone._guarded(handler, x1, y1, x2, y2)
        phone.invalidate()


def text(phone, s: str) -> None:
    """Type ``s`` into the focused field (nothing while asleep, locked or under a system dialog)."""
    with phone.lock:
        act = phone.current
        key = act.state.get("focus")
        if key is None or not phone.awake or phone.locked or overlays.dialog_up(phone):
            return
        fields = act.state.setdefault("fields", {})
        fields[key] = fields.get(key, "") + s
        phone.invalidate()


def keyevent(phone, code: int | str) -> None:
    """A key by code or name ("KEYCODE_" optional): HOME, BACK, ENTER, DEL, SPACE, APP_SWITCH, power keys."""
    with phone.lock:
        if isinstance(code, str):
            name = code.upper().removeprefix("KEYCODE_")
            code = int(name) if name.isdigit() else KEYCODES.get(name, -1)
            if code == -1:
                raise ValueError(f"unknown keycode {name!r}; e.g. {', '.join(list(KEYCODES)[:8])}")
        if power.key(phone, code) or overlays.key(phone, code):  # power keys; BACK under a dialog
            return
        act = phone.current
        key = act.state.get("focus")
        fields = act.state.setdefault("fields", {})
        if code == 3:
            phone.home()
        elif code in (4, 111):
            phone.back()
        elif code == 66 and key is not None:
            handler = phone.ui_tree() and phone.enter_handlers.get(key)
            if handler:
                phone._guarded(handler)
        elif code == 67 and key is not None:
            fields[key] = fields.get(key, "")[:-1]
        elif code == 62 and key is not None:
            fields[key] = fields.get(key, "") + " "
        elif code == 187:  # APP_SWITCH: overview
            recents.show(phone)
        phone.invalidate()

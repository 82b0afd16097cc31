"""X11 primitives for one display: XTEST input, mss frames, window queries, damage-based settling.

One ``X11Display`` per display and per process: python-xlib and mss connections are not shared
between displays, so several sessions can live side by side in one process.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import mss
import numpy as np
from Xlib import XK, X, display
from Xlib.ext import damage, xtest

from crab_gym.envs.desktop.primitives.x11_windows import WindowInfo, WindowReader

# Key names agents use (pyautogui-like) -> X keysym names.
KEY_ALIASES: dict[str, str] = {
    "enter": "Return",
    "return": "Return",
    "esc": "Escape",
    "escape": "Escape",
    "tab": "Tab",
    "space": "space",
    "backspace": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pagedown": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "ctrl": "Control_L",
    "control": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "super": "Super_L",
    "win": "Super_L",
    "meta": "Super_L",
    "capslock": "Caps_Lock",
    "printscreen": "Print",
    "menu": "Menu",
}
KEY_ALIASES.update({f"f{i}": f"F{i}" for i in range(1, 13)})

# The closed vocabulary of keys for `press`/`hotkey` (the action space indexes this tuple).
KEYS: tuple[str, ...] = (
    tuple(dict.fromkeys(KEY_ALIASES))
    + tuple("abcdefghijklmnopqrstuvwxyz")
    + tuple("0123456789")
    + tuple("`-=[]\\;',./")
)

_PUNCT_KEYSYMS = {
    "`": "grave",
    "-": "minus",
    "=": "equal",
    "[": "bracketleft",
    "]": "bracketright",
    "\\": "backslash",
    ";": "semicolon",
    "'": "apostrophe",
    ",": "comma",
    ".": "period",
    "/": "slash",
}

BUTTONS = {"left": 1, "middle": 2, "right": 3}
MULTI_CLICK_TIME = 0.25  # s; the session's double-click time is 0.2 s (gtk-3.0/settings.ini, openbox rc.xml)
# Once a settle has seen the session take a press (nothing runnable, idle), the next gesture waits only this
# long from then: GDK compares the X server's timestamps of two presses (the earlier one stamped before that
# settle began, the next after we send it; the server's clock is CLOCK_MONOTONIC in ms, as ours), and GTK's
# multi-press gesture ends a click's count by a timer it armed when it took the press (before the settle's
# end). So it is the session's 200 ms double-click time plus 10 ms for the server clock's rounding. Without
# such a settle the wait counts MULTI_CLICK_TIME from the press, whose timer an app starved of CPU arms later.
MULTI_CLICK_AFTER_SETTLE = 0.21
MULTI_CLICK_DISTANCE = 5  # px; GTK's default double-click distance
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}


def keysym_for_name(name: str) -> int:
    """Keysym of a key name (alias, X keysym name or single character); 0 if unknown."""
    key = KEY_ALIASES.get(name.lower(), name) if len(name) > 1 else name
    if len(key) == 1:
        return keysym_for_char(key)
    return XK.string_to_keysym(key)


def keysym_for_char(ch: str) -> int:
    """Keysym of one character (Latin-1 maps to itself, other code points to 0x01000000 + cp)."""
    if ch == "\n":
        return XK.string_to_keysym("Return")
    if ch == "\t":
        return XK.string_to_keysym("Tab")
    if ch in _PUNCT_KEYSYMS:
        return XK.string_to_keysym(_PUNCT_KEYSYMS[ch])
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 + cp


class X11Display:
    """Input, frames and window facts for one X display."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._d = display.Display(name)
        self._root = self._d.screen().root
        geom = self._root.get_geometry()
        self.size = (int(geom.width), int(geom.height))
        # mss's first start in a process loads libxcb and its extensions through ctypes.util.find_library
        # (an ldconfig run each, ~20 ms): made in a thread, it is ready by the first frame.
        starting = ThreadPoolExecutor(1, thread_name_prefix="mss-start")
        self._mss: Future[mss.MSS] = starting.submit(mss.MSS, display=name)
        starting.shutdown(wait=False)  # its thread ends with the grabber made
        self._monitor = {"left": 0, "top": 0, "width": self.size[0], "height": self.size[1]}
        self._windows = WindowReader(self._d)
        self._spare_keycodes = self._find_spare_keycodes()
        self._remapped: dict[int, int] = {}  # keysym -> spare keycode
        self._last_press: tuple[float, int, int] | None = None  # (when a new gesture may start, x, y)
        self._press_taken = True  # a settle saw the session take the last press
        self._damage = None
        # The window manager announces focus changes on the root window: the answer of active_is_dialog()
        # holds until then.
        self._focus_atoms = {self._d.intern_atom(a) for a in ("_NET_ACTIVE_WINDOW", "_NET_CLIENT_LIST")}
        self._root.change_attributes(event_mask=X.PropertyChangeMask)
        self._dialog: bool | None = None
        if self._d.has_extension("DAMAGE"):
            self._d.damage_query_version()
            self._damage = self._root.damage_create(damage.DamageReportNonEmpty)
            self._damage_event = self._d.extension_event.DamageNotify
        self._d.sync()

    # ---- frames -------------------------------------------------------------------------------
    def grab(self) -> np.ndarray:
        """The whole screen as (H, W, 3) uint8 RGB: three strided channel copies out of the BGRX frame
        (2-5x faster than Pillow's decode, whose array view costs two more copies through ``tobytes``)."""
        shot = self._mss.result().grab(self._monitor)
        w, h = shot.size
        bgrx = np.frombuffer(shot.raw, np.uint8).reshape(h, w, 4)
        rgb = np.empty((h, w, 3), np.uint8)
        for c in range(3):
            rgb[..., c] = bgrx[..., 2 - c]
        return rgb

    def settle(
        self,
        quiet: float = 0.03,
        timeout: float = 2.0,
        busy: Callable[[], bool] | None = None,
        poll: float = 0.01,
    ) -> bool:
        """Wait until ``quiet`` seconds pass with no screen damage and, if given, ``busy()`` false.

        ``busy`` is asked every ``poll`` seconds (e.g. "did the session's processes use CPU since the last
        call?"), so an app that computes before it draws (a dialog being built) is waited for too.
        Bounded by ``timeout``; True if the screen settled (a click before it counts as taken by the app
        then: see MULTI_CLICK_AFTER_SETTLE). Every input method here ends with a round trip, so the input
        has reached the server already (its clients' wake-ups are what ``busy`` sees): a flush sends what
        else is queued, without another round trip (about 2 ms of a 20 ms click step under load).
        """
        self._d.flush()
        start = last = time.monotonic()
        next_poll = start + poll
        fd = self._d.fileno()
        while True:
            now = time.monotonic()
            if self._drain_events() and self._damage is not None:
                last = now
            if busy is not None and now >= next_poll:
                next_poll = now + poll
                if busy():
                    last = now
            if now - last >= quiet:
                if self._last_press is not None and not self._press_taken and busy is not None:
                    _, lx, ly = self._last_press
                    self._last_press, self._press_taken = (now + MULTI_CLICK_AFTER_SETTLE, lx, ly), True
                return True
            if now - start >= timeout:
                return False
            wait = min(quiet - (now - last), timeout - (now - start), max(next_poll - now, 0.001))
            select.select([fd], [], [], max(wait, 0.0))

    def _drain_events(self) -> bool:
        """Read the queued events: True if the screen was drawn on (damage); a focus change forgets the
        answer of :meth:`active_is_dialog`."""
        seen = False
        while self._d.pending_events():
            ev = self._d.next_event()
            if self._damage is not None and ev.type == self._damage_event:
                seen = True
            elif ev.type == X.PropertyNotify and ev.atom in self._focus_atoms:
                self._dialog = None
        if seen:
            self._d.damage_subtract(self._damage)
            self._d.sync()
        return seen

    # ---- input --------------------------------------------------------------------------------
    def to_pixels(self, point: tuple[float, float]) -> tuple[int, int]:
        w, h = self.size
        return min(int(point[0] * w), w - 1), min(int(point[1] * h), h - 1)

    def move(self, x: int, y: int) -> None:
        xtest.fake_input(self._d, X.MotionNotify, x=x, y=y)
        self._d.sync()

    def button(self, button: int, down: bool) -> None:
        xtest.fake_input(self._d, X.ButtonPress if down else X.ButtonRelease, button)
        self._d.sync()

    def click(self, x: int, y: int, button: int = 1, count: int = 1) -> None:
        """``count`` presses at (x, y), as one gesture that toolkits never merge with an earlier click.

        Toolkits count presses less than the double-click time apart as one multi-click: a click on the
        same spot right after another would become a double-click, and a double-click right after any
        click is not seen as one (measured with GTK). So such a click waits out the rest of that time.
        The session's double-click time is 200 ms (GTK, openbox), which keeps the wait small.
        """
        if self._last_press is not None:
            free_at, lx, ly = self._last_press
            near = abs(lx - x) <= MULTI_CLICK_DISTANCE and abs(ly - y) <= MULTI_CLICK_DISTANCE
            if count > 1 or near:
                time.sleep(max(0.0, free_at - time.monotonic()))
        xtest.fake_input(self._d, X.MotionNotify, x=x, y=y)  # one round trip with the presses below
        for _ in range(count):
            xtest.fake_input(self._d, X.ButtonPress, button)
            xtest.fake_input(self._d, X.ButtonRelease, button)
        self._d.sync()
        self._last_press, self._press_taken = (time.monotonic() + MULTI_CLICK_TIME, x, y), False

    def drag(self, start: tuple[int, int], end: tuple[int, int], steps: int = 10) -> None:
        self.move(*start)
        self.button(1, True)
        for i in range(1, steps + 1):
            t = i / steps
            self.move(round(start[0] + (end[0] - start[0]) * t), round(start[1] + (end[1] - start[1]) * t))
            time.sleep(0.005)
        self.button(1, False)

    def scroll(self, direction: str, clicks: int) -> None:
        b = SCROLL_BUTTONS[direction]
        for _ in range(clicks):
            xtest.fake_input(self._d, X.ButtonPress, b)
            xtest.fake_input(self._d, X.ButtonRelease, b)
        self._d.sync()

    def key_combo(self, names: list[str]) -> None:
        """Press keys in order, release in reverse (a hotkey; one name is a plain key press)."""
        codes = [self._keycode_for(keysym_for_name(n), n) for n in names]
        self._keys(codes, True)
        self._keys(codes, False)
        self._d.sync()

    def key(self, name: str, down: bool) -> None:
        """Press or release one key without the other half (Shift with it if its keysym needs Shift)."""
        self._keys([self._keycode_for(keysym_for_name(name), name)], down)
        self._d.sync()

    def _keys(self, codes: list[tuple[int, bool]], down: bool) -> None:
        """Press ``codes`` in order, or release them in reverse; a shifted one goes with Shift."""
        shift = self._keycode_for(XK.XK_Shift_L, "shift")[0]
        for code, shifted in codes if down else reversed(codes):
            events = [shift, code] if shifted else [code]
            for c in events if down else reversed(events):
                xtest.fake_input(self._d, X.KeyPress if down else X.KeyRelease, c)

    def type_text(self, text: str, delay: float = 0.0) -> None:
        """Type text exactly, including characters absent from the keymap (they get a spare keycode)."""
        shift_code = self._keycode_for(XK.XK_Shift_L, "shift")[0]
        for ch in text:
            code, shift = self._keycode_for(keysym_for_char(ch), ch)
            if shift:
                xtest.fake_input(self._d, X.KeyPress, shift_code)
            xtest.fake_input(self._d, X.KeyPress, code)
            xtest.fake_input(self._d, X.KeyRelease, code)
            if shift:
                xtest.fake_input(self._d, X.KeyRelease, shift_code)
            if delay:
                self._d.sync()
                time.sleep(delay)
        self._d.sync()

    def _keycode_for(self, keysym: int, label: str) -> tuple[int, bool]:
        if keysym == 0:
            raise ValueError(f"unknown key {label!r}")
        for code, index in self._d.keysym_to_keycodes(keysym):
            if index in (0, 1):
                return code, index == 1
        return self._remap(keysym), False

    def _find_spare_keycodes(self) -> list[int]:
        first = self._d.display.info.min_keycode
        count = self._d.display.info.max_keycode - first + 1
        mapping = self._d.get_keyboard_mapping(first, count)
        return [first + i for i, syms in enumerate(mapping) if not any(syms)][-8:]

    def _remap(self, keysym: int) -> int:
        if keysym in self._remapped:
            return self._remapped[keysym]
        if not self._spare_keycodes:
            raise ValueError("no spare keycode to type this character")
        code = self._spare_keycodes[len(self._remapped) % len(self._spare_keycodes)]
        for old, c in list(self._remapped.items()):
            if c == code:
                del self._remapped[old]
        self._d.change_keyboard_mapping(code, [(keysym, keysym)])
        self._d.sync()
        self._remapped[keysym] = code
        return code

    # ---- windows ------------------------------------------------------------------------------
    def windows(self) -> list[WindowInfo]:
        """Client windows managed by the window manager, bottom to top."""
        return self._windows.windows()

    def viewable_of_class(self, name: str) -> bool:
        """True if a top-level window of WM_CLASS ``name`` is viewable (also an unmanaged one, as rofi's)."""
        return self._windows.viewable_of_class(name)

    def active_window(self) -> WindowInfo | None:
        return self._windows.active_window()

    def active_is_dialog(self) -> bool:
        """True if the focused window is a dialog (``WindowInfo.dialog``). One round trip while the window
        manager announced no change of focus since the last answer (seven to read the window anew)."""
        self._d.sync()
        self._drain_events()
        if self._dialog is None:
            win = self._windows.active_window()
            self._dialog = win is not None and win.dialog
        return self._dialog

    def set_background(self, rgb: tuple[int, int, int]) -> None:
        """Paint the root window a solid colour (what an empty desktop shows)."""
        cmap = self._d.screen().default_colormap
        pixel = cmap.alloc_color(*(c * 257 for c in rgb)).pixel
        self._root.change_attributes(background_pixel=pixel)
        self._root.clear_area(0, 0, 0, 0)
        self._d.sync()

    @property
    def connection(self) -> display.Display:
        """This display's python-xlib connection, for one-off requests of the session's own start (the panel's
        strut): opening another costs ~20-35 ms of round trips and Python."""
        return self._d

    def root_properties(self) -> set[int]:
        return set(self._root.list_properties())

    def restore_root_properties(self, keep: set[int]) -> None:
        """Delete root window properties that clients left behind (e.g. a dead AT-SPI bus address)."""
        for atom in self._root.list_properties():
            if atom not in keep:
                self._root.delete_property(atom)
        self._d.sync()

    def wm_running(self) -> bool:
        return self._windows.wm_running()

    def sync(self) -> None:
        self._d.sync()

    def close(self) -> None:
        """Close both connections; never raises (the server may already be gone)."""
        for closer in (lambda: self._mss.result().close(), self._d.close):
            try:
                closer()
            except Exception:  # noqa: BLE001 - a dead server's connections still count as closed
                pass

    @staticmethod
    def socket_path(number: int) -> str:
        return os.path.join("/tmp/.X11-unix", f"X{number}")

"""The desktop sub-env ("ubuntu"): a real X session with real Debian applications."""

from __future__ import annotations

import contextlib
import copy
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from mss.exception import ScreenShotError
from Xlib.error import ConnectionClosedError, DisplayError, XError

from crab_gym.core.actions import ActionSpec
from crab_gym.envs.backend_spec import BackendSpec, parse_backend
from crab_gym.envs.base import ActionResult, DeviceError, SubEnv, UIElement, clip_box
from crab_gym.envs.desktop.a11y_geometry import screen_boxes
from crab_gym.envs.desktop.actions import ACTIONS
from crab_gym.envs.desktop.backends import make_session, session_class
from crab_gym.envs.desktop.backends.base import DesktopSession, Display, Launch
from crab_gym.envs.desktop.primitives.apps import APPS
from crab_gym.envs.desktop.replay import frame_digest, replay
from crab_gym.envs.desktop.state import DesktopState
from crab_gym.envs.state import Replay, StateError
from crab_gym.envs.state import Stateful as StatefulSession

# Roles an agent can act on, for ui_elements().
INTERACTIVE_ROLES = frozenset(
    {
        "push button", "toggle button", "check box", "radio button", "menu item", "check menu item",
        "radio menu item", "menu", "combo box", "text", "entry", "password text", "link", "page tab",
        "list item", "icon", "spin button", "slider", "tree item", "table cell", "toggle", "button",
    }
)  # fmt: skip

# What a dying X server or session looks like from here; all of it becomes DeviceError. (mss's XCB
# layer asserts on a connection the server has closed, hence AssertionError.)
DEVICE_FAILURES = (
    XError, ConnectionClosedError, DisplayError, ScreenShotError, OSError, subprocess.SubprocessError,
    AssertionError,
)  # fmt: skip


@contextlib.contextmanager
def _device_errors(what: str) -> Iterator[None]:
    try:
        yield
    except DeviceError:
        raise
    except DEVICE_FAILURES as e:
        raise DeviceError(f"desktop {what} failed: {type(e).__name__}: {e}") from e


# Keyboard input can arm a toolkit timer whose effect no screen or CPU signal announces: a GTK file
# chooser enables its Save button about 150 ms after a name is typed, and Enter before that is lost. After
# a keyboard action into a dialog (what the window manager reports of the focused window: EWMH type
# DIALOG or transient) the screen must stay quiet this long to count as settled (measured with mousepad's
# Save As dialog: settle with the default window returned 130 ms before the button changed). And Enter
# there activates the default button as a key would: GTK draws it pressed, then clicks it 250 ms later
# (gtkbutton.c ACTIVATE_TIMEOUT) with nothing drawn or computed between, so the quiet exceeds that with
# room for a loaded machine (0.25 lost the save 4 runs in 12 on a busy disk). Into any other window (a
# terminal, an editor, a spreadsheet) a key's effect shows as drawing, CPU, a runnable thread or a timer due
# soon at once, so a short quiet does (as after a click; 20 ms, also in a VM, whose probe sees CPU only).
KEYBOARD_ACTIONS = frozenset({"write_text", "press", "hotkey", "key_down", "key_up"})
KEYBOARD_QUIET = 0.35
KEYBOARD_QUIET_PLAIN = 0.02
# Keys that make a chord a command (ctrl+s, alt+f4, super): a command may open a dialog in any window,
# late on a loaded machine (see _keyboard_quiet). Without one of them a chord is typing (shift+a, "a b").
SUPER_KEYS = frozenset({"super", "win", "meta"})  # a command alone: openbox starts the launcher on Super
COMMAND_MODIFIERS = frozenset({"ctrl", "control", "alt"}) | SUPER_KEYS


class DesktopEnv(SubEnv):
    """A Linux desktop: openbox, rofi (Super), xfce4-terminal, mousepad, thunar, vim, LibreOffice and GIMP.

    ``backend`` (a string or a parsed :class:`~crab_gym.envs.backend_spec.BackendSpec`) picks the session
    the desktop runs in: ``"xvfb"`` (an X server on this machine) or ``"libvirt[:<domain>][@<uri>]"`` (a
    VM). Everything here goes through the :class:`~crab_gym.envs.desktop.backends.base.DesktopSession`
    contract, as the phone's sub-env goes through a ``Device``.
    """

    name = "ubuntu"
    actions = ACTIONS

    def __init__(self, backend: str | BackendSpec = "xvfb", size: tuple[int, int] = (1280, 800)) -> None:
        self.spec = backend if isinstance(backend, BackendSpec) else parse_backend("ubuntu", backend)
        self.backend = self.spec.text
        self.description = session_class(self.spec).description
        self._size = size
        self.session: DesktopSession | None = None
        self._keyboard = False  # the last action was keyboard input (see _keyboard_quiet)
        self._command = False  # ... and a command chord (see COMMAND_MODIFIERS), which may open a dialog
        self._state: DesktopState | None = None
        self._held_buttons: list[int] = []  # held by mouse_down (keys by key_down); released at reset, close
        self._held_keys: list[str] = []
        self._seed: int | None = None
        self._done: list[tuple[str, dict[str, Any]]] = []  # actions since reset, for a Replay state

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._size

    @property
    def x(self) -> Display:
        if self.session is None or self.session.x is None:
            raise DeviceError("the desktop is not running: call reset() first")
        return self.session.x

    def reset(self, seed: int | None = None) -> None:
        self._release_held()
        self._state = None
        self._seed, self._done = seed, []
        self._keyboard = self._command = False
        if self.session is not None and self.session.outgrown():
            self.session.close()  # e.g. its X server grew past XVFB_GROWTH_MB: a fresh one below
            self.session = None
        if self.session is not None:
            try:
                self.session.reset()
                return
            except (DeviceError, OSError):
                self.session.close()  # a dead session (X server, VM) is rebuilt below
                self.session = None
        self.session = make_session(self.spec, self._size)
        try:
            self.session.start()
        except BaseException:
            self.session.close()
            self.session = None
            raise

    def execute(self, spec: ActionSpec, params: Mapping[str, Any]) -> ActionResult:
        self._keyboard = spec.name in KEYBOARD_ACTIONS
        self._command = self._keyboard and _is_command(spec.name, params, self._held_keys)
        self._done.append((spec.name, copy.deepcopy(dict(params))))
        with _device_errors(spec.name):
            return super().execute(spec, params)

    def screenshot(self) -> np.ndarray:
        with _device_errors("screenshot"):
            return self.x.grab()

    def settle(self, quiet: float | None = None, timeout: float = 3.0) -> None:
        """Return once, for ``quiet`` seconds, nothing was drawn and no session process used CPU.

        Drawing alone is not enough: an app builds a dialog (CPU, no pixels) for 0.1-0.3 s after a key.
        ``quiet`` defaults to the session's ``settle_quiet`` (4 ms on xvfb, whose probe also sees runnable
        threads and timers due soon; 20 ms in a VM); after keyboard input, to KEYBOARD_QUIET while a dialog
        has focus, else KEYBOARD_QUIET_PLAIN, and then KEYBOARD_QUIET again if the key opened a dialog
        (its toolkit is still filling it: a file chooser loads its folder). Bounded by ``timeout`` (both
        stretched by a slow session itself).
        """
        with _device_errors("settle"):
            s = self._session()
            s.check()
            if quiet is not None or not self._keyboard:
                s.settle(s.settle_quiet if quiet is None else quiet, timeout)
                return
            quiet = self._keyboard_quiet()
            s.settle(quiet, timeout)
            if quiet < KEYBOARD_QUIET and self._keyboard_quiet() == KEYBOARD_QUIET:
                s.settle(KEYBOARD_QUIET, timeout)

    def _keyboard_quiet(self) -> float:
        """The quiet a keyboard action needs: long in a dialog, whose toolkit may arm a timer (see
        KEYBOARD_QUIET), and after a command chord (see :func:`_is_command`; ctrl+s: under load LibreOffice
        paused longer than the short quiet between the key and its Save dialog, 1 step in 12 beside a CPU
        hog); short elsewhere."""
        if self._command:
            return KEYBOARD_QUIET
        return KEYBOARD_QUIET if self.x.active_is_dialog() else KEYBOARD_QUIET_PLAIN

    def state(self) -> DesktopState:
        if self._state is None:
            self._state = DesktopState(self._session())
        return self._state

    def invalidate_state(self) -> None:
        self._state = None

    def ui_elements(self) -> list[UIElement]:
        out = []
        nodes = self.state().a11y()
        for n, box in zip(nodes, screen_boxes(nodes), strict=True):
            if n["role"] not in INTERACTIVE_ROLES or not box or "showing" not in n["states"]:
                continue
            x, y, bw, bh = box
            clipped = clip_box((x, y, x + bw, y + bh), self._size)
            if clipped is not None:
                out.append(UIElement(clipped, n["role"], n["name"], source="atspi"))
        return out

    def identity(self) -> dict[str, Any]:
        """What tells this desktop apart: the X display and its Xvfb's pid, or the VM's domain and URI
        (empty before the first reset)."""
        return self.session.identity() if self.session is not None else {}

    def save_state(self) -> Any:
        """The session's own state if it can save one (a VM's snapshot, libvirt), else a
        :class:`~crab_gym.envs.state.Replay` of the actions since the task's setup and a digest of the screen
        now (see :mod:`crab_gym.envs.desktop.replay`)."""
        session = self._session()
        if isinstance(session, StatefulSession):
            return session.save_state()
        with _device_errors("save_state"):
            return Replay(self._seed, tuple(copy.deepcopy(self._done)), frame_digest(self.screenshot()))

    def load_state(self, state: Any) -> None:
        """Load a VM snapshot; or replay a Replay's actions on this desktop, which the caller has reset and
        set the task up on, and check its screen: RestoreError when it differs from the save's."""
        session = self._session()
        if isinstance(state, Replay):
            with _device_errors("load_state"):
                replay(self, state)
        elif isinstance(session, StatefulSession):
            self._release_held()
            session.load_state(state)
        else:
            raise StateError(f"ubuntu ({self.backend}): not a state of this desktop ({type(state).__name__})")
        self._state = None

    def close(self) -> None:
        self._release_held()
        if self.session is not None:
            self.session.close()
            self.session = None
        self._state = None

    # ---- primitives used by actions and task setups -----------------------------------------
    def hold_button(self, button: int, down: bool) -> None:
        """Press (``down``) or release a mouse button where the pointer is, and remember what stays held."""
        self.x.button(button, down)
        _track(self._held_buttons, button, down)

    def hold_key(self, key: str, down: bool) -> None:
        """Press (``down``) or release one key, and remember what stays held."""
        self.x.key(key, down)
        _track(self._held_keys, key, down)

    def _release_held(self) -> None:
        """Release every held key and button, latest first; never raises (a dead session holds nothing)."""
        keys, buttons = self._held_keys, self._held_buttons
        self._held_keys, self._held_buttons = [], []
        if self.session is None or self.session.x is None or not (keys or buttons):
            return
        x = self.session.x
        with contextlib.suppress(DeviceError, ValueError, *DEVICE_FAILURES):
            for key in reversed(keys):
                x.key(key, False)
            for button in reversed(buttons):
                x.button(button, False)

    def launch_from_launcher(self, name: str, startup: float = 40.0) -> str:
        """Super -> type the name -> Enter in rofi; what the launch did (a :data:`launch.Outcome`, or
        "no_launcher"/"no_match"). Waits for an app's start-up only while it works (see LaunchWatch)."""
        s = self._session()
        watch = s.launch_watch()
        self.x.key_combo(["super"])
        if not self.await_launcher(watch):
            return "no_launcher"
        self.x.type_text(name)
        self.settle(quiet=KEYBOARD_QUIET_PLAIN, timeout=1.0)
        self.x.key_combo(["enter"])
        outcome = self.await_launch(watch, startup)
        if outcome == "no_match":
            self._close_launcher()
        return outcome

    def launcher_watch(self) -> Launch:
        """A watch on what the launcher opens or starts, taken before an agent's keys (Super, or Enter in the
        launcher) open an app as search_application does; see :meth:`await_launcher`, :meth:`await_launch`."""
        return self._session().launch_watch()

    def await_launch(self, watch: Launch, startup: float = 40.0) -> str:
        """After Enter in the launcher: what it started (a :data:`launch.Outcome`, or "no_match" while the
        launcher stays open), waiting for an app's start-up only while it works (see LaunchWatch)."""
        s = self._session()
        # The bound only ends a launcher that keeps working: one that waits on a busy disk (its history
        # file) or for a CPU is not idle, and may take seconds to exit on a loaded machine.
        if not s.launcher_exits(idle_for=0.2, bound=10.0):
            return "no_match"
        started = time.monotonic()
        outcome = watch.wait(startup=startup)
        if outcome == "window":
            # The new app draws and goes idle: within what is left of its start-up time (at least 10 s),
            # since input sent while it still starts up can be lost (LibreOffice in a VM under TCG maps
            # its window about a minute before it takes input).
            self.settle(quiet=0.2, timeout=max(10.0, startup - (time.monotonic() - started) / s.slowdown))
        return outcome

    def open_app(self, app: str, *args: str, timeout: float = 40.0) -> None:
        """Task setup: start a known application (by key of APPS) and wait for its window."""
        if app not in APPS:
            raise ValueError(f"unknown app {app!r}; known: {sorted(APPS)}")
        s = self._session()
        before = {w.wid for w in self.x.windows()}
        s.spawn_app(app, args)
        if not self._await_new_window(before, timeout):
            raise DeviceError(f"{app} opened no window within {timeout * s.slowdown:.0f} s")

    def set_clipboard(self, text: str, timeout: float = 5.0) -> None:
        """Task setup: put ``text`` on the session's clipboard (as if an app had copied it)."""
        s = self._session()
        path = "~/.cache/crab-clipboard.txt"
        s.write_file(path, text.encode())
        s.spawn_app("clipboard", [str(s.resolve(path))])
        deadline = time.monotonic() + timeout * s.slowdown
        while time.monotonic() < deadline:
            self.invalidate_state()
            if self.state().clipboard().rstrip("\n") == text.rstrip("\n"):
                return
            time.sleep(0.05)
        raise DeviceError(f"the clipboard did not take the text within {timeout * s.slowdown:.0f} s")

    def write_file(self, path: str, content: str | bytes) -> None:
        """Task setup: create a file in the session (owned by the session user)."""
        data = content.encode() if isinstance(content, str) else content
        self._session().write_file(path, data)

    def _session(self) -> DesktopSession:
        if self.session is None:
            raise DeviceError("the desktop is not running: call reset() first")
        return self.session

    def launcher_up(self) -> bool:
        """The launcher (rofi) runs."""
        return any(p.name == "rofi" for p in self._session().processes())

    def _close_launcher(self) -> None:
        """End the launcher left open after Enter on no match: rofi's error box there ignores keys (an Esc
        only cost a wait for rofi to sit idle), and rofi closed without a launch saves nothing, so it is
        ended by SIGTERM as an Esc would end it."""
        s = self._session()
        for p in s.processes():
            if p.name == "rofi":
                s.kill(p.pid, signal.SIGTERM)
        self._wait(lambda: not self.launcher_up(), 1.0 * s.slowdown, poll=0.005)
        self.settle(timeout=1.0)

    def await_launcher(self, watch: Launch, start: float = 1.0, bound: float = 5.0) -> bool:
        """After Super: True once the launcher (rofi) is up and has drawn its list: keys typed now reach it.
        False once the session has settled after the key with no new process (the key went to a grab, e.g.
        an open menu's, so the window manager never ran the launcher: the settle sees the window manager
        woken, and its fork), waiting at most ``start`` s for that settle; or after ``bound`` s (both
        stretched by the session's slowdown)."""
        s = self._session()
        start, bound = start * s.slowdown, bound * s.slowdown
        t0 = time.monotonic()
        polled = settled = False
        while time.monotonic() - t0 < bound:
            if s.launcher_ready():
                self.settle(timeout=1.0)
                return True
            if polled and not self.launcher_up() and not watch.new_pids():
                if settled or time.monotonic() - t0 >= start:
                    return False
                self.settle(quiet=KEYBOARD_QUIET_PLAIN, timeout=start)  # nothing new yet: judge once quiet
                settled = True
                continue
            polled = True
            time.sleep(0.02)
        return False

    def _await_new_window(self, before: set[int], timeout: float) -> bool:
        """Wait until a window not in ``before`` is active, then until the app has settled (drawn, idle)."""
        k = self._session().slowdown
        started = time.monotonic()
        opened = self._wait(lambda: self._new_active_window(before), timeout * k)
        self.settle(quiet=0.2, timeout=max(10.0, timeout - (time.monotonic() - started) / k))
        return opened

    def _new_active_window(self, before: set[int]) -> bool:
        win = self.x.active_window()
        return win is not None and win.wid not in before and bool(win.title)

    @staticmethod
    def _wait(cond: Any, timeout: float, poll: float = 0.02) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond():
                return True
            time.sleep(poll)
        return False


def _is_command(name: str, params: Mapping[str, Any], held: list[str]) -> bool:
    """The keys of a keyboard action, with those key_down holds, make a command: ctrl or alt with another
    key (ctrl+s as a hotkey, or "s" pressed or typed while key_down holds ctrl), or super (openbox starts
    the launcher on Super alone)."""
    keys = {str(k).lower() for k in [*params.get("keys", ()), params.get("key"), *held] if k}
    if name == "write_text" and params.get("text"):
        keys.add("text")
    return bool(keys & SUPER_KEYS) or (bool(keys & COMMAND_MODIFIERS) and len(keys) > 1)


def _track(held: list[Any], item: Any, down: bool) -> None:
    """Note ``item`` as held (``down``) or released."""
    if item in held:
        held.remove(item)
    if down:
        held.append(item)


__all__ = ["DesktopEnv"]

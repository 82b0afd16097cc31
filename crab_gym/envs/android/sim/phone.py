"""Phone: the simulated Android device — sandboxed filesystem, SQLite state, a UI stack of app screens, input,
rendering, and a shell. The adb server and the in-process API both go through the same methods."""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .apps import APPS, LAUNCHER, inputs, spec, systemui
from .net.link import WebLink
from .storage import db, seedcache
from .storage.fs import Sandbox, Snapshot
from .storage.owned_tmp import OwnedTempDir
from .storage.readers import Readers
from .system import alarms, clock, power, procfs, snapshot
from .system.logcat import activity_started
from .system.providers import get_setting
from .system.snapshot import PhoneState
from .ui import glyphstore, render
from .ui.layout import Screen
from .ui.view import COLORS, DARK, View, to_xml

log = logging.getLogger(__name__)

MARKER = ".crab_phone_sandbox"
PRISTINE_CACHE = 8  # seeds whose pristine files are kept in memory (~200 kB each)


@dataclass
class Activity:
    package: str
    screen: str
    state: dict = field(default_factory=dict)
    task_id: int = 1


def crashed(phone: Phone, s: Screen, label: str) -> None:
    """Android's "<app> keeps stopping" dialog; its button closes the app."""
    pkg = s.act.package
    s.dialog(
        f"{label} keeps stopping", [("Close app", lambda: phone.force_stop(pkg), "android:id/aerr_close")]
    )


class Phone:
    """A deterministic simulated phone. `root` is its sandbox directory (a temporary one by default)."""

    def __init__(
        self,
        width: int = 1080,
        height: int = 2400,
        seed: int = 0,
        root: str | os.PathLike | None = None,
        density: int = 420,
        realtime: bool = False,
    ) -> None:
        self.lock = threading.RLock()
        self.realtime = realtime  # the clock follows the wall clock, not the state changes (system/clock.py)
        self.width, self.height, self.density, self.seed = width, height, density, seed
        s = width / 1080
        self.status_h, self.nav_h = int(round(110 * s)), int(round(130 * s))
        self._tmp = None
        if root is None:
            self._tmp = OwnedTempDir("crab-phone-")  # a killed process's is removed by the next
            root = self._tmp.name
        root = Path(root)
        used = root.exists() and any(root.iterdir())
        if used and not (root / MARKER).exists():
            raise ValueError(
                f"{root} is not empty and not a phone sandbox ({MARKER} missing): the phone wipes its "
                "root on reset, so give it an empty or new directory"
            )
        root.mkdir(parents=True, exist_ok=True)
        (root / MARKER).write_text("crab-gym simulated phone sandbox: wiped and rewritten on reset\n")
        self.fs = Sandbox(root)
        self.fs.on_change = self._files_changed
        self.fs.times.clock = lambda: clock.now_ms(self)  # files take the phone's time (storage/times.py)
        procfs.mount(self)  # /proc's files, made when read
        self.readers = Readers(self.fs)
        self.alarm_readers = Readers(self.fs)  # the alarms' own (system/alarms.py), apart from the UI's
        self._pristine: dict[int, Snapshot] = {}
        self.enter_handlers: dict = {}
        self._next_task = 1
        self.last_touch = (0.0, 0.0)
        self._dark = False
        self.props: dict[str, str] = {}  # system properties over the defaults (another model, in a test)
        self.web = WebLink.own(0)  # the offline web Chrome and Maps reach (attach_web joins a session's)
        self._bare = not used  # the tree is the skeleton a wipe would leave: the first seeding skips the wipe
        self.reset(seed)

    # -- state ---------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Back to the pristine state of `seed` (default: the current one): files, databases, UI."""
        with self.lock:
            if seed is not None:
                self.seed = seed
            if self.seed not in self._pristine:
                self.drop_readers()  # wipe and restore change files under SQLite (restore rewrites in place)
                if not self._bare:
                    self.fs.wipe(keep=(MARKER,))
                self._bare = False
                seedcache.seed(self.fs, self.seed)  # the databases: SQLite, or their bytes kept on disk
                self.fs.times.settle(at_ms=db.NOW_MS)  # the pristine files' time: the clock's start
                while len(self._pristine) >= PRISTINE_CACHE:  # keep the most recent seeds only
                    self._pristine.pop(next(iter(self._pristine)))
                self._pristine[self.seed] = self.fs.snapshot()
            self.fs.restore(self._pristine[self.seed], before_change=self.drop_readers)
            self._next_task = 1
            self.stack: list[Activity] = [self._new_activity(LAUNCHER, "home")]
            self.stopped: set[str] = set()
            self.shade_open = False
            self.notifications: list = []  # posted ones (system/notifications.py)
            self.counter = 0
            self.clock_base_ms = db.NOW_MS  # `date` moves the clock (system/date.py)
            self.wall0 = time.monotonic()
            alarms.rewind(self)
            self.awake, self.locked = True, False  # the power key and the keyguard (system/power.py)
            self.power_menu = False
            self.overlays: list = []  # system windows over the app (system/overlays.py)
            self.clipboard = ""  # the primary clip's text (system/clipboard.py)
            self.invalidate()

    def attach_web(self, web: WebLink) -> None:
        """Reach ``web`` (a desktop session's, so both devices see one world) instead of the phone's own."""
        with self.lock:
            self.web.close()
            self.web = web
            self.invalidate()

    def save_state(self) -> PhoneState:
        """The whole state now, as plain values (see system/snapshot.py)."""
        return snapshot.capture(self)

    def load_state(self, saved: PhoneState) -> None:
        """Back to a state :meth:`save_state` gave (of a phone of the same size)."""
        snapshot.restore(self, saved)

    def close(self) -> None:
        self.web.close()
        self.drop_readers()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def now_ms(self) -> int:
        """The simulated clock, moved one second: fixed start, one second per state change, so runs are
        reproducible (in real time: the wall time since reset)."""
        self.fs.times.note()  # what changed so far changed at the time before this one
        self.counter += 1
        return clock.now_ms(self)

    def set_realtime(self, on: bool) -> None:
        """Let the clock run with the wall clock (on) or a second per state change, from where it is."""
        with self.lock:
            self.fs.times.note()
            at = clock.now_ms(self)
            self.realtime = on
            self.wall0 = time.monotonic()
            self.clock_base_ms = at - clock.elapsed_ms(self)

    def tick(self) -> None:
        """Ring what came due (system/alarms.py); in real time, redraw when the status bar's minute moved."""
        with self.lock:
            self.fs.times.note()  # files changed since the last tick take the time now
            alarms.tick(self)
            if self.realtime and self._tree is not None and self._minute != clock.now_ms(self) // 60_000:
                self.invalidate()

    # -- activities ----------------------------------------------------------------------------------------
    def _new_activity(self, package: str, screen: str, **state) -> Activity:
        self._next_task += 1
        return Activity(package, screen, dict(state), self._next_task)

    @property
    def current(self) -> Activity:
        return self.stack[-1]

    def launch(self, package: str, screen: str | None = None, **state) -> None:
        self.shade_open = False
        app = APPS.get(package)
        if app is None:
            raise KeyError(f"no app {package!r}; installed: {', '.join(sorted(APPS))}")
        if package == LAUNCHER:
            self.home()
            return
        self.stopped.discard(package)
        # bring an existing task of this package to the front, else start a new one
        existing = [a for a in self.stack if a.package == package]
        base = [a for a in self.stack if a.package != package]
        if existing and screen is None:
            self.stack = base + existing
        else:
            self.stack = base + [self._new_activity(package, screen or app.main, **state)]
        self._started()
        self.invalidate()

    def push(self, screen: str, **state) -> None:
        """Open another screen of the current app."""
        act = self.current
        self.stack.append(Activity(act.package, screen, dict(state), act.task_id))
        self._started()
        self.invalidate()

    def _started(self) -> None:
        """The activity now on top was started: the system logs it (system/logcat.py)."""
        pkg, cls = self.focused_component()
        activity_started(self, f"{pkg}/{cls[len(pkg) :]}" if cls.startswith(pkg + ".") else f"{pkg}/{cls}")

    def replace(self, screen: str, **state) -> None:
        """Swap the current screen for another screen of the same app (a form that shows what it saved)."""
        act = self.stack.pop()
        self.stack.append(Activity(act.package, screen, dict(state), act.task_id))
        self.invalidate()

    def back(self) -> None:
        act = self.current
        if self.shade_open:
            self.shade_open = False
            self.invalidate()
            return
        hook = act.state.get("on_back")
        if hook:
            self._guarded(hook)
        if act.state.get("drawer"):
            act.state["drawer"] = False
        elif len(self.stack) > 1:
            self.stack.pop()
        self.invalidate()

    def home(self) -> None:
        self.shade_open = False
        self.stack = [a for a in self.stack if a.package == LAUNCHER][:1] or [
            self._new_activity(LAUNCHER, "home")
        ]
        self.stack[0].state["drawer"] = False
        self.invalidate()

    def force_stop(self, package: str) -> None:
        if package != LAUNCHER:
            self.stack = [a for a in self.stack if a.package != package] or [
                self._new_activity(LAUNCHER, "home")
            ]
            self.stopped.add(package)
        self.invalidate()

    def focused_component(self) -> tuple[str, str]:
        act = self.current
        return act.package, APPS[act.package].activity(act.screen)

    # -- the UI tree ---------------------------------------------------------------------------------------
    def _files_changed(self) -> None:
        """Files changed under the UI: only the Files app shows them (a dump or a screencap file must not
        throw away the cached frame)."""
        self.drop_readers()
        if self.current.package == "com.google.android.documentsui":
            self.invalidate()

    def drop_readers(self) -> None:
        """Close the kept read connections (files may change under SQLite's feet)."""
        self.readers.clear()
        self.alarm_readers.clear()

    def invalidate(self) -> None:
        """Something may have changed: rebuild the UI tree and the frame on next use."""
        self.generation = getattr(self, "generation", 0) + 1  # lets a backend's settle() see changes
        self._tree: View | None = None
        self._frame: np.ndarray | None = None
        self._small: dict[tuple[int, int], np.ndarray] = {}
        self._png: bytes | None = None

    @property
    def dark(self) -> bool:
        return self._dark

    def ui_tree(self) -> View:
        with self.lock:
            self.tick()
            return self._current_tree()

    def _current_tree(self) -> View:
        """The UI tree, built if something changed (the caller has ticked, under the lock)."""
        if self._tree is None:
            self._minute = clock.now_ms(self) // 60_000
            self._tree = self._build()
        return self._tree

    def _build(self) -> View:
        self._dark = get_setting(self, "secure", "ui_night_mode") == "2"
        act = self.current
        root = View(
            bounds=(0, 0, self.width, self.height),
            package=act.package,
            bg=(DARK if self._dark else COLORS)["bg"],
        )
        self.enter_handlers = {}
        if power.cover(self, root):  # the screen is off, or the keyguard shows: no app is drawn
            if power.awake(self):
                systemui.decorate(self, root)  # the keyguard keeps the status bar
            return root
        screen = Screen(self, act, root)
        try:
            if act.state.get("crashed"):
                raise RuntimeError(f"{act.package} crashed")
            spec(act.package).screens[act.screen][1](screen)  # the app's code loads at its first screen
        except Exception:  # an app bug shows Android's crash dialog; it never reaches the caller
            log.exception("%s/%s failed to build", act.package, act.screen)
            root = View(bounds=root.bounds, package=act.package, bg=root.bg)
            crashed(self, Screen(self, act, root), APPS[act.package].label)
        systemui.decorate(self, root)
        return root

    def ui_xml(self) -> str:
        return to_xml(self.ui_tree())

    def screenshot(self, size: tuple[int, int] | None = None) -> np.ndarray:
        """The screen, (H, W, 3) uint8, read-only; ``size`` (w, h) draws it directly at that size."""
        with self.lock:
            self.tick()
            if size is not None and tuple(size) != (self.width, self.height):
                size = (int(size[0]), int(size[1]))
                if size not in self._small:
                    tree = self._current_tree()
                    bg = tree.bg or (255, 255, 255)
                    self._small[size] = render.render(tree, self.width, self.height, bg, size)
                    glyphstore.settle()
                return self._small[size]
            if self._frame is None:
                tree = self._current_tree()
                self._frame = render.render(tree, self.width, self.height, tree.bg or (255, 255, 255))
                self._frame.flags.writeable = False
                self._png = None
                glyphstore.settle()
            return self._frame

    def screencap_png(self) -> bytes:
        with self.lock:
            frame = self.screenshot()
            if self._png is None:
                self._png = render.to_png(frame)
            return self._png

    # -- input (apps/inputs.py) ----------------------------------------------------------------------------
    def _guarded(self, fn, *args) -> None:
        """Run an app's handler; an exception crashes that app (its dialog shows), never the caller."""
        act = self.current
        try:
            fn(*args)
        except Exception:
            log.exception("%s/%s: a handler failed", act.package, act.screen)
            act.state["crashed"] = True

    def tap(self, x: float, y: float) -> None:
        inputs.tap(self, x, y)

    def long_press(self, x: float, y: float) -> None:
        inputs.long_press(self, x, y)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
        inputs.swipe(self, x1, y1, x2, y2, duration_ms)

    def text(self, s: str) -> None:
        inputs.text(self, s)

    def keyevent(self, code: int | str) -> None:
        inputs.keyevent(self, code)

    def monkey(self, package: str) -> tuple[bytes, bytes, int]:
        """``shell("monkey -p PACKAGE -c android.intent.category.LAUNCHER 1")`` without the shell."""
        from .system import direct

        return direct.monkey(self, package)

    def settings_put(self, namespace: str, key: str, value: str) -> tuple[bytes, bytes, int]:
        """``shell("settings put NAMESPACE KEY VALUE")`` without the shell."""
        from .system import direct

        return direct.settings_put(self, namespace, key, value)

    # -- shell ---------------------------------------------------------------------------------------------
    def shell(self, cmd: str, stdin=b"", merged: bool = False, live=None) -> tuple[bytes, bytes, int]:
        """Run a shell command line as adbd would: (stdout, stderr, exit code). Never raises.

        merged=True returns (stdout and stderr interleaved as written, b"", code), as a v1 pty shows them.
        live (a shell.context.Live: an adb stream) takes output commands flush while the line runs (a
        following logcat); what is returned is what was not sent yet.
        """
        with self.lock:
            self.tick()
            try:  # the shell, and of its commands those the line names, load at the first (shell/commands.py)
                from .shell.interpreter import Shell

                sh = Shell(self)  # one per command line: a waiting command releases the lock to others
                out, err, code = sh.run(cmd, stdin, live)
                self.fs.times.note()
                return (bytes(sh.merged), b"", code) if merged else (out, err, code)
            except Exception as e:  # the shell guards commands; this guards the shell itself
                return b"", f"/system/bin/sh: internal error: {type(e).__name__}: {e}\n".encode(), 1

"""A real X session per env instance: Xvfb, D-Bus, openbox, rofi and Debian apps, as an unprivileged user.

Each session takes a *slot* (``session_slot.py``: a file lock), which gives it a display number, a
dedicated system user (when we are root) and a directory with HOME, a pristine copy of HOME and
XDG_RUNTIME_DIR. Xvfb keeps running across resets (``-noreset``), and so do the wallpaper, the
accessibility bus and the panel (the *keepers*, which the panel's reset request brings back to their
pristine look); a reset kills every other process of the session, restores HOME and starts the session
clients again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.a11y_bus import start_a11y_bus
from crab_gym.envs.desktop.backends.agent_client import AgentClient
from crab_gym.envs.desktop.backends.base import DESCRIPTION, HOME_FOLDERS
from crab_gym.envs.desktop.backends.panel import DESKTOP_NOW, Panel
from crab_gym.envs.desktop.backends.session_process import SessionProcesses
from crab_gym.envs.desktop.backends.session_reap import kill_all
from crab_gym.envs.desktop.backends.session_slot import Slot
from crab_gym.envs.desktop.backends.session_web import SessionWeb
from crab_gym.envs.desktop.backends.wallpaper import paint_wallpaper
from crab_gym.envs.desktop.backends.xserver import start_xvfb
from crab_gym.envs.desktop.primitives.apps import app_argv
from crab_gym.envs.desktop.primitives.cpu import SessionActivity
from crab_gym.envs.desktop.primitives.files import list_dir, read_limited, resolve, stat_of
from crab_gym.envs.desktop.primitives.launch import LaunchWatch, launcher_exits
from crab_gym.envs.desktop.primitives.x11 import X11Display

TEMPLATE_HOME = Path(__file__).resolve().parent.parent / "session" / "home"
AGENT_SOURCE = Path(__file__).resolve().parent.parent / "session_agent.py"
SYSTEM_PYTHON = "/usr/bin/python3"
XVFB_GROWTH_MB = float(os.environ.get("CRAB_GYM_XVFB_GROWTH_MB", "96"))
"""How far the X server's RSS may grow past its size after the first reset before the session is started
anew at the next reset: Xvfb keeps the high-water mark of what large apps drew (77 -> 110 MB in an hour of
random actions), and a session that runs for days must not carry that up without bound."""
REQUIRED_PROGRAMS = ("Xvfb", "xauth", "xhost", "dbus-daemon", "openbox", "rofi")


class XvfbSession(SessionProcesses):
    """One live X session. ``start()`` once, ``reset()`` per episode, ``close()`` at the end."""

    description = (
        f"{DESCRIPTION} The panel along the bottom has an Applications menu, a launcher button per app, a "
        f"button per open window and a clock. Firefox and Chromium browse an offline web (a search engine, "
        f"GitHub, Wikipedia, the PyTorch docs, Google Maps). {HOME_FOLDERS}"
    )
    slowdown = 1.0
    settle_quiet = 0.004  # after a click: two idle probes 2 ms apart (the probe sees threads and timers)

    def __init__(self, size: tuple[int, int] = (1280, 800), clock: str = DESKTOP_NOW) -> None:
        missing = [p for p in REQUIRED_PROGRAMS if shutil.which(p) is None]
        if missing:
            raise DeviceError(f"xvfb backend needs {missing} on PATH (see README: scripts/setup.sh)")
        self.size = size
        self.slot = Slot()
        self.user = self.slot.user
        self.display_name = ""  # Xvfb picks a free display number at start
        self.token = self.slot.token
        d = self.slot.dir
        self.home, self.pristine, self.run_dir = d / "home", d / "pristine", d / "run"
        self.keep_dir = self.run_dir / "keep"  # files of the keepers, which outlive resets
        self.panel = Panel(self, self.keep_dir, clock)
        self._keepers: list[subprocess.Popen] = []
        self.x: X11Display | None = None
        self.agent: AgentClient | None = None
        self._xvfb: subprocess.Popen | None = None
        self._wm: subprocess.Popen | None = None
        self._children: list[subprocess.Popen] = []
        self._logs: list = []
        self._xvfb_mb0 = 0.0
        self.web: SessionWeb | None = None  # the offline web, when the slot has its namespaces
        self._web_pending = False  # the web is being started (start())
        self._activity: SessionActivity | None = None  # the settle probe, made at the first settle
        self._discarded = 0  # trees moved to the trash (:meth:`_discard`)

    # ---- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the session and reset it. The slow parts run side by side: the offline web (its server and CA
        in a process of its own, started first; the browsers' profiles and four certutil runs in a thread)
        while Xvfb starts; the panel's Python loads meanwhile too (it starts GTK once told the display), and
        the keepers are up before the web is done; the wallpaper is read (or drawn) and painted in another
        thread over its own X connection while the first reset runs (its waits on the panel and openbox
        leave the GIL free), and is on the screen before this returns."""
        d = self.slot.dir
        if d.exists():
            self._kill_clients(include_xvfb=True)
            shutil.rmtree(d)
        d.mkdir(parents=True)
        os.chmod(d, 0o711)
        if self.slot.netns and self.slot.mntns and os.environ.get("CRAB_GYM_WEB", "1") != "0":
            # its server's process first, started from this thread (it dies with it); the CA in HOME below
            self.web = SessionWeb.spawn_or_warn(d / "web", self.slot.netns, self.token)
        pool = ThreadPoolExecutor(2, thread_name_prefix="session-start")
        shutil.copytree(TEMPLATE_HOME, self.pristine, symlinks=True)
        os.chmod(self.pristine, 0o700)  # HOME is private to the session user
        self.run_dir.mkdir(mode=0o700)
        self.keep_dir.mkdir(mode=0o700)
        self.chown(self.pristine)  # the web chowns what it adds to it
        self.chown(self.run_dir)
        web = pool.submit(self.web.start_or_warn, self.pristine, self.chown) if self.web else None
        self._web_pending = web is not None  # session processes started meanwhile get the web's variables
        try:
            self._spawn_panel()  # its Python and gi load while the X server starts (it waits for go())
            self._xvfb = start_xvfb(self)
            # Our X connection (python-xlib's setup, mss) is made in a thread while the keepers start (this
            # thread mostly waits on the accessibility bus), so the panel starts sooner.
            connecting = pool.submit(X11Display, self.display_name)
            try:
                # The keepers read HOME as they start (GTK's settings): the template's until the reset copies
                # the pristine one, which the web is still adding its profiles to.
                shutil.copytree(TEMPLATE_HOME, self.home, symlinks=True)
                os.chmod(self.home, 0o700)
                self.chown(self.home)
                self._start_keepers(wait=False)
            finally:
                self.x = connecting.result()  # closed by close() if the keepers failed
            # The root window's properties to keep: the server's own (the keepers set none).
            self._root_props = self.x.root_properties()
            painted = pool.submit(paint_wallpaper, self.display_name, self.size)
        finally:
            pool.shutdown(wait=False)  # the threads end with their work
            if web is not None and not web.result():  # a failed web warned and ended
                self.web = None
            self._web_pending = False
        self.reset()
        painted.result()
        if self.web is not None and not self.web.ready_or_warn():  # it serves (connections waited till now)
            self.web = None
        self._xvfb_mb0 = self.x_server_mb()

    def x_server_mb(self) -> float:
        """The X server's resident memory in MB (0 if it is gone)."""
        try:
            with open(f"/proc/{self._xvfb.pid}/status") as f:  # type: ignore[union-attr]  # None: AttributeError, caught
                kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (AttributeError, OSError, StopIteration, ValueError):
            return 0.0
        return kb / 1024

    def outgrown(self, budget_mb: float = XVFB_GROWTH_MB) -> bool:
        """True if the X server grew more than ``budget_mb`` past its size after the first reset."""
        return self.x_server_mb() - self._xvfb_mb0 > budget_mb

    def reset(self) -> None:
        """Kill every session client but the keepers, restore HOME, start D-Bus and the window manager again,
        and bring the panel back to its pristine look (the keepers are started if they are not running)."""
        if self._xvfb is None or self._xvfb.poll() is not None:
            raise DeviceError(f"X server {self.display_name} is not running")
        if self.web is not None:
            self.web.check()  # its server's process ended: DeviceError, and the session starts anew
        self._kill_clients(include_xvfb=False)
        assert self.x is not None
        self.x.restore_root_properties(self._root_props)
        if self.home.exists():
            self._discard(self.home)
        subprocess.run(["cp", "-a", str(self.pristine), str(self.home)], check=True)
        for p in self.run_dir.iterdir():
            if p.name not in ("Xauthority", self.keep_dir.name):
                self._discard(p) if p.is_dir() else p.unlink()
        self._start_keepers(wait=False)
        bus = self._start_dbus()  # awaited below: openbox does not use it
        # openbox runs --startup once it has managed the screen and grabbed its shortcut keys. It starts
        # while a new panel is still starting (it manages the panel's window whenever that maps, and reads
        # the panel's strut when it is set).
        ready = self.run_dir / "wm-ready"
        wm = self.spawn(
            ["openbox", "--config-file", str(self.home / ".config/openbox/rc.xml"),
             "--startup", f"touch {ready}"]
        )  # fmt: skip
        try:
            self.panel.wait_ready()
        except BaseException:
            with contextlib.suppress(subprocess.TimeoutExpired):
                bus.communicate(timeout=10)  # reaped: the panel's error is the one to raise
            raise
        self._dbus_started(bus)
        self.wait_for(ready.exists, 5.0, "openbox", wm)
        self._wm = wm
        self.x.move(self.size[0] // 2, self.size[1] // 2)
        # The first XTEST key event of a server switches the core keyboard's source device and is
        # lost to passive grabs (the window manager's shortcuts); spend it on a harmless key.
        self.x.key_combo(["shift"])
        self.panel.reset()  # after the pointer left it: no hover is left on the panel

    def check(self) -> None:
        """Raise DeviceError if the X server or the window manager exited mid-episode (a desktop without its
        window manager has no launcher and no focus handling); the next reset starts them again."""
        for what, proc in (("X server", self._xvfb), ("window manager (openbox)", self._wm)):
            if proc is None or proc.poll() is not None:
                raise DeviceError(f"the {what} of display {self.display_name} is not running")

    def close(self) -> None:
        if self.agent is not None:
            self.agent.close()
            self.agent = None
        self._kill_clients(include_xvfb=True)
        if self.web is not None:
            self.web.close()
            self.web = None
        if self.x is not None:
            self.x.close()
            self.x = None
        for f in self._logs:
            f.close()
        self._logs.clear()
        if self.slot.dir.exists():
            shutil.rmtree(self.slot.dir, ignore_errors=True)
        self.slot.release()

    # ---- apps, the launcher, settling -----------------------------------------------------------
    def spawn_app(self, app: str, args: Sequence[str]) -> None:
        self.spawn(app_argv(app, args))

    def launch_watch(self) -> LaunchWatch:
        return LaunchWatch(self._display(), self.session_pids)

    def launcher_ready(self) -> bool:
        """rofi's window shows (it grabs the keyboard first: ``-no-lazy-grab`` in the session's openbox
        config)."""
        return self._display().viewable_of_class("rofi")

    def launcher_exits(self, idle_for: float, bound: float) -> bool:
        return launcher_exits(self.session_pids, "rofi", idle_for=idle_for, bound=bound)

    def settle(self, quiet: float, timeout: float) -> None:
        """No screen damage and the session not at work (:meth:`SessionActivity.busy`: CPU, a runnable
        thread of it or of the X server, a wait on the disk, a timer due within 30 ms) for ``quiet`` s,
        probed every ``quiet / 2`` s (at most 10 ms); see X11Display.settle."""
        x = self._display()
        if self._activity is None:
            self._activity = SessionActivity(self.session_pids, [self._xvfb.pid] if self._xvfb else [])
        self._activity.start()
        x.settle(quiet=quiet, timeout=timeout, busy=self._activity.busy, poll=min(0.01, quiet / 2))

    def _kill_clients(self, include_xvfb: bool) -> None:
        """Kill the session's processes: all of them with Xvfb, else all but the live keepers."""
        if self.agent is not None:
            self.agent.close()
            self.agent = None
        if include_xvfb:
            self.panel.close()
            self._keepers.clear()
        keep = {p.pid for p in self._keepers}
        kill_all(lambda: [p for p in self.session_pids() if p not in keep], self._reap)
        if include_xvfb and self._xvfb is not None:
            self._activity = None  # it watches this X server
            self._xvfb.kill()
            self._xvfb.wait()
            self._xvfb = None

    def _discard(self, tree: Path) -> None:
        """Move ``tree`` into the slot's trash (a rename) and delete it in a thread: on a disk filesystem
        each removed directory costs milliseconds (3 ms here, 17 in a fresh HOME), which a reset need not
        wait for. What a thread leaves (the process ended first) goes with the slot's directory."""
        trash = self.slot.dir / "trash"
        trash.mkdir(exist_ok=True)
        self._discarded += 1
        gone = trash / f"{tree.name}-{self._discarded}"
        os.rename(tree, gone)
        sweep = threading.Thread(
            target=shutil.rmtree, args=(gone,), kwargs={"ignore_errors": True}, daemon=True
        )
        sweep.start()

    def _reap(self) -> None:
        alive = []
        for p in self._children:
            if p.poll() is None:
                alive.append(p)
        self._children = alive

    # ---- start-up pieces ----------------------------------------------------------------------
    def _start_keepers(self, wait: bool = True) -> None:
        """The accessibility bus, its registry and the panel, unless all three are still running; with
        ``wait``, return once the panel has drawn (else :meth:`Panel.wait_ready` is owed).

        They outlive resets (the panel takes longer to start than a whole reset), so none of them uses the
        session bus, which a reset replaces (see :mod:`crab_gym.envs.desktop.backends.a11y_bus`).
        """
        if not (self._keepers and all(p.poll() is None for p in self._keepers) and self.panel.alive()):
            for p in self._keepers:
                p.kill()
                p.wait()
            self._keepers.clear()
            if not self.panel.waiting():  # else start() spawned it, and it waits for its display
                self.panel.close()
                for stale in self.keep_dir.iterdir():
                    stale.unlink()
                self._spawn_panel()
            self._keepers += start_a11y_bus(self, self.keep_dir)  # the panel's Python loads meanwhile
            self.panel.go(self.display_name)
            assert self.panel.proc is not None
            self._keepers.append(self.panel.proc)
        if wait:
            self.panel.wait_ready()

    def _spawn_panel(self) -> None:
        python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
        self.panel.spawn(python)

    def _start_dbus(self) -> subprocess.Popen:
        """Start the session bus (``dbus-daemon --fork``); :meth:`_dbus_started` waits for it."""
        address = f"--address=unix:path={self.run_dir / 'bus'}"
        cmd, as_user = self._as_session(
            ["dbus-daemon", "--session", "--fork", "--nopidfile", address, "--print-address=1"], self.home
        )
        return subprocess.Popen(
            cmd, env=self.env(), cwd=self.home, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **as_user
        )

    def _dbus_started(self, bus: subprocess.Popen) -> None:
        """Wait until the forking dbus-daemon has printed its address and exited (the bus then listens)."""
        try:
            _, err = bus.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            bus.kill()
            bus.communicate()
            raise DeviceError("dbus-daemon did not start in 10 s") from None
        if bus.returncode != 0:
            raise DeviceError(f"dbus-daemon failed: {err.decode(errors='replace')}")

    # ---- helpers used by the sub-env ----------------------------------------------------------
    def agent_client(self) -> AgentClient:
        """The in-session agent (named read operations only, e.g. the accessibility tree), started lazily."""
        if self.agent is None or not self.agent.alive():
            # The agent is one stdlib-only file: copied into the session's own run dir and run by Debian's
            # python3 (which has pyatspi), it works even where the session user cannot read our checkout
            # or virtualenv (e.g. a clone inside a 0700 temporary directory).
            script = self.run_dir / "session_agent.py"
            shutil.copyfile(AGENT_SOURCE, script)
            self.chown(script)
            python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
            cmd, as_user = self._as_session([python, str(script)], self.home)
            proc = subprocess.Popen(
                cmd,
                env=self.env(),
                cwd=self.home,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=open(self.run_dir / "agent.log", "ab"),  # noqa: SIM115
                start_new_session=True,
                **as_user,
            )
            self.agent = AgentClient(proc)
        return self.agent

    def write_file(self, rel: str, data: bytes) -> Path:
        """Create a file in the session's HOME, owned by the session user."""
        path = self.resolve(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        for p in [path, *path.parents]:
            if p == self.home.parent:
                break
            if self.user.dedicated:
                os.chown(p, self.user.uid, self.user.gid)
        return path

    def resolve(self, path: str) -> Path:
        """A session path (``~/x`` or ``/abs``) to a host path; ``~`` is the session's HOME."""
        return resolve(self.home, path)

    def stat(self, path: str) -> os.stat_result | None:
        return stat_of(self.resolve(path))

    def read_bytes(self, path: str, limit: int) -> bytes | None:
        return read_limited(self.resolve(path), limit)

    def list_dir(self, path: str) -> list[str] | None:
        return list_dir(self.resolve(path))

    def identity(self) -> dict[str, Any]:
        """The X display and the pid of its Xvfb (empty before the start)."""
        if self._xvfb is None:
            return {}
        return {"display": self.display_name, "xvfb_pid": self._xvfb.pid}

    def _display(self) -> X11Display:
        if self.x is None:
            raise DeviceError("the desktop is not running: call reset() first")
        return self.x

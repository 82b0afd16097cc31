"""The desktop sub-env on a libvirt VM: the same actions, checks and task setups as on xvfb.

Only how the device is reached differs: processes, files and launches are read in the guest by the probe
agent (:mod:`crab_gym.vm.guest.probe`) instead of from this machine's ``/proc`` and file system, and waits
are stretched by the session's slowdown under software emulation (TCG).
"""

from __future__ import annotations

import base64
import stat as stat_mod
import time
from typing import Any

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop import APPS, KEYBOARD_QUIET, DesktopEnv
from crab_gym.envs.desktop.backends.libvirt import LibvirtSession, parse_backend
from crab_gym.envs.desktop.state import MAX_FILE_BYTES, DesktopState, Process
from crab_gym.envs.desktop.x11 import WindowInfo


class GuestPath:
    """A guest path with the few ``pathlib`` reads checks use (``stat``, ``exists``, ``is_dir``)."""

    def __init__(self, state: GuestDesktopState, path: str) -> None:
        self._state, self._path = state, path

    def stat(self) -> Any:
        st = self._state.stat(self._path)
        if st is None:
            raise FileNotFoundError(self._path)
        return st

    def exists(self) -> bool:
        return self._state.exists(self._path)

    def is_dir(self) -> bool:
        return self._state.is_dir(self._path)

    def __str__(self) -> str:
        return str(self._state._s.resolve(self._path))


class GuestStat:
    """The fields of ``os.stat_result`` the probe reports."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.st_mode, self.st_size = int(d["mode"]), int(d["size"])
        self.st_mtime, self.st_uid = float(d["mtime"]), int(d["uid"])


class GuestDesktopState(DesktopState):
    """:class:`DesktopState` read through the probe agent; cached per step like its parent."""

    _s: LibvirtSession  # type: ignore[assignment]  # DesktopState's is an XvfbSession: no session protocol yet

    def __init__(self, session: LibvirtSession) -> None:
        super().__init__(session)  # type: ignore[arg-type]  # as _s: DesktopState takes an XvfbSession
        self._cache: dict[tuple, Any] = {}

    def _call(self, op: str, **args: Any) -> Any:
        key = (op, *sorted(args.items()))
        if key not in self._cache:
            self._cache[key] = self._s.agent_client().call(op, **args)
        return self._cache[key]

    def path(self, path: str) -> GuestPath:  # type: ignore[override]  # has the read methods of Path it uses
        return GuestPath(self, path)

    def stat(self, path: str) -> GuestStat | None:
        d = self._call("stat", path=str(self._s.resolve(path)))
        return None if d is None else GuestStat(d)

    def read_bytes(self, path: str) -> bytes | None:
        data = self._call("read_file", path=str(self._s.resolve(path)), limit=MAX_FILE_BYTES)
        return None if data is None else base64.b64decode(data)

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        st = self.stat(path)
        return st is not None and stat_mod.S_ISDIR(st.st_mode)

    def list_dir(self, path: str) -> tuple[str, ...]:
        return tuple(self._call("list_dir", path=str(self._s.resolve(path))) or ())

    def processes(self) -> tuple[Process, ...]:
        return tuple(Process(pid, name, tuple(cmd)) for pid, name, cmd in self._call("processes"))

    def active_window(self) -> WindowInfo | None:
        w = self._call("active_window")
        return WindowInfo(*w) if w else None

    def windows(self) -> tuple[WindowInfo, ...]:
        return tuple(WindowInfo(*w) for w in self._call("windows"))

    def active_process(self) -> str | None:
        win = self.active_window()
        if win is None or win.pid is None:
            return None
        return next((p.name for p in self.processes() if p.pid == win.pid), None)


class LibvirtDesktopEnv(DesktopEnv):
    """The "ubuntu" desktop in a VM (``libvirt``, ``libvirt:<domain>``, optionally ``@<uri>``)."""

    # What the guest image has (no panel: the xvfb session's panel is not shipped in the image yet).
    description = (
        "An Ubuntu-style Linux desktop (openbox window manager). Press Super or use search_application to "
        "open apps: Terminal (xfce4-terminal, bash, vim), Text Editor (mousepad), Files (thunar), "
        "LibreOffice Writer, Calc and Impress. The home folder is ~ with Documents, Desktop, Downloads."
    )

    def __init__(self, backend: str = "libvirt", size: tuple[int, int] = (1280, 800)) -> None:
        self.domain, self.uri = parse_backend(backend)
        self.backend = backend
        self._size = size
        self.session: LibvirtSession | None = None  # type: ignore[assignment]  # DesktopEnv's is an XvfbSession
        self._state: DesktopState | None = None
        self._keyboard = False

    def reset(self, seed: int | None = None) -> None:
        self._state = None
        if self.session is not None:
            try:
                self.session.reset()
                return
            except DeviceError:
                self.session.close()  # QEMU or libvirt gone: restart the domain from its snapshot below
                self.session = None
        self.session = LibvirtSession(self.domain, self.uri, size=self._size)
        try:
            self.session.start()
        except BaseException:
            self.session.close()
            self.session = None
            raise

    def settle(self, quiet: float | None = None, timeout: float = 3.0) -> None:
        """Return once, for ``quiet`` s, nothing was drawn and no session process used CPU (judged in the
        guest). Both times are stretched by the session's slowdown: under TCG an app draws a menu in bursts
        more than 20 ms apart. ``quiet`` defaults as on xvfb (longer after keyboard input)."""
        if quiet is None:
            quiet = KEYBOARD_QUIET if self._keyboard else 0.02
        s = self._session()
        s.check()
        assert s.x is not None
        s.x.settle(quiet=quiet * s.slowdown, timeout=timeout * s.slowdown)

    def state(self) -> DesktopState:
        if self._state is None:
            self._state = GuestDesktopState(self._session())
        return self._state

    def identity(self) -> dict[str, Any]:
        return self.session.identity() if self.session is not None else {}

    def _session(self) -> LibvirtSession:  # type: ignore[override]  # as self.session: no session protocol yet
        if self.session is None:
            raise DeviceError("the desktop is not running: call reset() first")
        return self.session

    # ---- launches and task setups, in the guest -------------------------------------------------
    def launch_from_launcher(self, name: str, startup: float = 40.0) -> str:
        """Super -> type the name -> Enter in rofi; what the launch did, as on xvfb (see LaunchWatch)."""
        s = self._session()
        probe, k = s.agent_client(), s.slowdown
        snapshot = probe.call("launch_snapshot")
        self.x.key_combo(["super"])
        if not self._wait(lambda: probe.call("launcher_ready"), 5.0 * k):
            return "no_launcher"
        self.settle(quiet=0.05, timeout=1.0)
        self.x.type_text(name)
        self.settle(quiet=0.05, timeout=1.0)
        self.x.key_combo(["enter"])
        if not probe.call("launcher_exits", idle_for=0.2 * k, bound=2.0 * k, reply_within=30.0 * k):
            self._close_launcher()
            return "no_match"
        started = time.monotonic()
        outcome = str(
            probe.call("launch_wait", snapshot=snapshot, startup=startup * k, idle_after=1.0 * k,
                       grace=0.3 * k, reply_within=startup * k + 30.0)
        )  # fmt: skip
        if outcome == "window":
            # As on xvfb: the app goes idle within what is left of its start-up time (LibreOffice maps its
            # window about a minute before it takes input, here under TCG).
            self.settle(quiet=0.2, timeout=max(10.0, startup - (time.monotonic() - started) / k))
        return outcome

    def open_app(self, app: str, *args: str, timeout: float = 40.0) -> None:
        """Task setup: start a known application in the guest (by key of APPS) and wait for its window."""
        if app not in APPS:
            raise ValueError(f"unknown app {app!r}; known: {sorted(APPS)}")
        s = self._session()
        before = {w.wid for w in self.x.windows()}
        s.agent_client().call("spawn", app=app, args=[str(a) for a in args])
        if not self._await_new_window(before, timeout * s.slowdown):
            raise DeviceError(f"{app} opened no window within {timeout * s.slowdown:.0f} s")

    def _await_new_window(self, before: set[int], timeout: float) -> bool:
        started, k = time.monotonic(), self._session().slowdown
        opened = self._wait(lambda: self._new_active_window(before), timeout)
        # the app settles within what is left of ``timeout`` (stretched already; settle stretches its own)
        self.settle(quiet=0.2, timeout=max(10.0, (timeout - (time.monotonic() - started)) / k))
        return opened

    def _rofi_running(self) -> bool:
        return any(p[1] == "rofi" for p in self._session().agent_client().call("processes"))

    def _close_launcher(self) -> None:
        """Escape out of the launcher; if it stays (rofi's error box ignores keys), end it in the guest."""
        probe, k = self._session().agent_client(), self._session().slowdown
        self.x.key_combo(["esc"])
        if not self._wait(lambda: not self._rofi_running(), 0.5 * k):
            for pid, name, _cmd in probe.call("processes"):
                if name == "rofi":
                    probe.call("kill", pid=pid, sig=15)
            self._wait(lambda: not self._rofi_running(), 1.0 * k)
        self.settle(quiet=0.05, timeout=1.0)

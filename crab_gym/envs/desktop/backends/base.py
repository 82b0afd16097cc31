"""The contract of a desktop backend: what :class:`~crab_gym.envs.desktop.DesktopEnv` needs of a session.

The desktop's actions, evaluators, state reads and Set-of-Marks are written once against
:class:`DesktopSession`, as the phone's are against :class:`~crab_gym.envs.android.device.Device`. A
session is how the desktop is reached: :class:`~crab_gym.envs.desktop.backends.xvfb.XvfbSession` (an X
server on this machine) or :class:`~crab_gym.envs.desktop.backends.libvirt.LibvirtSession` (a VM).

Times given to a session are the times of a local desktop; a slow session (a VM under software emulation)
stretches them itself, and says by how much in ``slowdown`` for the waits its caller runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, Protocol

import numpy as np

from crab_gym.envs.desktop.primitives.procs import Process
from crab_gym.envs.desktop.primitives.x11_windows import WindowInfo

# What agents read about the desktop, whatever session it runs in (a session adds what it has beyond).
DESCRIPTION = (
    "An Ubuntu-style Linux desktop (openbox window manager). Press Super or use search_application to "
    "open apps: Terminal (xfce4-terminal, bash, vim), Text Editor (mousepad), Files (thunar), "
    "LibreOffice Writer, Calc and Impress, GIMP (image editor)."
)
HOME_FOLDERS = "The home folder is ~ with Documents, Desktop, Downloads."


class Display(Protocol):
    """Input, frames and window facts of the session's screen; pixel coordinates."""

    size: tuple[int, int]

    def grab(self) -> np.ndarray: ...
    def to_pixels(self, point: tuple[float, float]) -> tuple[int, int]: ...
    def move(self, x: int, y: int) -> None: ...
    def button(self, button: int, down: bool) -> None: ...
    def click(self, x: int, y: int, button: int = 1, count: int = 1) -> None: ...
    def drag(self, start: tuple[int, int], end: tuple[int, int], steps: int = 10) -> None: ...
    def scroll(self, direction: str, clicks: int) -> None: ...
    def key_combo(self, names: list[str]) -> None: ...
    def key(self, name: str, down: bool) -> None: ...
    def type_text(self, text: str, delay: float = 0.0) -> None: ...
    def windows(self) -> list[WindowInfo]: ...
    def active_window(self) -> WindowInfo | None: ...
    def active_is_dialog(self) -> bool:
        """The focused window is a dialog (``active_window().dialog``, maybe cheaper)."""


class FileStat(Protocol):
    """The fields of ``os.stat_result`` checks read."""

    @property
    def st_mode(self) -> int: ...
    @property
    def st_size(self) -> int: ...
    @property
    def st_mtime(self) -> float: ...
    @property
    def st_uid(self) -> int: ...


class Launch(Protocol):
    """A launch being watched (see :class:`~crab_gym.envs.desktop.primitives.launch.LaunchWatch`)."""

    def new_pids(self) -> list[int]: ...
    def wait(self, startup: float = 40.0, idle_after: float = 1.0, grace: float = 0.3) -> str: ...


class Agent(Protocol):
    """The in-session agent: named read operations (accessibility tree, clipboard, settings)."""

    def call(self, op: str, **args: Any) -> Any: ...


class DesktopSession(Protocol):
    """One live desktop. ``start()`` once, ``reset()`` per episode, ``close()`` at the end (idempotent)."""

    description: str  # what the desktop offers, in the words agents read
    size: tuple[int, int]
    slowdown: float  # how much longer than a local desktop everything takes (1 on xvfb)
    settle_quiet: float  # the quiet of a settle after an action whose effect shows at once (a click)

    @property
    def x(self) -> Display | None: ...

    # ---- lifecycle
    def start(self) -> None: ...
    def reset(self) -> None:
        """Back to the pristine desktop; DeviceError if the session is beyond repair (it is then rebuilt)."""

    def outgrown(self) -> bool:
        """True if the session should be started anew rather than reset (a grown X server)."""

    def check(self) -> None:
        """DeviceError if the desktop died mid-episode (X server, window manager, VM)."""

    def settle(self, quiet: float, timeout: float) -> None:
        """Return once, for ``quiet`` s, nothing was drawn and no session process used CPU (bounded)."""

    def close(self) -> None: ...
    def identity(self) -> dict[str, Any]: ...

    # ---- processes and launches
    def session_pids(self) -> list[int]: ...
    def processes(self) -> list[Process]: ...
    def kill(self, pid: int, sig: int) -> bool:
        """Signal one of the session's processes; False if it is gone or not the session's."""

    def spawn_app(self, app: str, args: Sequence[str]) -> None:
        """Start a known application (a key of :data:`~crab_gym.envs.desktop.primitives.apps.APPS`)."""

    def launch_watch(self) -> Launch: ...
    def launcher_ready(self) -> bool:
        """The launcher's window shows, so keys typed now reach it."""

    def launcher_exits(self, idle_for: float, bound: float) -> bool:
        """After Enter: True once the launcher exits, False once it sits idle (nothing matched)."""

    # ---- files (paths as ``~/x`` or ``/abs``; ``~`` is the session user's HOME)
    def resolve(self, path: str) -> PurePath: ...
    def write_file(self, rel: str, data: bytes) -> PurePath: ...
    def stat(self, path: str) -> FileStat | None: ...
    def read_bytes(self, path: str, limit: int) -> bytes | None:
        """A file's bytes; None when missing, unreadable, a folder, or larger than ``limit``."""

    def list_dir(self, path: str) -> list[str] | None: ...

    # ---- the in-session agent
    def agent_client(self) -> Agent: ...

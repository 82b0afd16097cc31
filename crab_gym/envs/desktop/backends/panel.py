"""Host side of the desktop's panel (``panel_app.py``, a GTK program inside the session): what it shows,
starting it, and resetting it at each episode.

The panel is started once per session and survives resets (starting GTK costs more than a whole reset);
``reset`` asks it to close its popups, set its clock and list the windows, and returns once it has drawn.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from Xlib import X

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.agent_client import AgentClient

if TYPE_CHECKING:
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

PANEL_SOURCE = Path(__file__).resolve().parent / "panel_app.py"
PANEL_WM_CLASS = "crab-panel"  # the panel's window class and process name
PANEL_HEIGHT = 32  # px, along the bottom edge; maximised windows end above it (the top stays put)
ICON_SIZE = 24

# The desktop's "now": 2024-03-15 09:30 UTC, the simulated phone's clock (android/sim/storage/db.py NOW_MS),
# so both devices of a cross-device task show one date. The clock never moves, so frames stay reproducible.
DESKTOP_NOW = "2024-03-15T09:30:00"

# (name shown and spoken by AT-SPI, desktop file, menu group, has a launcher button, icon or "" for the
# desktop file's). The names are the ones the desktop's description gives agents; the command comes from the
# desktop file, as rofi's does. Thunar's own icon is a drive at 24 px: Files gets the theme's file manager.
PANEL_APPS: tuple[tuple[str, str, str, bool, str], ...] = (
    ("Terminal", "xfce4-terminal.desktop", "system", True, ""),
    ("Files", "thunar.desktop", "system", True, "system-file-manager"),
    ("Text Editor", "org.xfce.mousepad.desktop", "accessories", True, ""),
    ("Vim", "vim.desktop", "accessories", False, ""),
    ("LibreOffice Writer", "libreoffice-writer.desktop", "office", True, ""),
    ("LibreOffice Calc", "libreoffice-calc.desktop", "office", True, ""),
    ("LibreOffice Impress", "libreoffice-impress.desktop", "office", True, ""),
    ("GIMP", "gimp.desktop", "graphics", True, ""),
    ("Firefox", "firefox-esr.desktop", "internet", False, ""),
    ("Chromium", "chromium.desktop", "internet", False, ""),
)


def panel_config(size: tuple[int, int], clock: str = DESKTOP_NOW) -> dict[str, Any]:
    """The JSON the panel program reads at start."""
    return {
        "screen": list(size),
        "height": PANEL_HEIGHT,
        "icon_size": ICON_SIZE,
        "clock": clock,
        "apps": [
            {"name": n, "desktop_id": d, "group": g, "launcher": launcher, "icon": icon}
            for n, d, g, launcher, icon in PANEL_APPS
        ],
    }


class Panel:
    """The running panel of one session."""

    def __init__(self, session: XvfbSession, directory: Path, clock: str = DESKTOP_NOW) -> None:
        self.session, self.dir, self.clock = session, directory, clock
        self.client: AgentClient | None = None
        self.proc: subprocess.Popen | None = None
        self.xid = 0
        self.went = False  # the spawned panel was told its display (go())
        self.missing: list[str] = []

    def spawn(self, python: str, timeout: float = 30.0) -> None:
        """Start the panel's process without waiting for it: its Python and gi load meanwhile, then it waits
        for :meth:`go` (the X server may not be up yet) to start GTK; :meth:`wait_ready` waits up to
        ``timeout`` for its first draw."""
        script, config = self.dir / "panel_app.py", self.dir / "panel.json"
        shutil.copyfile(PANEL_SOURCE, script)
        config.write_text(json.dumps(panel_config(self.session.size, self.clock)))
        self.session.chown(script)
        self.session.chown(config)
        self.proc = self.session.spawn(
            [python, str(script), str(config)], log=f"{self.dir.name}/panel", cwd=self.dir, pipes=True
        )
        self.client = AgentClient(self.proc, timeout=timeout)
        self.xid = 0
        self.went = False

    def waiting(self) -> bool:
        """Spawned, running, and not yet told to go."""
        return self.proc is not None and self.proc.poll() is None and not self.went

    def go(self, display_name: str) -> None:
        """Tell the spawned panel its display, which is up, as are the accessibility bus and registry."""
        if self.proc is None or self.proc.stdin is None:
            raise DeviceError("the panel is not running")
        try:
            self.proc.stdin.write((json.dumps({"display": display_name}) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:  # ValueError: its pipe was closed (close())
            raise DeviceError("the panel exited before the session was up") from e
        self.went = True

    def wait_ready(self) -> None:
        """Wait until the spawned panel has drawn and reserve its strip of the screen (once per spawn)."""
        if self.client is None:
            raise DeviceError("the panel is not running")
        if self.xid:
            return
        ready = self.client.call("ready")
        self.client.timeout = 5.0
        self.xid, self.missing = int(ready["xid"]), list(ready.get("missing", []))
        self._reserve_strut()

    def reset(self) -> None:
        """Popups closed, the clock set, the window list matching the windows, all drawn."""
        if self.client is None:
            raise DeviceError("the panel is not running")
        self.client.call("reset", clock=self.clock)

    def alive(self) -> bool:
        return self.client is not None and self.client.alive()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def _reserve_strut(self) -> None:
        """Tell the window manager (EWMH _NET_WM_STRUT_PARTIAL) that the bottom strip is the panel's, so
        maximised windows stop above it. GTK has no call for it; the window manager reads it when it manages
        the panel, which happens at every reset."""
        w = self.session.size[0]
        x = self.session.x
        if x is None:
            raise DeviceError("the desktop is not running")
        d = x.connection  # the session's own connection: a new one costs more than the two requests
        win = d.create_resource_object("window", self.xid)
        cardinal = d.intern_atom("CARDINAL")
        partial = [0, 0, 0, PANEL_HEIGHT, 0, 0, 0, 0, 0, 0, 0, w - 1]
        win.change_property(d.intern_atom("_NET_WM_STRUT_PARTIAL"), cardinal, 32, partial, X.PropModeReplace)
        win.change_property(d.intern_atom("_NET_WM_STRUT"), cardinal, 32, partial[:4], X.PropModeReplace)
        d.sync()

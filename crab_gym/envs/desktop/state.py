"""A read-only, per-step cached view of a desktop session, for evaluators."""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from crab_gym.core.memo import cached_read
from crab_gym.envs.desktop.panel import PANEL_WM_CLASS
from crab_gym.envs.desktop.x11 import WindowInfo

if TYPE_CHECKING:
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

MAX_FILE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Process:
    pid: int
    name: str
    cmdline: tuple[str, ...]


class DesktopState:
    """What evaluators may read. Every method is cached for the life of this object (one step)."""

    def __init__(self, session: XvfbSession) -> None:
        self._s = session

    # ---- files ------------------------------------------------------------------------------
    def path(self, path: str) -> Path:
        return self._s.resolve(path)

    @cached_read
    def read_bytes(self, path: str) -> bytes | None:
        p = self.path(path)
        try:
            if p.stat().st_size > MAX_FILE_BYTES:
                return None
            return p.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
            return None

    def read_text(self, path: str) -> str | None:
        data = self.read_bytes(path)
        return None if data is None else data.decode("utf-8", "replace")

    def exists(self, path: str) -> bool:
        return self.path(path).exists()

    def is_dir(self, path: str) -> bool:
        return self.path(path).is_dir()

    @cached_read
    def list_dir(self, path: str) -> tuple[str, ...]:
        try:
            return tuple(sorted(os.listdir(self.path(path))))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return ()

    @cached_read
    def document_text(self, path: str) -> str | None:
        """Plain text of an OpenDocument file (odt, ods, odp): paragraphs and cells, one per line."""
        data = self.read_bytes(path)
        if data is None:
            return None
        try:
            import io

            with zipfile.ZipFile(io.BytesIO(data)) as z:
                root = ElementTree.fromstring(z.read("content.xml"))
        except (zipfile.BadZipFile, KeyError, ElementTree.ParseError):
            return None
        text_ns = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
        lines = ["".join(el.itertext()) for el in root.iter() if el.tag in (f"{text_ns}p", f"{text_ns}h")]
        return "\n".join(lines)

    @cached_read
    def spreadsheet(self, path: str) -> dict[str, list[list[str]]] | None:
        """Cell texts of an .ods file per sheet, rows of columns (repeats expanded, trailing blanks cut)."""
        from crab_gym.envs.desktop.odf import read_ods

        data = self.read_bytes(path)
        return None if data is None else read_ods(data)

    @cached_read
    def presentation(self, path: str) -> list[str] | None:
        """Text of each slide of an .odp file."""
        from crab_gym.envs.desktop.odf import read_odp

        data = self.read_bytes(path)
        return None if data is None else read_odp(data)

    # ---- processes and windows -------------------------------------------------------------
    @cached_read
    def processes(self) -> tuple[Process, ...]:
        out = []
        for pid in self._s.session_pids():
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except (FileNotFoundError, ProcessLookupError):
                continue
            out.append(Process(pid, name, tuple(c.decode(errors="replace") for c in cmd if c)))
        return tuple(out)

    def process_running(self, name: str) -> bool:
        return any(
            p.name == name or (p.cmdline and Path(p.cmdline[0]).name == name) for p in self.processes()
        )

    @cached_read
    def active_window(self) -> WindowInfo | None:
        return self._s.x.active_window() if self._s.x else None

    @cached_read
    def windows(self) -> tuple[WindowInfo, ...]:
        """Application windows, bottom to top (the desktop's panel is not one)."""
        wins = self._s.x.windows() if self._s.x else []
        return tuple(w for w in wins if w.wm_class != PANEL_WM_CLASS)

    def active_process(self) -> str | None:
        win = self.active_window()
        if win is None or win.pid is None:
            return None
        try:
            return Path(f"/proc/{win.pid}/comm").read_text().strip()
        except FileNotFoundError:
            return None

    # ---- in-session reads (named agent operations) ------------------------------------------
    @cached_read
    def a11y(self) -> tuple[dict[str, Any], ...]:
        """The flattened accessibility tree (AT-SPI) of every GTK3/LibreOffice application."""
        return tuple(self._s.agent_client().call("atspi_tree"))

    def a11y_texts(self, app: str | None = None) -> list[str]:
        return [n["text"] for n in self.a11y() if "text" in n and (app is None or n["app"] == app)]

    @cached_read
    def clipboard(self) -> str:
        return str(self._s.agent_client().call("clipboard"))

    @cached_read
    def gsetting(self, schema: str, key: str) -> str:
        return str(self._s.agent_client().call("gsettings_get", schema=schema, key=key))

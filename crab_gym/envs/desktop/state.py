"""A read-only, per-step cached view of a desktop session, for evaluators."""

from __future__ import annotations

import stat as stat_mod
import zipfile
from pathlib import PurePath
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from crab_gym.core.memo import cached_read
from crab_gym.envs.desktop.backends.panel import PANEL_WM_CLASS
from crab_gym.envs.desktop.primitives.procs import Process
from crab_gym.envs.desktop.primitives.x11_windows import WindowInfo
from crab_gym.web.content.world import WebWorld

if TYPE_CHECKING:
    from crab_gym.envs.desktop.backends.base import DesktopSession, FileStat

MAX_FILE_BYTES = 8 * 1024 * 1024


class StatePath:
    """A session path with the few ``pathlib`` reads checks use (``stat``, ``exists``, ``is_dir``), read
    through the state view (so cached for the step like the rest)."""

    def __init__(self, state: DesktopState, path: str) -> None:
        self._state, self._path = state, path

    def stat(self) -> FileStat:
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


class DesktopState:
    """What evaluators may read. Every method is cached for the life of this object (one step)."""

    def __init__(self, session: DesktopSession) -> None:
        self._s = session

    def web(self) -> WebWorld | None:
        """What the session's offline web serves (None without one: a VM, or no namespaces)."""
        web = getattr(self._s, "web", None)
        return web.world if web is not None else None

    # ---- files ------------------------------------------------------------------------------
    def path(self, path: str) -> StatePath:
        return StatePath(self, path)

    @cached_read
    def stat(self, path: str) -> FileStat | None:
        return self._s.stat(path)

    @cached_read
    def read_bytes(self, path: str) -> bytes | None:
        return self._s.read_bytes(path, MAX_FILE_BYTES)

    def read_text(self, path: str) -> str | None:
        data = self.read_bytes(path)
        return None if data is None else data.decode("utf-8", "replace")

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        st = self.stat(path)
        return st is not None and stat_mod.S_ISDIR(st.st_mode)

    @cached_read
    def list_dir(self, path: str) -> tuple[str, ...]:
        return tuple(self._s.list_dir(path) or ())

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
        return tuple(self._s.processes())

    def process_running(self, name: str) -> bool:
        return any(
            p.name == name or (p.cmdline and PurePath(p.cmdline[0]).name == name) for p in self.processes()
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
        return next((p.name for p in self.processes() if p.pid == win.pid), None)

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
    def rendered_pdf(self, path: str) -> bytes | None:
        """An office document at ``path`` as LibreOffice lays it out, as PDF (rendered in the session)."""
        import base64

        data = self._s.agent_client().call("render_pdf", path=str(self._s.resolve(path)))
        return None if data is None else base64.b64decode(data)

    @cached_read
    def gsetting(self, schema: str, key: str) -> str:
        return str(self._s.agent_client().call("gsettings_get", schema=schema, key=key))

"""Window facts of an X display, as the window manager publishes them (EWMH root and client properties).

Guest-safe (stdlib and python-xlib only): the VM image ships this module to the probe agent, which reads
the guest's windows with the same code as the xvfb backend reads its display.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from Xlib import X
from Xlib.error import XError


@dataclass(frozen=True)
class WindowInfo:
    """A top-level client window as the window manager reports it."""

    wid: int
    title: str
    wm_class: str
    pid: int | None
    dialog: bool = False  # a dialog (EWMH type DIALOG, or transient for another window); set by active_window


class WindowReader:
    """Reads windows on one python-xlib ``Display`` connection (atoms cached per connection)."""

    def __init__(self, d: Any) -> None:
        self._d = d
        self._root = d.screen().root
        self._atoms: dict[str, int] = {}

    def _atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self._d.intern_atom(name)
        return self._atoms[name]

    def prop(self, win: Any, name: str, type_: int = X.AnyPropertyType) -> Any:
        """A window property's value; None if it is unset or the window is gone."""
        try:
            p = win.get_full_property(self._atom(name), type_)
        except XError:
            return None
        return p.value if p is not None else None

    def window_info(self, wid: int) -> WindowInfo:
        win = self._d.create_resource_object("window", wid)
        title = self.prop(win, "_NET_WM_NAME", self._atom("UTF8_STRING"))
        if title is None:
            title = self.prop(win, "WM_NAME")
        if isinstance(title, bytes):
            title = title.decode("utf-8", "replace")
        wm_class = self.prop(win, "WM_CLASS")
        if isinstance(wm_class, bytes):
            part = -2 if wm_class.endswith(b"\0") else -1
            wm_class = wm_class.split(b"\0")[part].decode("utf-8", "replace")
        pid = self.prop(win, "_NET_WM_PID")
        return WindowInfo(
            wid=wid, title=str(title or ""), wm_class=str(wm_class or ""), pid=int(pid[0]) if pid else None
        )

    def windows(self) -> list[WindowInfo]:
        """Client windows managed by the window manager, bottom to top."""
        ids = self.prop(self._root, "_NET_CLIENT_LIST_STACKING")
        if ids is None:
            ids = self.prop(self._root, "_NET_CLIENT_LIST")
        return [self.window_info(int(w)) for w in (ids or [])]

    def active_window(self) -> WindowInfo | None:
        ids = self.prop(self._root, "_NET_ACTIVE_WINDOW")
        if not ids or not int(ids[0]):
            return None
        # The property outlives the window manager that set it: trust it only for a managed window.
        managed = self.prop(self._root, "_NET_CLIENT_LIST")
        if managed is None or int(ids[0]) not in {int(w) for w in managed}:
            return None
        info = self.window_info(int(ids[0]))
        return replace(info, dialog=self.is_dialog(int(ids[0])))

    def is_dialog(self, wid: int) -> bool:
        """True for a dialog: EWMH window type DIALOG, or transient for another window (a file chooser)."""
        win = self._d.create_resource_object("window", wid)
        types = self.prop(win, "_NET_WM_WINDOW_TYPE")
        if types is not None and self._atom("_NET_WM_WINDOW_TYPE_DIALOG") in {int(t) for t in types}:
            return True
        return bool(self.prop(win, "WM_TRANSIENT_FOR"))

    def viewable_of_class(self, name: str) -> bool:
        """True if a top-level window of WM_CLASS ``name`` (either part, any case) is viewable: also
        unmanaged ones, such as rofi's override-redirect window, which :meth:`windows` does not list."""
        for win in self._root.query_tree().children:
            try:
                if win.get_attributes().map_state != X.IsViewable:
                    continue
                cls = win.get_wm_class()
            except XError:
                continue  # gone since the query
            if cls and name.lower() in (c.lower() for c in cls):
                return True
        return False

    def wm_running(self) -> bool:
        return bool(self.prop(self._root, "_NET_SUPPORTING_WM_CHECK"))

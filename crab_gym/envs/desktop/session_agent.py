"""Runs inside a desktop session, as the session user: answers *named* read operations over stdin/stdout.

It executes no code sent to it. Requests are JSON lines ``{"op": NAME, "args": {...}}``; answers are
``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "..."}``. The same operations are what a VM
guest agent offers, so evaluators read state identically on every backend.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

MAX_NODES = 4000
MAX_TEXT = 20000
MAX_PDF = 8 * 1024 * 1024
MAX_CHILDREN = 500
# A container that manages its descendants is walked only when it is small: a file list's rows are worth
# marking, while a Calc sheet reports billions of cells.
MAX_MANAGED_CHILDREN = 1000
INTERESTING_STATES = (
    "focused",
    "selected",
    "checked",
    "editable",
    "showing",
    "visible",
    "enabled",
    "pressed",
)


TEXT_ROLES = frozenset(
    {"text", "entry", "paragraph", "terminal", "document text", "heading", "spin button", "password text"}
)


def _atspi_tree(max_nodes: int = MAX_NODES) -> list[dict[str, Any]]:
    """Flattened accessibility tree of every application; huge managed subtrees are skipped."""
    import pyatspi

    out: list[dict[str, Any]] = []
    desktop = pyatspi.Registry.getDesktop(0)

    def visit(acc, app: str, depth: int, parent: int) -> None:
        if len(out) >= max_nodes or acc is None:
            return
        try:
            states = acc.getState()
            role = acc.getRoleName()
            name = acc.name or ""
            node: dict[str, Any] = {
                "app": app,
                "role": role,
                "name": name,
                "depth": depth,
                "parent": parent,
                "states": [
                    s for s in INTERESTING_STATES if states.contains(getattr(pyatspi, f"STATE_{s.upper()}"))
                ],
            }
            # Each query is a D-Bus round trip: hidden subtrees are not walked, and only text roles are read.
            showing = role == "application" or states.contains(pyatspi.STATE_SHOWING)
            node["box"] = None
            if showing and role != "application":
                try:
                    ext = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                    node["box"] = [ext.x, ext.y, ext.width, ext.height]
                except NotImplementedError:
                    pass
            if showing and role in TEXT_ROLES:
                try:
                    text = acc.queryText()
                    node["text"] = text.getText(0, min(text.characterCount, MAX_TEXT))
                except NotImplementedError:
                    pass
            index = len(out)
            out.append(node)
            # A container laid out at zero width or height shows none of its children (LibreOffice keeps
            # such a hidden menu bar under the native one; its menus still say "showing").
            collapsed = node["box"] is not None and 0 in node["box"][2:]
            # A menu in a menu bar or menu lists its items only while it is open (selected); a closed
            # menu's items are all hidden, and each would cost a round trip to find that out.
            closed_menu = (
                role == "menu"
                and 0 <= parent
                and out[parent]["role"] in ("menu bar", "menu")
                and not states.contains(pyatspi.STATE_SELECTED)
            )
            if not showing or collapsed or closed_menu or depth > 40:
                return
            count = acc.childCount
            if states.contains(pyatspi.STATE_MANAGES_DESCENDANTS) and count > MAX_MANAGED_CHILDREN:
                return
            for i in range(min(count, MAX_CHILDREN)):
                visit(acc.getChildAtIndex(i), app, depth + 1, index)
        except Exception:  # an app that dies mid-walk must not kill the agent
            return

    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is not None:
            visit(app, app.name or "", 0, -1)
    return out


def _run(argv: list[str], timeout: float = 5.0) -> str:
    res = subprocess.run(argv, capture_output=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.decode(errors="replace").strip() or f"{argv[0]} failed")
    return res.stdout.decode(errors="replace")


def _gsettings_get(schema: str, key: str) -> str:
    for what, value in (("schema", schema), ("key", key)):  # names only: no options, paths or other words
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", value):
            raise ValueError(f"{what} must be a GSettings name, got {value!r}")
    return _run(["gsettings", "get", schema, key]).strip()


def _clipboard() -> str:
    try:
        return _run(["xclip", "-o", "-selection", "clipboard"], timeout=2.0)
    except RuntimeError:
        return ""


def _render_pdf(path: str) -> str | None:
    """An office document rendered to PDF by LibreOffice (headless, a profile of its own so the user's
    running LibreOffice is not involved), base64; None if it cannot be rendered in time."""
    import base64
    import os
    import tempfile

    if not isinstance(path, str) or not os.path.isabs(path) or not os.path.isfile(path):
        return None
    profile = f"file://{tempfile.gettempdir()}/crab-render-{os.getuid()}"
    with tempfile.TemporaryDirectory() as out:
        argv = ["soffice", "--headless", "--norestore", f"-env:UserInstallation={profile}"]
        try:
            _run([*argv, "--convert-to", "pdf", "--outdir", out, path], timeout=15.0)
        except (RuntimeError, subprocess.TimeoutExpired, OSError):
            return None
        pdfs = [f for f in os.listdir(out) if f.endswith(".pdf")]
        if len(pdfs) != 1 or os.path.getsize(os.path.join(out, pdfs[0])) > MAX_PDF:
            return None
        with open(os.path.join(out, pdfs[0]), "rb") as f:
            return base64.b64encode(f.read()).decode()


OPS: dict[str, Callable[..., Any]] = {
    "ping": lambda: "pong",
    "atspi_tree": _atspi_tree,
    "gsettings_get": _gsettings_get,
    "clipboard": _clipboard,
    "render_pdf": _render_pdf,
}


def serve(stdin=sys.stdin, stdout=sys.stdout) -> None:
    for line in stdin:
        try:
            req = json.loads(line)
            op = OPS[req["op"]]
            reply = {"ok": True, "result": op(**req.get("args", {}))}
        except KeyError as e:
            reply = {"ok": False, "error": f"unknown operation or argument: {e}"}
        except Exception as e:
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()


if __name__ == "__main__":
    serve()

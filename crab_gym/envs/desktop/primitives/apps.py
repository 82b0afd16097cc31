"""The applications task setups start by key: named operations, never shell strings.

Guest-safe (stdlib only): the VM image ships this module to the probe agent, which starts the same apps.
"""

from __future__ import annotations

from collections.abc import Sequence

APPS: dict[str, tuple[str, ...]] = {
    "terminal": ("xfce4-terminal",),
    "text_editor": ("mousepad",),
    "file_manager": ("thunar",),
    "writer": ("libreoffice", "--writer", "--norestore"),
    "calc": ("libreoffice", "--calc", "--norestore"),
    "impress": ("libreoffice", "--impress", "--norestore"),
    "vim": ("xfce4-terminal", "-x", "vim"),
    "gimp": ("gimp", "--no-splash"),
    # The browsers of the offline web (their profiles trust the session's CA: backends/session_web.py).
    "firefox": ("firefox-esr",),
    "chromium": (
        "chromium", "--no-first-run", "--no-default-browser-check", "--password-store=basic",
        "--force-renderer-accessibility", "--disable-background-networking",
    ),
    # A system prompt (envs/desktop/prompt_app.py, its source and a JSON spec as arguments): Debian's GTK.
    "prompt": ("python3", "-I", "-c"),
    # No window: xclip owns the clipboard with a file's text, serving it until another program copies.
    "clipboard": ("xclip", "-selection", "clipboard", "-i"),
}  # fmt: skip


def app_argv(app: str, args: Sequence[str] = ()) -> list[str]:
    """The command line that starts ``app`` (a key of APPS) with plain arguments (paths)."""
    if app not in APPS:
        raise ValueError(f"unknown app {app!r}; known: {sorted(APPS)}")
    return [*APPS[app], *(str(a) for a in args)]

"""What the desktop templates share: the device name, step builders and the bash and dialog idioms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crab_gym.core.tasks import Step

ENV = "ubuntu"
PLATFORMS = ("ubuntu",)
INTERFACE = "org.gnome.desktop.interface"

# Thunar's detailed list view (ctrl+2) at 1280x800, window maximised: rows are 28 px high, the first centred
# at y=125. Clicking the name column of a row selects that entry whatever the name's length.
THUNAR_NAME_X = 0.17  # on the file name itself (x=218), where an agent would click


def thunar_row(i: int) -> tuple[float, float]:
    return (THUNAR_NAME_X, (125 + 28 * i) / 800)


def step(action: str, **params: Any) -> Step:
    return Step(ENV, action, params)


def desktop(envs: Mapping[str, Any]) -> Any:
    return envs[ENV]


def terminal(*commands: str) -> list[Step]:
    """Open the terminal from the launcher and run commands (each typed, then Enter)."""
    return [
        step("search_application", name="terminal"),
        *(step("write_text", text=c + "\n") for c in commands),
    ]


def save_as(path: str) -> list[Step]:
    """ctrl+s in an application whose document has no file yet, then the path in the dialog's name field.

    The GTK file chooser accepts ``~/...`` paths there. Enter is a step of its own: typed right after the
    path it can reach the entry's completion popup instead of the dialog.
    """
    return [step("hotkey", keys=["ctrl", "s"]), step("write_text", text=path), step("press", key="enter")]


def shell_quote(path: str) -> str:
    """A ``~/...`` path for bash: ``~`` stays unquoted so it expands, the rest is single-quoted."""
    head, rest = ("~/", path[2:]) if path.startswith("~/") else ("", path)
    return head + "'" + rest.replace("'", "'\\''") + "'"


def parent(path: str) -> str:
    return path.rsplit("/", 1)[0]

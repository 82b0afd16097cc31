"""Text editor templates: Mousepad (write, append, copy) and vim."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import (
    PLATFORMS,
    desktop,
    save_as,
    shell_quote,
    step,
    terminal,
)

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

# ---- text editor (Mousepad) ---------------------------------------------------------------------


TEXT_EDITOR_WRITE_FILE = SubTaskTemplate(
    id="text_editor_write_file",
    sets=V0_SETS,
    description=(
        "Open the Text Editor, write the two lines '{first_line}' and '{second_line}', and save the "
        "file as {path}."
    ),
    attributes={"path": "path", "first_line": "text", "second_line": "text"},
    evaluator=lambda path, first_line, second_line: [
        ev.file_exists(path=path),
        ev.file_lines(path=path, lines=[first_line, second_line]),
    ],
    solution=lambda path, first_line, second_line: [
        step("search_application", name="text editor"),
        step("write_text", text=f"{first_line}\n{second_line}\n"),
        *save_as(path),
    ],
    platforms=PLATFORMS,
    apps=("text_editor",),
    output_type="path",
    output=lambda path, first_line, second_line: path,
    inputs=("first_line",),
)


_EDIT_LINES = ("milk", "bread", "eggs")


def _edit_setup(envs: Mapping[str, Any], path: str, line: str) -> None:
    env = desktop(envs)
    env.write_file(path, "".join(f"{x}\n" for x in _EDIT_LINES))
    env.open_app("text_editor", str(env.session.resolve(path)))


TEXT_EDITOR_APPEND_LINE = SubTaskTemplate(
    id="text_editor_append_line",
    sets=V0_SETS,
    description=(
        "The Text Editor has the file {path} open. Add the line '{line}' at the end of the file, after "
        "the lines already there, and save it."
    ),
    attributes={"path": "path", "line": "text"},
    evaluator=lambda path, line: [ev.file_lines(path=path, lines=[*_EDIT_LINES, line])],
    setup=_edit_setup,
    solution=lambda path, line: [
        step("hotkey", keys=["ctrl", "end"]),
        step("write_text", text=line + "\n"),
        step("hotkey", keys=["ctrl", "s"]),
    ],
    platforms=PLATFORMS,
    apps=("text_editor",),
    output_type="path",
    output=lambda path, line: path,
    screen_setup=True,
)


def _copy_setup(envs: Mapping[str, Any], path: str, text: str) -> None:
    env = desktop(envs)
    env.write_file(path, text + "\n")
    env.open_app("text_editor", str(env.session.resolve(path)))


TEXT_EDITOR_COPY_TEXT = SubTaskTemplate(
    id="text_editor_copy_text",
    sets=V0_SETS,
    description="The Text Editor has the file {path} open. Copy all of its text to the clipboard.",
    attributes={"path": "path", "text": "text"},
    evaluator=lambda path, text: [ev.clipboard_contains(text=text)],
    setup=_copy_setup,
    solution=lambda path, text: [step("hotkey", keys=["ctrl", "a"]), step("hotkey", keys=["ctrl", "c"])],
    platforms=PLATFORMS,
    apps=("text_editor",),
    output_type="text",
    output=lambda path, text: text,
    screen_setup=True,
    hidden=("text",),
)


# ---- vim ------------------------------------------------------------------------------------------


VIM_WRITE_FILE = SubTaskTemplate(
    id="vim_write_file",
    sets=V0_SETS,
    description="In a terminal, use vim to create the file {path} containing the single line '{text}'.",
    attributes={"path": "path", "text": "text"},
    evaluator=lambda path, text: [ev.file_exists(path=path), ev.file_equals(path=path, text=text)],
    solution=lambda path, text: [
        *terminal(f"vim {shell_quote(path)}"),
        step("press", key="i"),
        step("write_text", text=text),
        step("press", key="esc"),
        step("write_text", text=":wq\n"),
    ],
    platforms=PLATFORMS,
    apps=("terminal", "vim"),
    output_type="path",
    output=lambda path, text: path,
    inputs=("text",),
)

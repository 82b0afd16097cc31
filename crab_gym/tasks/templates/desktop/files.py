"""File manager (Thunar) templates: renaming and moving files by keyboard and clicks on its list view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import (
    PLATFORMS,
    desktop,
    step,
    thunar_row,
)

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

# ---- files (Thunar) -----------------------------------------------------------------------------


def _files_rename_setup(envs: Mapping[str, Any], folder: str, old_name: str, new_name: str) -> None:
    env = desktop(envs)
    env.write_file(f"{folder}/{old_name}", f"Contents of {old_name}\n")
    env.open_app("file_manager", str(env.session.resolve(folder)))


FILES_RENAME = SubTaskTemplate(
    id="files_rename",
    sets=V0_SETS,
    description=(
        "In the file manager, which shows the folder {folder}, rename the file {old_name} to {new_name}, "
        "keeping its contents."
    ),
    attributes={"folder": "folder", "old_name": "filename", "new_name": "filename"},
    evaluator=lambda folder, old_name, new_name: [
        ev.file_contains(path=f"{folder}/{new_name}", text=f"Contents of {old_name}"),
        ev.path_absent(path=f"{folder}/{old_name}"),
    ],
    setup=_files_rename_setup,
    # List view; the folder holds only this file, so it is the first row. F2 opens the rename dialog.
    solution=lambda folder, old_name, new_name: [
        step("hotkey", keys=["ctrl", "2"]),
        step("click", point=thunar_row(0)),
        step("press", key="f2"),
        step("hotkey", keys=["ctrl", "a"]),
        step("write_text", text=new_name + "\n"),
    ],
    platforms=PLATFORMS,
    apps=("file_manager",),
    output_type="path",
    output=lambda folder, old_name, new_name: f"{folder}/{new_name}",
    screen_setup=True,
)


def _files_move_setup(envs: Mapping[str, Any], folder: str, filename: str, subfolder: str) -> None:
    env = desktop(envs)
    env.write_file(f"{folder}/{filename}", f"Contents of {filename}\n")
    env.write_file(f"{folder}/{subfolder}/.keep", "")
    env.open_app("file_manager", str(env.session.resolve(folder)))


FILES_MOVE = SubTaskTemplate(
    id="files_move",
    sets=V0_SETS,
    description=(
        "In the file manager, which shows the folder {folder}, move the file {filename} into its "
        "subfolder {subfolder}, so that it is no longer in {folder} itself."
    ),
    attributes={"folder": "folder", "filename": "filename", "subfolder": "foldername"},
    evaluator=lambda folder, filename, subfolder: [
        ev.file_contains(path=f"{folder}/{subfolder}/{filename}", text=f"Contents of {filename}"),
        ev.path_absent(path=f"{folder}/{filename}"),
    ],
    setup=_files_move_setup,
    # List view sorts folders first: row 0 is the subfolder, row 1 the file. Cut, open the folder, paste.
    solution=lambda folder, filename, subfolder: [
        step("hotkey", keys=["ctrl", "2"]),
        step("click", point=thunar_row(1)),
        step("hotkey", keys=["ctrl", "x"]),
        step("double_click", point=thunar_row(0)),
        step("hotkey", keys=["ctrl", "v"]),
    ],
    platforms=PLATFORMS,
    apps=("file_manager",),
    output_type="path",
    output=lambda folder, filename, subfolder: f"{folder}/{subfolder}/{filename}",
    screen_setup=True,
)

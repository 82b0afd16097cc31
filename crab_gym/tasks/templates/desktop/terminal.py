"""Terminal templates: folders, files and text made with shell commands typed into a terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, Step, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import (
    PLATFORMS,
    desktop,
    parent,
    shell_quote,
    terminal,
)

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

# ---- terminal -----------------------------------------------------------------------------------


def _create_folder_solution(folder: str) -> list[Step]:
    return terminal(f"mkdir -p {shell_quote(folder)}")


TERMINAL_CREATE_FOLDER = SubTaskTemplate(
    id="terminal_create_folder",
    sets=V0_SETS,
    description="Open a terminal and create the folder {folder} (create any missing parent folders too).",
    attributes={"folder": "folder"},
    evaluator=lambda folder: [ev.dir_exists(path=folder)],
    solution=_create_folder_solution,
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="folder",
    output=lambda folder: folder,
)


def _count_lines_setup(envs: Mapping[str, Any], source: str, count: int, target: str) -> None:
    desktop(envs).write_file(source, "".join(f"entry {i + 1}\n" for i in range(count)))


TERMINAL_COUNT_LINES = SubTaskTemplate(
    id="terminal_count_lines",
    sets=V0_SETS,
    description=(
        "The text file {source} has one entry per line. Using the terminal, count its lines and save "
        "just that number in the file {target}."
    ),
    attributes={"source": "path", "count": "number", "target": "path"},
    evaluator=lambda source, count, target: [
        ev.file_exists(path=target),
        ev.file_equals(path=target, text=str(count)),
    ],
    setup=_count_lines_setup,
    solution=lambda source, count, target: terminal(f"wc -l < {shell_quote(source)} > {shell_quote(target)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda source, count, target: target,
    hidden=("count",),
)


# ---- more terminal work: copy, archive, permissions, sort, grep, replace ------------------------------


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _source_setup(envs: Mapping[str, Any], source: str, **_: Any) -> None:
    desktop(envs).write_file(source, f"Contents of {_basename(source)}\n")


TERMINAL_COPY_FILE = SubTaskTemplate(
    id="terminal_copy_file",
    sets=V0_SETS,
    description=(
        "Using the terminal, copy the file {source} into the folder {folder} (create the folder if it "
        "is missing), keeping the original where it is."
    ),
    attributes={"source": "path", "folder": "folder"},
    evaluator=lambda source, folder: [
        ev.file_exists(path=f"{folder}/{_basename(source)}") & ev.file_exists(path=source)
    ],
    setup=_source_setup,
    solution=lambda source, folder: terminal(
        f"mkdir -p {shell_quote(folder)} && cp {shell_quote(source)} {shell_quote(folder)}/"
    ),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda source, folder: f"{folder}/{_basename(source)}",
    inputs=("source", "folder"),
    setup_inputs=("source",),
)

TERMINAL_ARCHIVE = SubTaskTemplate(
    id="terminal_archive",
    sets=V0_SETS,
    description=("Using the terminal, pack the file {source} into a gzip-compressed tar archive {archive}."),
    attributes={"source": "path", "archive": "path.tar.gz"},
    evaluator=lambda source, archive: [
        ev.file_exists(path=archive),
        ev.archive_contains(path=archive, names=[_basename(source)]),
    ],
    setup=_source_setup,
    solution=lambda source, archive: terminal(
        f"tar czf {shell_quote(archive)} -C {shell_quote(parent(source))} "
        "'" + _basename(source).replace("'", "'\\''") + "'"
    ),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda source, archive: archive,
    inputs=("source",),
    setup_inputs=("source",),
)


def _script_setup(envs: Mapping[str, Any], path: str) -> None:
    desktop(envs).write_file(path, "#!/bin/sh\necho hello\n")


TERMINAL_MAKE_EXECUTABLE = SubTaskTemplate(
    id="terminal_make_executable",
    sets=V0_SETS,
    description="Using the terminal, make the file {path} executable (give it execute permission).",
    attributes={"path": "path.sh"},
    evaluator=lambda path: [ev.file_executable(path=path)],
    setup=_script_setup,
    solution=lambda path: terminal(f"chmod +x {shell_quote(path)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda path: path,
)

_FRUITS = ("pear", "apple", "fig", "banana", "cherry", "date")


def _sort_setup(envs: Mapping[str, Any], source: str, target: str) -> None:
    desktop(envs).write_file(source, "".join(f"{x}\n" for x in _FRUITS))


TERMINAL_SORT_LINES = SubTaskTemplate(
    id="terminal_sort_lines",
    sets=V0_SETS,
    description=(
        "Using the terminal, sort the lines of the file {source} alphabetically and save the sorted "
        "lines in the file {target}."
    ),
    attributes={"source": "path", "target": "path"},
    evaluator=lambda source, target: [
        ev.file_exists(path=target),
        ev.file_lines(path=target, lines=sorted(_FRUITS)),
    ],
    setup=_sort_setup,
    solution=lambda source, target: terminal(f"sort {shell_quote(source)} > {shell_quote(target)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda source, target: target,
)


def _grep_lines(word: str) -> tuple[list[str], list[str]]:
    lines = [f"{word} order 17", "unrelated note", f"second {word} entry", "nothing here", f"last {word}"]
    return lines, [ln for ln in lines if word in ln]


def _grep_setup(envs: Mapping[str, Any], source: str, word: str, target: str) -> None:
    desktop(envs).write_file(source, "".join(f"{x}\n" for x in _grep_lines(word)[0]))


TERMINAL_GREP_LINES = SubTaskTemplate(
    id="terminal_grep_lines",
    sets=V0_SETS,
    description=(
        "Using the terminal, save the lines of {source} that contain the word '{word}' (and only those, "
        "in their order) in the file {target}."
    ),
    attributes={"source": "path", "word": "word", "target": "path"},
    evaluator=lambda source, word, target: [
        ev.file_exists(path=target),
        ev.file_lines(path=target, lines=_grep_lines(word)[1]),
    ],
    setup=_grep_setup,
    solution=lambda source, word, target: terminal(
        f"grep -F '{word}' {shell_quote(source)} > {shell_quote(target)}"
    ),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda source, word, target: target,
)


def _replace_setup(envs: Mapping[str, Any], path: str, old: str, new: str) -> None:
    desktop(envs).write_file(path, f"The {old} plan is ready.\nAsk about the {old} budget.\n")


TERMINAL_REPLACE_WORD = SubTaskTemplate(
    id="terminal_replace_word",
    sets=V0_SETS,
    description=(
        "In the text file {path}, replace every occurrence of the word '{old}' with '{new}' (for example "
        "with sed in a terminal) and save the file."
    ),
    attributes={"path": "path", "old": "word", "new": "word"},
    evaluator=lambda path, old, new: [
        ev.file_contains(path=path, text=f"The {new} plan"),
        ev.file_contains(path=path, text=f"the {new} budget") & ~ev.file_contains(path=path, text=old),
    ],
    setup=_replace_setup,
    solution=lambda path, old, new: terminal(f"sed -i 's/{old}/{new}/g' {shell_quote(path)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda path, old, new: path,
)


def _delete_setup(envs: Mapping[str, Any], path: str) -> None:
    desktop(envs).write_file(path, "old data\n")


TERMINAL_DELETE_FILE = SubTaskTemplate(
    id="terminal_delete_file",
    sets=V0_SETS,
    description="Using the terminal, delete the file {path}; it is no longer needed.",
    attributes={"path": "path"},
    evaluator=lambda path: [ev.path_absent(path=path)],
    setup=_delete_setup,
    solution=lambda path: terminal(f"rm {shell_quote(path)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
)

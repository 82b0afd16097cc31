"""Desktop ("ubuntu") sub-task templates: terminal, files, text editor, vim, LibreOffice and settings.

Every template states in its instruction what its checks look at, prepares its own state in ``setup`` and
comes with a scripted solution made only of agent actions (keyboard first; clicks only where the setup fixes
the layout). Paths in attributes are session paths: ``~`` is the session's HOME.

Attribute type names used here: ``path`` (a ``~/...`` file path), ``folder`` (a ``~/...`` folder path),
``filename`` (a bare file name), ``foldername`` (a bare folder name), ``text`` (one line of text without
newlines), ``word`` (one word), ``number`` (an integer), ``scale`` (a decimal factor), ``font`` (a font
family name), ``color_scheme`` (``"dark"`` or ``"light"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crab_gym.core.tasks import Step, SubTaskTemplate, register
from crab_gym.envs.desktop import evaluators as ev

ENV = "ubuntu"
PLATFORMS = ("ubuntu",)
INTERFACE = "org.gnome.desktop.interface"

# Thunar's detailed list view (ctrl+2) at 1280x800, window maximised: rows are 28 px high, the first centred
# at y=125. Clicking the name column of a row selects that entry whatever the name's length.
_THUNAR_NAME_X = 0.17  # on the file name itself (x=218), where an agent would click


def _thunar_row(i: int) -> tuple[float, float]:
    return (_THUNAR_NAME_X, (125 + 28 * i) / 800)


def _s(action: str, **params: Any) -> Step:
    return Step(ENV, action, params)


def _desktop(envs: Mapping[str, Any]) -> Any:
    return envs[ENV]


def _terminal(*commands: str) -> list[Step]:
    """Open the terminal from the launcher and run commands (each typed, then Enter)."""
    return [_s("search_application", name="terminal"), *(_s("write_text", text=c + "\n") for c in commands)]


def _save_as(path: str) -> list[Step]:
    """ctrl+s in an application whose document has no file yet, then the path in the dialog's name field.

    The GTK file chooser accepts ``~/...`` paths there. Enter is a step of its own: typed right after the
    path it can reach the entry's completion popup instead of the dialog.
    """
    return [_s("hotkey", keys=["ctrl", "s"]), _s("write_text", text=path), _s("press", key="enter")]


def _shell_quote(path: str) -> str:
    """A ``~/...`` path for bash: ``~`` stays unquoted so it expands, the rest is single-quoted."""
    head, rest = ("~/", path[2:]) if path.startswith("~/") else ("", path)
    return head + "'" + rest.replace("'", "'\\''") + "'"


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0]


# ---- terminal -----------------------------------------------------------------------------------


def _create_folder_solution(folder: str) -> list[Step]:
    return _terminal(f"mkdir -p {_shell_quote(folder)}")


TERMINAL_CREATE_FOLDER = register(
    SubTaskTemplate(
        id="terminal_create_folder",
        description="Open a terminal and create the folder {folder} (create any missing parent folders too).",
        attributes={"folder": "folder"},
        evaluator=lambda folder: [ev.dir_exists(path=folder)],
        solution=_create_folder_solution,
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="folder",
        output=lambda folder: folder,
    )
)


def _count_lines_setup(envs: Mapping[str, Any], source: str, count: int, target: str) -> None:
    _desktop(envs).write_file(source, "".join(f"entry {i + 1}\n" for i in range(count)))


TERMINAL_COUNT_LINES = register(
    SubTaskTemplate(
        id="terminal_count_lines",
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
        solution=lambda source, count, target: _terminal(
            f"wc -l < {_shell_quote(source)} > {_shell_quote(target)}"
        ),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda source, count, target: target,
        hidden=("count",),
    )
)


# ---- files (Thunar) -----------------------------------------------------------------------------


def _files_rename_setup(envs: Mapping[str, Any], folder: str, old_name: str, new_name: str) -> None:
    env = _desktop(envs)
    env.write_file(f"{folder}/{old_name}", f"Contents of {old_name}\n")
    env.open_app("file_manager", str(env.session.resolve(folder)))


FILES_RENAME = register(
    SubTaskTemplate(
        id="files_rename",
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
            _s("hotkey", keys=["ctrl", "2"]),
            _s("click", point=_thunar_row(0)),
            _s("press", key="f2"),
            _s("hotkey", keys=["ctrl", "a"]),
            _s("write_text", text=new_name + "\n"),
        ],
        platforms=PLATFORMS,
        apps=("file_manager",),
        output_type="path",
        output=lambda folder, old_name, new_name: f"{folder}/{new_name}",
        screen_setup=True,
    )
)


def _files_move_setup(envs: Mapping[str, Any], folder: str, filename: str, subfolder: str) -> None:
    env = _desktop(envs)
    env.write_file(f"{folder}/{filename}", f"Contents of {filename}\n")
    env.write_file(f"{folder}/{subfolder}/.keep", "")
    env.open_app("file_manager", str(env.session.resolve(folder)))


FILES_MOVE = register(
    SubTaskTemplate(
        id="files_move",
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
            _s("hotkey", keys=["ctrl", "2"]),
            _s("click", point=_thunar_row(1)),
            _s("hotkey", keys=["ctrl", "x"]),
            _s("double_click", point=_thunar_row(0)),
            _s("hotkey", keys=["ctrl", "v"]),
        ],
        platforms=PLATFORMS,
        apps=("file_manager",),
        output_type="path",
        output=lambda folder, filename, subfolder: f"{folder}/{subfolder}/{filename}",
        screen_setup=True,
    )
)


# ---- text editor (Mousepad) ---------------------------------------------------------------------


TEXT_EDITOR_WRITE_FILE = register(
    SubTaskTemplate(
        id="text_editor_write_file",
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
            _s("search_application", name="text editor"),
            _s("write_text", text=f"{first_line}\n{second_line}\n"),
            *_save_as(path),
        ],
        platforms=PLATFORMS,
        apps=("text_editor",),
        output_type="path",
        output=lambda path, first_line, second_line: path,
        inputs=("first_line",),
    )
)


_EDIT_LINES = ("milk", "bread", "eggs")


def _edit_setup(envs: Mapping[str, Any], path: str, line: str) -> None:
    env = _desktop(envs)
    env.write_file(path, "".join(f"{x}\n" for x in _EDIT_LINES))
    env.open_app("text_editor", str(env.session.resolve(path)))


TEXT_EDITOR_APPEND_LINE = register(
    SubTaskTemplate(
        id="text_editor_append_line",
        description=(
            "The Text Editor has the file {path} open. Add the line '{line}' at the end of the file, after "
            "the lines already there, and save it."
        ),
        attributes={"path": "path", "line": "text"},
        evaluator=lambda path, line: [ev.file_lines(path=path, lines=[*_EDIT_LINES, line])],
        setup=_edit_setup,
        solution=lambda path, line: [
            _s("hotkey", keys=["ctrl", "end"]),
            _s("write_text", text=line + "\n"),
            _s("hotkey", keys=["ctrl", "s"]),
        ],
        platforms=PLATFORMS,
        apps=("text_editor",),
        output_type="path",
        output=lambda path, line: path,
        screen_setup=True,
    )
)


def _copy_setup(envs: Mapping[str, Any], path: str, text: str) -> None:
    env = _desktop(envs)
    env.write_file(path, text + "\n")
    env.open_app("text_editor", str(env.session.resolve(path)))


TEXT_EDITOR_COPY_TEXT = register(
    SubTaskTemplate(
        id="text_editor_copy_text",
        description="The Text Editor has the file {path} open. Copy all of its text to the clipboard.",
        attributes={"path": "path", "text": "text"},
        evaluator=lambda path, text: [ev.clipboard_contains(text=text)],
        setup=_copy_setup,
        solution=lambda path, text: [_s("hotkey", keys=["ctrl", "a"]), _s("hotkey", keys=["ctrl", "c"])],
        platforms=PLATFORMS,
        apps=("text_editor",),
        output_type="text",
        output=lambda path, text: text,
        screen_setup=True,
        hidden=("text",),
    )
)


# ---- vim ------------------------------------------------------------------------------------------


VIM_WRITE_FILE = register(
    SubTaskTemplate(
        id="vim_write_file",
        description="In a terminal, use vim to create the file {path} containing the single line '{text}'.",
        attributes={"path": "path", "text": "text"},
        evaluator=lambda path, text: [ev.file_exists(path=path), ev.file_equals(path=path, text=text)],
        solution=lambda path, text: [
            *_terminal(f"vim {_shell_quote(path)}"),
            _s("press", key="i"),
            _s("write_text", text=text),
            _s("press", key="esc"),
            _s("write_text", text=":wq\n"),
        ],
        platforms=PLATFORMS,
        apps=("terminal", "vim"),
        output_type="path",
        output=lambda path, text: path,
        inputs=("text",),
    )
)


# ---- LibreOffice ----------------------------------------------------------------------------------


WRITER_CREATE_DOCUMENT = register(
    SubTaskTemplate(
        id="writer_create_document",
        description=(
            "Using LibreOffice Writer, write a document whose first line is the title '{title}' followed by "
            "the sentence '{body}', and save it in OpenDocument format as {path}."
        ),
        attributes={"path": "path.odt", "title": "text", "body": "text"},
        evaluator=lambda path, title, body: [
            ev.file_exists(path=path),
            ev.document_contains(path=path, text=title),
            ev.document_contains(path=path, text=body),
        ],
        solution=lambda path, title, body: [
            _s("search_application", name="writer"),
            _s("write_text", text=f"{title}\n{body}"),
            *_save_as(path),
        ],
        platforms=PLATFORMS,
        apps=("writer",),
        output_type="path",
        output=lambda path, title, body: path,
        inputs=("body",),
    )
)


def _calc_graph(path: str, header: str, a: int, b: int, c: int) -> list[Any]:
    values = ev.spreadsheet_cell(path=path, ref="A1", value=header)
    for ref, v in (("A2", a), ("A3", b), ("A4", c)):
        values = values & ev.spreadsheet_cell(path=path, ref=ref, value=str(v))
    return [ev.file_exists(path=path), values, ev.spreadsheet_cell(path=path, ref="A5", value=str(a + b + c))]


CALC_SUM_COLUMN = register(
    SubTaskTemplate(
        id="calc_sum_column",
        description=(
            "Using LibreOffice Calc, make a spreadsheet with '{header}' in cell A1, the numbers {a}, {b} and "
            "{c} in cells A2 to A4, and their sum (a formula) in cell A5; save it in OpenDocument format as "
            "{path}."
        ),
        attributes={"path": "path.ods", "header": "word", "a": "number", "b": "number", "c": "number"},
        evaluator=_calc_graph,
        solution=lambda path, header, a, b, c: [
            _s("search_application", name="calc"),
            _s("write_text", text=f"{header}\n{a}\n{b}\n{c}\n=SUM(A2:A4)\n"),
            *_save_as(path),
        ],
        platforms=PLATFORMS,
        apps=("calc",),
        output_type="path",
        output=lambda path, header, a, b, c: path,
    )
)


def _impress_title(title: str) -> list[Step]:
    # Tab selects the slide's first placeholder (the title), Enter edits it, Esc twice leaves it.
    return [
        _s("press", key="tab"),
        _s("press", key="enter"),
        _s("write_text", text=title),
        _s("press", key="esc"),
        _s("press", key="esc"),
    ]


IMPRESS_CREATE_SLIDES = register(
    SubTaskTemplate(
        id="impress_create_slides",
        description=(
            "Using LibreOffice Impress, make a presentation of two slides titled '{first_title}' and "
            "'{second_title}', in that order, and save it in OpenDocument format as {path}."
        ),
        attributes={"path": "path.odp", "first_title": "text", "second_title": "text"},
        evaluator=lambda path, first_title, second_title: [
            ev.file_exists(path=path),
            ev.presentation_slides(path=path, titles=[first_title, second_title]),
        ],
        solution=lambda path, first_title, second_title: [
            _s("search_application", name="impress"),
            _s("press", key="esc"),  # the "Select a Template" dialog: keep the blank presentation
            *_impress_title(first_title),
            _s("hotkey", keys=["ctrl", "m"]),  # new slide (Title, Content)
            *_impress_title(second_title),
            *_save_as(path),
        ],
        platforms=PLATFORMS,
        apps=("impress",),
        output_type="path",
        output=lambda path, first_title, second_title: path,
        inputs=("second_title",),
    )
)


# ---- settings -------------------------------------------------------------------------------------


_SCHEMES = {"dark": "prefer-dark", "light": "prefer-light"}


def _scheme(color_scheme: str) -> str:
    try:
        return _SCHEMES[color_scheme]
    except KeyError:
        raise ValueError(f"color_scheme must be one of {sorted(_SCHEMES)}, got {color_scheme!r}") from None


SETTINGS_COLOR_SCHEME = register(
    SubTaskTemplate(
        id="settings_color_scheme",
        description=(
            "Switch the desktop to the {color_scheme} style: set the GNOME interface setting color-scheme "
            "(schema org.gnome.desktop.interface) to prefer-{color_scheme}, for example with gsettings in a "
            "terminal."
        ),
        attributes={"color_scheme": "color_scheme"},
        evaluator=lambda color_scheme: [
            ev.gsetting_equals(schema=INTERFACE, key="color-scheme", value=f"'{_scheme(color_scheme)}'")
        ],
        solution=lambda color_scheme: _terminal(
            f"gsettings set {INTERFACE} color-scheme {_scheme(color_scheme)}"
        ),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)


SETTINGS_TEXT_SCALING = register(
    SubTaskTemplate(
        id="settings_text_scaling",
        description=(
            "Make the desktop's text bigger: set the GNOME interface setting text-scaling-factor "
            "(schema org.gnome.desktop.interface) to {factor}, for example with gsettings in a terminal."
        ),
        attributes={"factor": "scale"},
        evaluator=lambda factor: [
            ev.gsetting_number(schema=INTERFACE, key="text-scaling-factor", value=factor)
        ],
        solution=lambda factor: _terminal(f"gsettings set {INTERFACE} text-scaling-factor {factor}"),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)


SETTINGS_FONT = register(
    SubTaskTemplate(
        id="settings_font",
        description=(
            "Change the desktop's interface font to '{font} {size}': set the GNOME interface setting "
            "font-name (schema org.gnome.desktop.interface) to that value, for example with gsettings."
        ),
        attributes={"font": "font", "size": "font_size"},
        evaluator=lambda font, size: [
            ev.gsetting_equals(schema=INTERFACE, key="font-name", value=f"'{font} {size}'")
        ],
        solution=lambda font, size: _terminal(f"gsettings set {INTERFACE} font-name '{font} {size}'"),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)

# ---- more terminal work: copy, archive, permissions, sort, grep, replace ------------------------------


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _source_setup(envs: Mapping[str, Any], source: str, **_: Any) -> None:
    _desktop(envs).write_file(source, f"Contents of {_basename(source)}\n")


TERMINAL_COPY_FILE = register(
    SubTaskTemplate(
        id="terminal_copy_file",
        description=(
            "Using the terminal, copy the file {source} into the folder {folder} (create the folder if it "
            "is missing), keeping the original where it is."
        ),
        attributes={"source": "path", "folder": "folder"},
        evaluator=lambda source, folder: [
            ev.file_exists(path=f"{folder}/{_basename(source)}") & ev.file_exists(path=source)
        ],
        setup=_source_setup,
        solution=lambda source, folder: _terminal(
            f"mkdir -p {_shell_quote(folder)} && cp {_shell_quote(source)} {_shell_quote(folder)}/"
        ),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda source, folder: f"{folder}/{_basename(source)}",
        inputs=("source", "folder"),
        setup_inputs=("source",),
    )
)

TERMINAL_ARCHIVE = register(
    SubTaskTemplate(
        id="terminal_archive",
        description=(
            "Using the terminal, pack the file {source} into a gzip-compressed tar archive {archive}."
        ),
        attributes={"source": "path", "archive": "path.tar.gz"},
        evaluator=lambda source, archive: [
            ev.file_exists(path=archive),
            ev.archive_contains(path=archive, names=[_basename(source)]),
        ],
        setup=_source_setup,
        solution=lambda source, archive: _terminal(
            f"tar czf {_shell_quote(archive)} -C {_shell_quote(_parent(source))} "
            "'" + _basename(source).replace("'", "'\\''") + "'"
        ),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda source, archive: archive,
        inputs=("source",),
        setup_inputs=("source",),
    )
)


def _script_setup(envs: Mapping[str, Any], path: str) -> None:
    _desktop(envs).write_file(path, "#!/bin/sh\necho hello\n")


TERMINAL_MAKE_EXECUTABLE = register(
    SubTaskTemplate(
        id="terminal_make_executable",
        description="Using the terminal, make the file {path} executable (give it execute permission).",
        attributes={"path": "path.sh"},
        evaluator=lambda path: [ev.file_executable(path=path)],
        setup=_script_setup,
        solution=lambda path: _terminal(f"chmod +x {_shell_quote(path)}"),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda path: path,
    )
)

_FRUITS = ("pear", "apple", "fig", "banana", "cherry", "date")


def _sort_setup(envs: Mapping[str, Any], source: str, target: str) -> None:
    _desktop(envs).write_file(source, "".join(f"{x}\n" for x in _FRUITS))


TERMINAL_SORT_LINES = register(
    SubTaskTemplate(
        id="terminal_sort_lines",
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
        solution=lambda source, target: _terminal(f"sort {_shell_quote(source)} > {_shell_quote(target)}"),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda source, target: target,
    )
)


def _grep_lines(word: str) -> tuple[list[str], list[str]]:
    lines = [f"{word} order 17", "unrelated note", f"second {word} entry", "nothing here", f"last {word}"]
    return lines, [ln for ln in lines if word in ln]


def _grep_setup(envs: Mapping[str, Any], source: str, word: str, target: str) -> None:
    _desktop(envs).write_file(source, "".join(f"{x}\n" for x in _grep_lines(word)[0]))


TERMINAL_GREP_LINES = register(
    SubTaskTemplate(
        id="terminal_grep_lines",
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
        solution=lambda source, word, target: _terminal(
            f"grep -F '{word}' {_shell_quote(source)} > {_shell_quote(target)}"
        ),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda source, word, target: target,
    )
)


def _replace_setup(envs: Mapping[str, Any], path: str, old: str, new: str) -> None:
    _desktop(envs).write_file(path, f"The {old} plan is ready.\nAsk about the {old} budget.\n")


TERMINAL_REPLACE_WORD = register(
    SubTaskTemplate(
        id="terminal_replace_word",
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
        solution=lambda path, old, new: _terminal(f"sed -i 's/{old}/{new}/g' {_shell_quote(path)}"),
        platforms=PLATFORMS,
        apps=("terminal",),
        output_type="path",
        output=lambda path, old, new: path,
    )
)


SETTINGS_CURSOR_SIZE = register(
    SubTaskTemplate(
        id="settings_cursor_size",
        description=(
            "Make the mouse pointer bigger: set the GNOME interface setting cursor-size (schema "
            "org.gnome.desktop.interface) to {size}, for example with gsettings in a terminal."
        ),
        attributes={"size": "cursor_size"},
        evaluator=lambda size: [ev.gsetting_number(schema=INTERFACE, key="cursor-size", value=size)],
        solution=lambda size: _terminal(f"gsettings set {INTERFACE} cursor-size {size}"),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)

SETTINGS_ANIMATIONS_OFF = register(
    SubTaskTemplate(
        id="settings_animations_off",
        description=(
            "Turn off the desktop's animations: set the GNOME interface setting enable-animations (schema "
            "org.gnome.desktop.interface) to false, for example with gsettings in a terminal."
        ),
        attributes={},
        evaluator=lambda: [ev.gsetting_equals(schema=INTERFACE, key="enable-animations", value="false")],
        solution=lambda: _terminal(f"gsettings set {INTERFACE} enable-animations false"),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)

SETTINGS_CLOCK_FORMAT = register(
    SubTaskTemplate(
        id="settings_clock_format",
        description=(
            "Show the desktop clock in 12-hour format: set the GNOME interface setting clock-format (schema "
            "org.gnome.desktop.interface) to 12h, for example with gsettings in a terminal."
        ),
        attributes={},
        evaluator=lambda: [ev.gsetting_equals(schema=INTERFACE, key="clock-format", value="'12h'")],
        solution=lambda: _terminal(f"gsettings set {INTERFACE} clock-format 12h"),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)


def _delete_setup(envs: Mapping[str, Any], path: str) -> None:
    _desktop(envs).write_file(path, "old data\n")


TERMINAL_DELETE_FILE = register(
    SubTaskTemplate(
        id="terminal_delete_file",
        description="Using the terminal, delete the file {path}; it is no longer needed.",
        attributes={"path": "path"},
        evaluator=lambda path: [ev.path_absent(path=path)],
        setup=_delete_setup,
        solution=lambda path: _terminal(f"rm {_shell_quote(path)}"),
        platforms=PLATFORMS,
        apps=("terminal",),
    )
)


DESKTOP_TEMPLATES: tuple[SubTaskTemplate, ...] = (
    TERMINAL_CREATE_FOLDER,
    TERMINAL_COUNT_LINES,
    FILES_RENAME,
    FILES_MOVE,
    TEXT_EDITOR_WRITE_FILE,
    TEXT_EDITOR_APPEND_LINE,
    TEXT_EDITOR_COPY_TEXT,
    VIM_WRITE_FILE,
    WRITER_CREATE_DOCUMENT,
    CALC_SUM_COLUMN,
    IMPRESS_CREATE_SLIDES,
    SETTINGS_COLOR_SCHEME,
    SETTINGS_TEXT_SCALING,
    SETTINGS_FONT,
    TERMINAL_COPY_FILE,
    TERMINAL_ARCHIVE,
    TERMINAL_MAKE_EXECUTABLE,
    TERMINAL_SORT_LINES,
    TERMINAL_GREP_LINES,
    TERMINAL_REPLACE_WORD,
    SETTINGS_CURSOR_SIZE,
    SETTINGS_ANIMATIONS_OFF,
    SETTINGS_CLOCK_FORMAT,
    TERMINAL_DELETE_FILE,
)

__all__ = ["DESKTOP_TEMPLATES"]

"""Desktop templates CRAB v0's sub-tasks need beyond ours (see :mod:`crab_gym.tasks.crab_v0`): print a file
in a terminal, submit a text, set the background picture, copy the files of one extension.

The generator does not sample them (:data:`CRAB_EXTRA`): the fixed benchmark v0 is built from the other
templates. Setups write the files CRAB's VM had, drawn from the file's name (text, pictures), never copied.
"""

from __future__ import annotations

import io
import random
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V1_SETS, Step, SubTaskTemplate
from crab_gym.envs import root
from crab_gym.tasks.templates.desktop.common import PLATFORMS, desktop, save_as, shell_quote, step, terminal

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

_WORDS = (
    "harbor lantern copper meadow signal orbit maple quartz ember violet tundra canyon willow "
    "beacon falcon glacier pepper saffron timber velvet"
).split()
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tiff")


def _rng(path: str) -> random.Random:
    """A generator seeded by the file's name, so one name gives one content wherever it is written."""
    return random.Random(zlib.crc32(path.rsplit("/", 1)[-1].encode()))


def seeded_text(path: str) -> str:
    """Some lines of text for the file ``path``: a title, then sentences of words."""
    rng = _rng(path)
    lines = [f"Notes on {rng.choice(_WORDS)} {rng.randint(10, 99)}"]
    lines += [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 9))) + "." for _ in range(4)]
    return "\n".join(lines) + "\n"


def seeded_picture(path: str, size: tuple[int, int] = (320, 240)) -> bytes:
    """A picture for the file ``path`` (PNG, JPEG, ... by its extension): a gradient with a few discs and
    bars, textured enough for image matching, mid-bright so it can be made brighter or darker."""
    rng = _rng(path)
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    c0, c1 = (np.array([rng.randint(40, 200) for _ in range(3)], np.float32) for _ in range(2))
    t = ((xs / w) * rng.random() + (ys / h) * (1 - rng.random()))[..., None].clip(0, 1)
    img = c0 * (1 - t) + c1 * t
    for _ in range(6):
        cx, cy, r = rng.randint(0, w), rng.randint(0, h), rng.randint(12, 60)
        disc = ((xs - cx) ** 2 + (ys - cy) ** 2) < r * r
        img[disc] = [rng.randint(0, 255) for _ in range(3)]
    for _ in range(4):
        x0, y0 = rng.randint(0, w - 20), rng.randint(0, h - 20)
        img[y0 : y0 + rng.randint(6, 40), x0 : x0 + rng.randint(20, 120)] = [
            rng.randint(0, 255) for _ in range(3)
        ]
    from PIL import Image  # here: importing the task library loads no Pillow

    out = io.BytesIO()
    fmt = {"jpg": "JPEG", "jpeg": "JPEG", "tiff": "TIFF", "bmp": "BMP", "gif": "GIF"}
    Image.fromarray(img.clip(0, 255).astype(np.uint8)).save(
        out, fmt.get(path.rsplit(".", 1)[-1].lower(), "PNG")
    )
    return out.getvalue()


def seeded_file(path: str) -> bytes:
    """A picture for a picture's name, text for any other."""
    if path.lower().endswith(PICTURE_SUFFIXES):
        return seeded_picture(path)
    return seeded_text(path).encode()


# ---- terminal: print a file ---------------------------------------------------------------------


def _print_text(file_path: str, text: str) -> str:
    """The file's text: ``text`` (CRAB's output, a successor uses it) or, when empty, drawn from the name."""
    return text.strip() + "\n" if text.strip() else seeded_text(file_path)


def _print_setup(envs: Mapping[str, Any], file_path: str, text: str) -> None:
    desktop(envs).write_file(file_path, _print_text(file_path, text))


TERMINAL_PRINT_FILE = SubTaskTemplate(
    id="terminal_print_file",
    sets=V1_SETS,
    description=(
        "Get the content of the file {file_path} by printing it in a terminal (for example with cat); "
        "leave the terminal in front, showing it."
    ),
    attributes={"file_path": "path", "text": "text"},  # text: what the setup writes (see _print_text)
    evaluator=lambda file_path, text: [ev.terminal_shows_file(path=file_path)],
    setup=_print_setup,
    solution=lambda file_path, text: terminal(f"cat {shell_quote(file_path)}"),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="text",
    output=lambda file_path, text: _print_text(file_path, text).strip(),
    inputs=("file_path",),
    setup_inputs=("file_path",),
    hidden=("text",),
)


# ---- submit a text ------------------------------------------------------------------------------

SUBMIT_TEXT = SubTaskTemplate(
    id="submit_text",
    sets=V1_SETS,
    description="Submit the text '{content}' as your answer (the submit action).",
    attributes={"content": "text"},
    evaluator=lambda content: [root.answer_equals(value=content)],
    solution=lambda content: [Step("root", "submit", {"answer": content})],
    platforms=PLATFORMS,
    inputs=("content",),
)


# ---- the desktop background ---------------------------------------------------------------------


def _background_setup(envs: Mapping[str, Any], photo_path: str) -> None:
    desktop(envs).write_file(photo_path, seeded_picture(photo_path))


def _file_uri(path: str) -> str:
    """``path`` as a ``file://`` URI for bash: ``~`` becomes ``$HOME``, the rest is quoted."""
    if path.startswith("~/"):
        return '"file://$HOME"/' + shell_quote(path)[2:]
    return "file://" + shell_quote(path)


SETTINGS_BACKGROUND = SubTaskTemplate(
    id="settings_background",
    sets=V1_SETS,
    description=(
        "Set the picture {photo_path} as the desktop background: the GNOME setting picture-uri (schema "
        "org.gnome.desktop.background) must name it, for example with gsettings in a terminal."
    ),
    attributes={"photo_path": "path.png"},
    evaluator=lambda photo_path: [ev.background_is(path=photo_path)],
    setup=_background_setup,
    solution=lambda photo_path: terminal(
        f"gsettings set org.gnome.desktop.background picture-uri {_file_uri(photo_path)}"
    ),
    platforms=PLATFORMS,
    apps=("terminal",),
    inputs=("photo_path",),
    setup_inputs=("photo_path",),
)


# ---- copy the files of one extension ------------------------------------------------------------


def copy_sources(source_dir: str, file_extension: str) -> list[str]:
    """The files the setup puts in ``source_dir``: three of the extension and two of another."""
    other = "md" if file_extension == "txt" else "txt"
    rng = _rng(f"{source_dir}.{file_extension}")
    stems = rng.sample(_WORDS, 5)
    return [f"{s}.{file_extension}" for s in stems[:3]] + [f"{s}.{other}" for s in stems[3:]]


def _copy_setup(envs: Mapping[str, Any], file_extension: str, source_dir: str, target_dir: str) -> None:
    env = desktop(envs)
    for name in copy_sources(source_dir, file_extension):
        env.write_file(f"{source_dir}/{name}", seeded_file(name))


def _glob(folder: str, extension: str) -> str:
    return shell_quote(folder) + "/*." + extension


COPY_BY_EXTENSION = SubTaskTemplate(
    id="terminal_copy_by_extension",
    sets=V1_SETS,
    description=(
        "Create the folder {target_dir} and copy every file with the extension '{file_extension}' from "
        "the folder {source_dir} into it."
    ),
    attributes={"file_extension": "word", "source_dir": "folder", "target_dir": "folder"},
    evaluator=lambda file_extension, source_dir, target_dir: [
        ev.dir_exists(path=target_dir),
        ev.files_copied(source=source_dir, target=target_dir, extension=file_extension),
    ],
    setup=_copy_setup,
    solution=lambda file_extension, source_dir, target_dir: terminal(
        f"mkdir -p {shell_quote(target_dir)}",
        f"cp {_glob(source_dir, file_extension)} {shell_quote(target_dir)}/",
    ),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="folder",
    output=lambda file_extension, source_dir, target_dir: target_dir,
)


# ---- paste the clipboard: Writer, and Mousepad for CRAB's VS Code --------------------------------


def _paste_setup(envs: Mapping[str, Any], file_path: str) -> None:
    desktop(envs).set_clipboard(seeded_text(file_path).strip())


def _paste(
    template_id: str, app: str, launcher: str, into: str, check: str, path_type: str
) -> SubTaskTemplate:
    """Paste the clipboard (the setup's text) into a new document of ``app``, saved as ``file_path``;
    ``check`` names the desktop evaluator that reads it (looked up when a task is built)."""
    return SubTaskTemplate(
        id=template_id,
        description=f"Paste the text on the clipboard into {into} {{file_path}}.",
        attributes={"file_path": path_type},
        evaluator=lambda file_path: [ev.file_exists(path=file_path), getattr(ev, check)(path=file_path)],
        setup=_paste_setup,
        solution=lambda file_path: [
            step("search_application", name=launcher),
            step("hotkey", keys=["ctrl", "v"]),
            *save_as(file_path),
        ],
        platforms=PLATFORMS,
        apps=(app,),
        output_type="path",
        output=lambda file_path: file_path,
        sets=V1_SETS,
    )


WRITER_PASTE = _paste(
    "writer_paste_clipboard",
    "writer",
    "writer",
    "a new LibreOffice Writer document and save it in OpenDocument format as",
    "document_holds_clipboard",
    "path.odt",
)
# CRAB names VS Code, which no registry we reach has: the desktop's editor, Mousepad, stands in.
TEXT_EDITOR_PASTE = _paste(
    "text_editor_paste_clipboard",
    "text_editor",
    "text editor",
    "a new document in the Text Editor (Mousepad) and save it as",
    "file_lines_hold_clipboard",
    "path",
)

CRAB_EXTRA: tuple[SubTaskTemplate, ...] = (
    TERMINAL_PRINT_FILE,
    SUBMIT_TEXT,
    SETTINGS_BACKGROUND,
    COPY_BY_EXTENSION,
    WRITER_PASTE,
    TEXT_EDITOR_PASTE,
)

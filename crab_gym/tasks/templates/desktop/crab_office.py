"""LibreOffice templates CRAB v0's sub-tasks need (see :mod:`crab_gym.tasks.crab_v0`): two pictures placed in
a Writer document or on an Impress slide saved as PDF, a picture made darker in Impress.

Like :mod:`crab_extra`'s, the generator does not sample them. Setups write the pictures, drawn from their
names. The scripted solutions use the menus by keyboard and the Position and Size dialog (F4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V1_SETS, Step, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import PLATFORMS, desktop, save_as, step
from crab_gym.tasks.templates.desktop.crab_extra import seeded_picture

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

# Writer's Frame toolbar while an image is selected, window maximised: the Anchor drop-down, and its item
# "As Character" (the image sits in its paragraph's line like a letter).
WRITER_ANCHOR_MENU = (41 / 1280, 101 / 800)
WRITER_AS_CHARACTER = (74 / 1280, 186 / 800)
# The Properties sidebar's Brightness field for a selected image in Impress at 1280x800, window maximised.
IMPRESS_BRIGHTNESS = (1080 / 1280, 263 / 800)
# The Export dialog's "Selection" check box (export only the selected object), and its Name field.
EXPORT_SELECTION = (97 / 1280, 699 / 800)
EXPORT_NAME = (668 / 1280, 46 / 800)


def _pause() -> Step:
    """Time for a LibreOffice dialog to take keys: on a loaded machine it can be built after the screen
    settles (which waits at most a few seconds), and the keys sent before that are lost."""
    return Step("root", "wait", {"seconds": 2})


def _pictures_setup(envs: Mapping[str, Any], **attrs: Any) -> None:
    for name in ("image_path_1", "image_path_2", "image_path_before_edit"):
        if name in attrs:
            desktop(envs).write_file(attrs[name], seeded_picture(attrs[name]))


def _insert_image(path: str, menu_key: str) -> list[Step]:
    """Insert > Image..., the picture's path in the file dialog; the new image stays selected."""
    return [
        step("hotkey", keys=["alt", "i"]),
        step("press", key=menu_key),
        _pause(),
        step("write_text", text=path),
        step("press", key="enter"),
        _pause(),
    ]


def _export(path: str) -> list[Step]:
    """File > Export..., the path (its extension picks the format), then Enter on the format's options."""
    return [
        step("hotkey", keys=["alt", "f"]),
        step("press", key="t"),
        _pause(),
        step("write_text", text=path),
        step("press", key="enter"),
        _pause(),
        step("press", key="enter"),
    ]


def _as_character() -> list[Step]:
    return [
        step("click", point=WRITER_ANCHOR_MENU),
        _pause(),
        step("click", point=WRITER_AS_CHARACTER),
        step("press", key="esc"),
    ]


# ---- Writer: one picture above the other ---------------------------------------------------------

WRITER_IMAGES_ABOVE = SubTaskTemplate(
    id="writer_images_above",
    sets=V1_SETS,
    description=(
        "Using LibreOffice Writer, put the picture {image_path_1} above the picture {image_path_2} in a new "
        "document (not overlapping) and save it in OpenDocument format as {output_path}."
    ),
    attributes={"image_path_1": "path.png", "image_path_2": "path.png", "output_path": "path.odt"},
    evaluator=lambda image_path_1, image_path_2, output_path: [
        ev.file_exists(path=output_path),
        ev.images_placed(path=output_path, first=image_path_1, second=image_path_2, direction="above"),
    ],
    setup=_pictures_setup,
    # Each picture anchored as a character in a paragraph of its own (Writer's default anchor lets the next
    # paragraph start beside the picture): Esc leaves the image, ctrl+End and Enter open the next paragraph.
    solution=lambda image_path_1, image_path_2, output_path: [
        step("search_application", name="writer"),
        *_insert_image(image_path_1, "i"),
        *_as_character(),
        step("hotkey", keys=["ctrl", "end"]),
        step("press", key="enter"),
        *_insert_image(image_path_2, "i"),
        *_as_character(),
        *save_as(output_path),
    ],
    platforms=PLATFORMS,
    apps=("writer",),
    output_type="path",
    output=lambda image_path_1, image_path_2, output_path: output_path,
)


# ---- Impress: one picture right of the other, as PDF ---------------------------------------------


def _place(x: str) -> list[Step]:
    """F4 on the selected image: Position X (after a Tab from the dialog's tab strip), then OK; Esc
    deselects the image back in the slide (the menu keys that follow can be lost while the dialog closes)."""
    return [
        step("press", key="f4"),
        _pause(),
        step("press", key="tab"),
        step("hotkey", keys=["ctrl", "a"]),
        step("write_text", text=x),
        step("press", key="enter"),
        step("press", key="esc"),
    ]


IMPRESS_IMAGES_RIGHT = SubTaskTemplate(
    id="impress_images_right_pdf",
    sets=V1_SETS,
    description=(
        "Using LibreOffice Impress, put the picture {image_path_1} to the right of the picture "
        "{image_path_2} on a slide (not overlapping) and export it as PDF to {output_path}."
    ),
    attributes={"image_path_1": "path.png", "image_path_2": "path.png", "output_path": "path.pdf"},
    evaluator=lambda image_path_1, image_path_2, output_path: [
        ev.file_exists(path=output_path),
        ev.images_placed(path=output_path, first=image_path_1, second=image_path_2, direction="right"),
    ],
    setup=_pictures_setup,
    solution=lambda image_path_1, image_path_2, output_path: [
        step("search_application", name="impress"),
        step("press", key="esc"),  # the "Select a Template" dialog: keep the blank presentation
        *_insert_image(image_path_2, "enter"),  # Image... is the Insert menu's first item
        *_place('0.5"'),
        *_insert_image(image_path_1, "enter"),
        *_place('6"'),
        *_export(output_path),
    ],
    platforms=PLATFORMS,
    apps=("impress",),
    output_type="path",
    output=lambda image_path_1, image_path_2, output_path: output_path,
)


# ---- Impress: a picture made darker -------------------------------------------------------------

IMPRESS_DARKER = SubTaskTemplate(
    id="impress_image_darker",
    sets=V1_SETS,
    description=(
        "Using LibreOffice Impress, lower the brightness of the picture {image_path_before_edit} (make it "
        "darker) and save the darker picture as {image_path_after_edit}."
    ),
    attributes={"image_path_before_edit": "path.png", "image_path_after_edit": "path.png"},
    evaluator=lambda image_path_before_edit, image_path_after_edit: [
        ev.file_exists(path=image_path_after_edit),
        ev.image_darker(before=image_path_before_edit, after=image_path_after_edit),
    ],
    setup=_pictures_setup,
    # The sidebar's Brightness to -30 %, then File > Export... of the selection only, named by clicks.
    solution=lambda image_path_before_edit, image_path_after_edit: [
        step("search_application", name="impress"),
        step("press", key="esc"),
        *_insert_image(image_path_before_edit, "enter"),
        step("triple_click", point=IMPRESS_BRIGHTNESS),
        step("write_text", text="-30%\n"),
        step("hotkey", keys=["alt", "f"]),
        step("press", key="t"),
        _pause(),
        step("click", point=EXPORT_SELECTION),
        step("triple_click", point=EXPORT_NAME),
        step("write_text", text=image_path_after_edit),
        step("press", key="enter"),
        _pause(),
        step("press", key="enter"),
    ],
    platforms=PLATFORMS,
    apps=("impress",),
    output_type="path",
    output=lambda image_path_before_edit, image_path_after_edit: image_path_after_edit,
    inputs=("image_path_before_edit",),
    setup_inputs=("image_path_before_edit",),
)

CRAB_OFFICE: tuple[SubTaskTemplate, ...] = (WRITER_IMAGES_ABOVE, IMPRESS_IMAGES_RIGHT, IMPRESS_DARKER)

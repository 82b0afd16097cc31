"""Image templates in GIMP (CRAB v0's GIMP sub-tasks): the setup draws each picture from its file name
(:func:`seeded_picture`, 320x240, which the solutions rely on), the scripted solution works GIMP's menus and
dialogs, the checks read the saved file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V1_SETS, Step, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import PLATFORMS, desktop, step
from crab_gym.tasks.templates.desktop.crab_extra import seeded_picture

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
    from crab_gym.envs.desktop import image_evaluators as img_ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")
    img_ev = lazy_module("crab_gym.envs.desktop.image_evaluators")

IMAGE_SIZE = (320, 240)
WAIT = Step("root", "wait", {"seconds": 1})


def _home_relative(path: str) -> str:
    """GIMP's GTK 2 file chooser drops a typed ``~``: the dialog goes home (alt+Home), the path is typed
    relative to it."""
    return path[2:] if path.startswith("~/") else path


def open_image(path: str, keys: tuple[str, ...] = ("ctrl", "o")) -> list[Step]:
    """File > Open (ctrl+o; File > Open as Layers is ctrl+alt+o): home folder, the path in the location
    entry (which the session's GTK 2 file chooser shows from the start), Enter."""
    return [
        step("hotkey", keys=list(keys)),
        step("hotkey", keys=["alt", "home"]),
        step("write_text", text=_home_relative(path)),
        step("press", key="enter"),
        WAIT,  # the format's plug-in loads the file; GIMP takes no shortcuts until it is shown
    ]


def export_as(path: str) -> list[Step]:
    """File > Export As (shift+ctrl+e): home folder, the name field replaced by the path, Enter, then Enter
    again on the format's options dialog (its Export button)."""
    return [
        step("hotkey", keys=["shift", "ctrl", "e"]),
        step("hotkey", keys=["alt", "home"]),
        step("hotkey", keys=["ctrl", "a"]),
        step("write_text", text=_home_relative(path)),
        step("press", key="enter"),
        WAIT,  # the format's plug-in starts and opens its options dialog
        step("press", key="enter"),
    ]


def _dialog_field(value: int, tabs: int = 1) -> list[Step]:
    """In a GIMP dialog that opens with its presets or template box focused: Tab to the first number field
    (``tabs`` times), replace its value, Tab to commit it."""
    return [
        WAIT,  # the dialog builds before it takes keys
        *[step("press", key="tab")] * tabs,
        step("hotkey", keys=["ctrl", "a"]),
        step("write_text", text=str(value)),
        step("press", key="tab"),
    ]


def _brighten_setup(envs: Mapping[str, Any], source: str, target: str) -> None:
    desktop(envs).write_file(source, seeded_picture(source, IMAGE_SIZE))


GIMP_BRIGHTEN_IMAGE = SubTaskTemplate(
    id="gimp_brighten_image",
    sets=V1_SETS,
    description=(
        "Use GIMP (GNU Image Manipulation Program) to make the image {source} brighter and save the "
        "result as {target}."
    ),
    attributes={"source": "path.png", "target": "path.png"},
    evaluator=lambda source, target: [
        ev.file_exists(path=target),
        img_ev.image_brighter(source=source, target=target),
    ],
    setup=_brighten_setup,
    solution=lambda source, target: [
        step("search_application", name="GIMP"),
        *open_image(source),
        # Colors > Brightness-Contrast (mnemonics alt+c, r), Brightness +60, OK (alt+o)
        step("hotkey", keys=["alt", "c"]),
        step("press", key="r"),
        step("press", key="enter"),
        *_dialog_field(60),
        step("hotkey", keys=["alt", "o"]),
        *export_as(target),
    ],
    platforms=PLATFORMS,
    apps=("gimp",),
    output_type="path",
    output=lambda source, target: target,
    inputs=("source",),
    setup_inputs=("source",),
)


def _combine_setup(envs: Mapping[str, Any], left: str | None, right: str | None, path: str) -> None:
    """Draw each image no predecessor makes (a fed one comes as None)."""
    for p in (left, right):
        if p is not None:
            desktop(envs).write_file(p, seeded_picture(p, IMAGE_SIZE))


_W, _H = IMAGE_SIZE

GIMP_COMBINE_LEFT_RIGHT = SubTaskTemplate(
    id="gimp_combine_left_right",
    sets=V1_SETS,
    description=(
        "Use GIMP (GNU Image Manipulation Program) to combine the images {left} and {right} into one image, "
        "{left} on the left and {right} on the right, side by side, and save it as {path}."
    ),
    attributes={"left": "path.png", "right": "path.png", "path": "path.png"},
    evaluator=lambda left, right, path: [
        ev.file_exists(path=path),
        img_ev.image_left_of(left=left, right=right, path=path),
    ],
    setup=_combine_setup,
    solution=lambda left, right, path: [
        step("search_application", name="GIMP"),
        *open_image(left),
        # Image > Canvas Size (alt+i, v): twice as wide, the image stays at the left; Resize (alt+r)
        step("hotkey", keys=["alt", "i"]),
        step("press", key="v"),
        *_dialog_field(2 * _W, tabs=2),
        step("hotkey", keys=["alt", "r"]),
        # File > Open as Layers: GIMP centres the new layer on the canvas, a quarter of the width in
        *open_image(right, keys=("ctrl", "alt", "o")),
        # Layer > Transparency > Add Alpha Channel (alt+l, a, h; a layer that has one already leaves the
        # item off and the menus open: two Escapes close them), Layer > Layer to Image Size (alt+l, i: the
        # new area transparent), then Layer > Transform > Offset (shift+ctrl+o) by that quarter: the right
        # image ends at the right edge; OK (alt+o)
        step("hotkey", keys=["alt", "l"]),
        step("press", key="a"),
        step("press", key="h"),
        step("press", key="esc"),
        step("press", key="esc"),
        step("hotkey", keys=["alt", "l"]),
        step("press", key="i"),
        step("hotkey", keys=["shift", "ctrl", "o"]),
        *_dialog_field(_W // 2),
        step("hotkey", keys=["alt", "o"]),
        *export_as(path),
    ],
    platforms=PLATFORMS,
    apps=("gimp",),
    output_type="path",
    output=lambda left, right, path: path,
    inputs=("left", "right"),
    setup_inputs=("left", "right"),
    setup_each=True,
)

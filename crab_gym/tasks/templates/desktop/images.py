"""Image templates in GIMP (CRAB v0's GIMP sub-tasks): the setup draws the image from a seed with Pillow, the
scripted solution works GIMP's menus and dialogs, the checks read the saved file."""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping
from typing import Any

from crab_gym.core.tasks import Step, SubTaskTemplate
from crab_gym.envs.desktop import evaluators as ev
from crab_gym.envs.desktop import image_evaluators as img_ev
from crab_gym.tasks.templates.desktop.common import PLATFORMS, desktop, step

IMAGE_SIZE = (320, 240)
WAIT = Step("root", "wait", {"seconds": 1})


def draw_image(seed: int, size: tuple[int, int] = IMAGE_SIZE) -> Any:
    """A picture from ``seed``: a mid-grey gradient under coloured boxes, neither dark nor light, so it
    can be made brighter or darker and is found again in a collage."""
    import numpy as np
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(seed)
    w, h = size
    base = np.linspace(70, 150, w)[None, :, None] + rng.uniform(-20, 20, 3)[None, None, :]
    img = Image.fromarray(np.broadcast_to(base, (h, w, 3)).clip(0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    for _ in range(8):
        x0, y0 = int(rng.integers(0, w - 40)), int(rng.integers(0, h - 40))
        x1, y1 = x0 + int(rng.integers(20, 120)), y0 + int(rng.integers(20, 90))
        draw.rectangle((x0, y0, x1, y1), fill=tuple(int(c) for c in rng.integers(40, 200, 3)))
    return img


def image_bytes(path: str) -> bytes:
    """The image a setup writes at ``path``: seeded by the path, in the format its extension names."""
    fmt = {"jpg": "JPEG", "jpeg": "JPEG", "bmp": "BMP", "tif": "TIFF", "tiff": "TIFF"}
    ext = path.rsplit(".", 1)[-1].lower()
    out = io.BytesIO()
    draw_image(zlib.crc32(path.encode())).save(out, fmt.get(ext, "PNG"))
    return out.getvalue()


def _home_relative(path: str) -> str:
    """GIMP's GTK 2 file chooser drops a typed ``~``: the dialog goes home (alt+Home), the path is typed
    relative to it."""
    return path[2:] if path.startswith("~/") else path


def open_image(path: str) -> list[Step]:
    """File > Open (ctrl+o): home folder, the location entry (ctrl+l), the path, Enter."""
    return [
        step("hotkey", keys=["ctrl", "o"]),
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


def _brighten_setup(envs: Mapping[str, Any], source: str, target: str) -> None:
    desktop(envs).write_file(source, image_bytes(source))


GIMP_BRIGHTEN_IMAGE = SubTaskTemplate(
    id="gimp_brighten_image",
    description=(
        "Use GIMP (GNU Image Manipulation Program) to make the image {source} brighter and save the "
        "result as {target}."
    ),
    attributes={"source": "path", "target": "path"},
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
        WAIT,  # the dialog builds its preview before it takes keys
        step("press", key="tab"),
        step("hotkey", keys=["ctrl", "a"]),
        step("write_text", text="60"),
        step("press", key="tab"),
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

"""Checks of image files on the desktop (Pillow and numpy), as CRAB v0 judges its GIMP sub-tasks."""

from __future__ import annotations

import io

import numpy as np

from crab_gym.core.evaluators import evaluator
from crab_gym.envs.desktop.state import DesktopState

ENV = "ubuntu"


def brightness(data: bytes) -> float | None:
    """Mean brightness of an image: each pixel's RGB length over sqrt(3) (a grey level, 0-255); None when
    the bytes are no image Pillow reads."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            rgb = np.asarray(img.convert("RGB"), dtype=np.float64)
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    return float(np.linalg.norm(rgb, axis=2).mean() / np.sqrt(3))


@evaluator(env=ENV)
def image_brighter(state: DesktopState, source: str, target: str) -> bool:
    """the image {target} is brighter than {source}"""
    before, after = state.read_bytes(source), state.read_bytes(target)
    if before is None or after is None:
        return False
    a, b = brightness(before), brightness(after)
    return a is not None and b is not None and b > a

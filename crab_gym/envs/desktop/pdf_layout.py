"""Where pictures sit in a PDF (as LibreOffice writes it): each placed image's box and pixels, and which of
two source pictures lies above, below, left or right of the other."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

if TYPE_CHECKING:
    from pypdf import PdfReader

SAME_PICTURE = 16.0  # mean absolute difference (0-255) on a 32x24 thumbnail: re-encoding, not another picture
EDGE = 2.0  # points two boxes may overlap at a shared edge

DIRECTIONS = ("above", "below", "left", "right")


@dataclass(frozen=True)
class Placed:
    """An image on a page: its box in points, top-down over the pages one below the other, and pixels."""

    box: tuple[float, float, float, float]  # left, top, right, bottom
    image: Image.Image


def placed_images(pdf: bytes) -> list[Placed]:
    """The images every page draws (image XObjects painted by ``Do``), in drawing order; [] if unreadable."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        return list(_placed(PdfReader(io.BytesIO(pdf))))
    except (PyPdfError, ValueError, KeyError, TypeError, OSError):
        return []


def _page_draws(page: Any) -> list[tuple[str, list[float]]]:
    """The names ``Do`` paints on a page, each with the transformation in force (its unit square's place)."""
    draws: list[tuple[str, list[float]]] = []

    def visit(op: bytes, args: list[Any], cm: list[float], tm: list[float]) -> None:
        if op == b"Do" and args:
            draws.append((str(args[0]), [float(v) for v in cm]))

    page.extract_text(visitor_operand_before=visit)
    return draws


def _placed(reader: PdfReader) -> Iterator[Placed]:
    offset = 0.0
    for page in reader.pages:
        height = float(page.mediabox.height)
        images = page.images
        names = set(images.keys())
        for name, (a, b, c, d, e, f) in _page_draws(page):
            if name not in names:  # a form or another kind of object
                continue
            image = images[name].image
            if image is None:
                continue
            xs, ys = (e, e + a, e + c, e + a + c), (f, f + b, f + d, f + b + d)
            yield Placed((min(xs), offset + height - max(ys), max(xs), offset + height - min(ys)), image)
        offset += height


def same_picture(a: Image.Image, b: Image.Image) -> bool:
    """The same picture, whatever its scale or encoding (a thumbnail's pixels compared)."""
    ta, tb = (np.asarray(x.convert("RGB").resize((32, 24)), np.float32) for x in (a, b))
    return float(np.abs(ta - tb).mean()) < SAME_PICTURE


def lies(first: tuple[float, ...], second: tuple[float, ...], direction: str) -> bool:
    """Box ``first`` lies wholly ``direction`` of box ``second`` (edges may touch)."""
    l1, t1, r1, b1 = first
    l2, t2, r2, b2 = second
    return {
        "above": b1 <= t2 + EDGE,
        "below": t1 >= b2 - EDGE,
        "left": r1 <= l2 + EDGE,
        "right": l1 >= r2 - EDGE,
    }[direction]


def pictures_placed(placed: list[Placed], first: Image.Image, second: Image.Image, direction: str) -> bool:
    """Some placement of ``first`` lies ``direction`` of some placement of ``second``."""
    ones = [p.box for p in placed if same_picture(p.image, first)]
    twos = [p.box for p in placed if same_picture(p.image, second)]
    return any(lies(a, b, direction) for a in ones for b in twos)

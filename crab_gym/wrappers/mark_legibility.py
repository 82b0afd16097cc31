"""Can the mark numbers be read? Tesseract reads each tag back from a marked frame, at full size and after the
downscale a model applies (Pillow's Lanczos thumbnail, as the LLM agents send screens).

Used by the legibility test and ``bench/marks_legibility.py``; needs the ``marks`` extra (pytesseract) and
Debian's ``tesseract-ocr``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from crab_gym.wrappers.marks import Mark, layout_tags, tag_style

DIGITS = "--psm 6 -c tessedit_char_whitelist=0123456789"  # a block of lines of digits
OCR_HEIGHT = 48  # px: each tag is scaled to this height before reading (Tesseract likes 30-50 px letters)


@dataclass(frozen=True)
class ReadBack:
    """What Tesseract read on each tag of one frame seen at one size."""

    long_side: int
    expected: tuple[str, ...]
    read: tuple[str, ...]

    @property
    def share(self) -> float:
        """The share of tags read exactly (1.0 for a frame without marks)."""
        if not self.expected:
            return 1.0
        return sum(e == r for e, r in zip(self.expected, self.read, strict=True)) / len(self.expected)

    def misread(self) -> list[tuple[str, str]]:
        return [(e, r) for e, r in zip(self.expected, self.read, strict=True) if e != r]


def downscale(frame: np.ndarray, long_side: int) -> np.ndarray:
    """``frame`` with its longer side at most ``long_side`` px (Lanczos), as a model would receive it."""
    img = Image.fromarray(frame)
    if max(img.size) > long_side:
        img.thumbnail((long_side, long_side), Image.Resampling.LANCZOS)
    return np.asarray(img)


def read_tags(
    marked: np.ndarray, marks: Sequence[Mark], long_side: int | None = None, view_side: int | None = None
) -> ReadBack:
    """Read every tag of ``marked`` (a frame drawn by :func:`marks.draw` with ``view_side``) after
    downscaling it to ``long_side`` px (None: full size).

    Tags are found where :func:`layout_tags` put them. The inside of each (its border cut off) is scaled to
    OCR_HEIGHT px and made black on white (the digits are white, every tag colour is darker than mid-grey);
    the tags are stacked one per line, a line's height apart, and read in one Tesseract call as a block of
    digits; each character goes to the tag on whose line it lies.
    """
    import pytesseract

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    size = (marked.shape[1], marked.shape[0])
    style = tag_style(size, view_side)
    view = downscale(marked, long_side) if long_side else marked
    scale = view.shape[1] / size[0]
    grey = Image.fromarray(view).convert("L")
    edge = 1 + style.border
    crops = []
    for x1, y1, x2, y2 in layout_tags(marks, size, style):
        left, top = math.ceil((x1 + edge) * scale), math.ceil((y1 + edge) * scale)
        right, bottom = max(left + 1, int((x2 - edge) * scale)), max(top + 1, int((y2 - edge) * scale))
        crop = grey.crop((left, top, right, bottom))
        width = max(1, round(crop.width * OCR_HEIGHT / crop.height))
        crop = crop.resize((width, OCR_HEIGHT), Image.Resampling.BICUBIC)
        crops.append(crop.point(lambda v: 0 if v > 128 else 255))
    if not crops:
        return ReadBack(max(view.shape[:2]), (), ())
    gap = OCR_HEIGHT
    sheet = Image.new(
        "L", (max(c.width for c in crops) + 2 * gap, gap + len(crops) * (OCR_HEIGHT + gap)), 255
    )
    for i, crop in enumerate(crops):
        sheet.paste(crop, (gap, gap + i * (OCR_HEIGHT + gap)))
    chars = pytesseract.image_to_boxes(sheet, config=DIGITS, output_type=pytesseract.Output.DICT)
    read = [""] * len(crops)
    for ch, top, bottom in zip(
        chars.get("char", []), chars.get("top", []), chars.get("bottom", []), strict=True
    ):
        centre = sheet.height - (top + bottom) / 2  # Tesseract's boxes count y from the bottom
        line = int((centre - gap / 2) // (OCR_HEIGHT + gap))
        if ch.strip() and 0 <= line < len(read):
            read[line] += ch.strip()
    return ReadBack(max(view.shape[:2]), tuple(str(m.id) for m in marks), tuple(read))

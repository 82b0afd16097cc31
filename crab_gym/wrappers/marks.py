"""Set-of-Marks as pure functions: merge candidate boxes into numbered marks, draw them, describe them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Box = tuple[int, int, int, int]  # x1, y1, x2, y2 in pixels

# Sources in order of trust: a tree node knows its role and name; OCR knows text; the detector only a shape.
SOURCE_RANK = {"atspi": 0, "uiautomator": 0, "ocr": 1, "detector": 2}


@dataclass(frozen=True)
class Mark:
    """A numbered interactive element; ids start at 1."""

    id: int
    box: Box
    role: str
    name: str
    source: str

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    def describe(self) -> str:
        label = f' "{self.name}"' if self.name else ""
        return f"[{self.id}] {self.role}{label}"


@dataclass(frozen=True)
class Candidate:
    box: Box
    role: str
    name: str = ""
    source: str = ""


def _area(b: Box) -> int:
    return (b[2] - b[0]) * (b[3] - b[1])


def _contains(outer: Box, inner: Box) -> bool:
    return (
        outer != inner
        and outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and outer[2] >= inner[2]
        and outer[3] >= inner[3]
    )


def merge(
    candidates: Iterable[Candidate],
    size: tuple[int, int],
    max_marks: int = 64,
    min_side: int = 4,
    near: float = 8.0,
) -> list[Mark]:
    """Numbered marks from candidate boxes of several sources.

    Rules: clip to the screen and drop degenerate boxes (a side under ``min_side`` px); drop a box that
    contains another kept box (the inner one is what gets acted on); drop a box whose centre lies within
    ``near`` px of a kept one's (trusted sources first), and a less trusted box inside a kept one; number
    top-to-bottom, then left-to-right, from 1.
    """
    w, h = size
    clipped = []
    for c in candidates:
        x1, y1, x2, y2 = (max(0, c.box[0]), max(0, c.box[1]), min(w, c.box[2]), min(h, c.box[3]))
        if x2 - x1 >= min_side and y2 - y1 >= min_side:
            clipped.append(Candidate((x1, y1, x2, y2), c.role, c.name, c.source))
    # trusted and small first: the smallest box of the most trusted source wins a contest
    clipped.sort(key=lambda c: (SOURCE_RANK.get(c.source, 3), _area(c.box)))
    kept: list[Candidate] = []
    for c in clipped:
        cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
        if any(
            abs(cx - (k.box[0] + k.box[2]) / 2) <= near and abs(cy - (k.box[1] + k.box[3]) / 2) <= near
            for k in kept
        ):
            continue
        if any(_contains(c.box, k.box) for k in kept):
            continue
        rank = SOURCE_RANK.get(c.source, 3)
        if any(SOURCE_RANK.get(k.source, 3) < rank and _contains(k.box, c.box) for k in kept):
            continue  # text or a shape inside an element the tree already names
        kept.append(c)
    kept.sort(key=lambda c: (c.box[1] // 8, c.box[0]))
    return [Mark(i + 1, c.box, c.role, c.name, c.source) for i, c in enumerate(kept[:max_marks])]


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf", size)
    except OSError:
        return ImageFont.load_default()


PALETTE = ((230, 25, 75), (0, 130, 200), (245, 130, 48), (60, 180, 75), (145, 30, 180), (0, 128, 128))


def draw(frame: np.ndarray, marks: Sequence[Mark]) -> np.ndarray:
    """A copy of ``frame`` with each mark's box outlined and its id on a filled tag (scaled to the frame)."""
    img = Image.fromarray(frame)
    d = ImageDraw.Draw(img)
    scale = max(1, round(min(frame.shape[0], frame.shape[1]) / 800))
    font = _font(12 * scale)
    for m in marks:
        colour = PALETTE[m.id % len(PALETTE)]
        d.rectangle(m.box, outline=colour, width=2 * scale)
        tag = str(m.id)
        tw, th = d.textbbox((0, 0), tag, font=font)[2:]
        x, y = m.box[0], max(0, m.box[1] - th - 2 * scale)
        d.rectangle((x, y, x + tw + 4 * scale, y + th + 2 * scale), fill=colour)
        d.text((x + 2 * scale, y), tag, fill=(255, 255, 255), font=font)
    return np.asarray(img)


def mark_at(marks: Sequence[Mark], x: float, y: float) -> Mark | None:
    """The smallest mark whose box holds the pixel (x, y)."""
    holding = [m for m in marks if m.box[0] <= x < m.box[2] and m.box[1] <= y < m.box[3]]
    return min(holding, key=lambda m: _area(m.box), default=None)

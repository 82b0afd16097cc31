"""Set-of-Marks as pure functions: merge candidate boxes into numbered marks, draw them, describe them."""

from __future__ import annotations

import math
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


# Tags stay legible when a model sees the frame downscaled so its longer side is VIEW_SIDE px: digits are then
# at least VIEW_FONT_PX px (font size; the digits' height is about 0.73 of it).
VIEW_SIDE = 1024
VIEW_FONT_PX = 14

# Tag colours: white bold digits on each has a contrast ratio of at least 4.5 (WCAG AA).
PALETTE = (
    (200, 20, 60), (0, 90, 180), (170, 70, 0), (0, 120, 60), (120, 40, 170), (0, 105, 115), (150, 30, 110),
)  # fmt: skip
TEXT = (255, 255, 255)
EDGE_LIGHT, EDGE_DARK = (255, 255, 255), (0, 0, 0)


@dataclass(frozen=True)
class TagStyle:
    """Sizes (px) of the marks drawn on one frame."""

    font_px: int
    pad: int  # between the digits and the tag's border
    border: int  # the tag's light border; a 1 px dark line runs outside it
    outline: int  # the width of the box's outline


def tag_style(size: tuple[int, int], view_side: int | None = None) -> TagStyle:
    """Tag sizes for a (w, h) frame that will be seen with its longer side at ``view_side`` px (VIEW_SIDE by
    default; never more than the frame's own): the font is VIEW_FONT_PX px at that size, so digits scale
    with the screen and survive the downscale. On a tiny frame the font stops at a sixth of its short side."""
    long_side = max(size)
    view = min(view_side or VIEW_SIDE, long_side)
    font = math.ceil(VIEW_FONT_PX * long_side / max(view, 1))
    font = max(6, min(font, max(6, min(size) // 6)))
    return TagStyle(font, max(1, round(font * 0.18)), max(1, round(font / 12)), max(1, round(font / 9)))


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf", size)
    except OSError:
        return ImageFont.load_default(size)


def _tag_size(text: str, style: TagStyle) -> tuple[int, int]:
    x1, y1, x2, y2 = _font(style.font_px).getbbox(text)
    edge = style.pad + style.border + 1
    return int(x2 - x1) + 2 * edge, int(y2 - y1) + 2 * edge  # FreeType's bbox is whole pixels


def _overlap(a: Box, b: Box) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def layout_tags(marks: Sequence[Mark], size: tuple[int, int], style: TagStyle) -> list[Box]:
    """Where each mark's number tag goes (x1, y1, x2, y2), in the order of ``marks``.

    A tag sits at its box's top-left corner, just outside (above) it; if that spot covers a tag already
    placed, the next free spot among: inside the corner, left of the box, above its right end, below it,
    inside the top-right corner, right of it, inside the bottom-left corner. Where every spot is taken, the
    one that covers the least of other tags. Tags stay on the frame.
    """
    w, h = size
    placed: list[Box] = []
    for m in marks:
        tw, th = _tag_size(str(m.id), style)
        x1, y1, x2, y2 = m.box
        spots = (
            (x1, y1 - th), (x1, y1), (x1 - tw, y1), (x2 - tw, y1 - th), (x1, y2), (x2 - tw, y1), (x2, y1),
            (x1, y2 - th),
        )  # fmt: skip
        best: Box | None = None
        best_cost = -1
        for sx, sy in spots:
            sx, sy = min(max(0, sx), max(0, w - tw)), min(max(0, sy), max(0, h - th))
            tag = (sx, sy, sx + tw, sy + th)
            cost = sum(_overlap(tag, p) for p in placed)
            if best is None or cost < best_cost:
                best, best_cost = tag, cost
            if cost == 0:
                break
        assert best is not None
        placed.append(best)
    return placed


def draw(frame: np.ndarray, marks: Sequence[Mark], view_side: int | None = None) -> np.ndarray:
    """A copy of ``frame`` with each mark's box outlined and its number on an opaque tag: white bold digits
    on a dark colour, a white border and a black line around it, so it reads on light and dark screens alike.
    Sizes follow :func:`tag_style`; tags are placed by :func:`layout_tags`, drawn over every box."""
    img = Image.fromarray(frame)
    d = ImageDraw.Draw(img)
    size = (frame.shape[1], frame.shape[0])
    style = tag_style(size, view_side)
    font = _font(style.font_px)
    for m in marks:
        d.rectangle(m.box, outline=PALETTE[m.id % len(PALETTE)], width=style.outline)
    for m, tag in zip(marks, layout_tags(marks, size, style), strict=True):
        colour = PALETTE[m.id % len(PALETTE)]
        x1, y1, x2, y2 = tag
        d.rectangle((x1, y1, x2 - 1, y2 - 1), fill=EDGE_DARK)
        d.rectangle((x1 + 1, y1 + 1, x2 - 2, y2 - 2), fill=EDGE_LIGHT)
        edge = 1 + style.border
        d.rectangle((x1 + edge, y1 + edge, x2 - 1 - edge, y2 - 1 - edge), fill=colour)
        bx, by = font.getbbox(str(m.id))[:2]
        inset = edge + style.pad
        d.text((x1 + inset - bx, y1 + inset - by), str(m.id), fill=TEXT, font=font)
    return np.asarray(img)


def mark_at(marks: Sequence[Mark], x: float, y: float) -> Mark | None:
    """The smallest mark whose box holds the pixel (x, y)."""
    holding = [m for m in marks if m.box[0] <= x < m.box[2] and m.box[1] <= y < m.box[3]]
    return min(holding, key=lambda m: _area(m.box), default=None)

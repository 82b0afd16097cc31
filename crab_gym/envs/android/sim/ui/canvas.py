"""A frame being drawn and the scale from device pixels to its pixels: rectangle fills (with fractional
coverage at the edges when scaled), cached sprites pasted over a known colour or blended through their
masks over whatever is drawn, a gradient, a scrim's dimming. Everything is clipped to the frame."""

from __future__ import annotations

import functools
import math

import numpy as np

from . import sprites

Color = tuple[int, ...]
Box = tuple[int, int, int, int]


class Gradient:
    """A vertical gradient drawn as a background: over a box as small as an icon it is one colour, the
    colour at the box's middle."""

    def __init__(self, y1: int, y2: int, top: Color, bottom: Color) -> None:
        self.y1, self.h, self.top, self.bottom = y1, max(1, y2 - y1), top, bottom

    def at(self, y: float) -> Color:
        return mix(self.bottom, self.top, min(1.0, max(0.0, (y - self.y1) / self.h)))


class Canvas:
    """A frame and the scale from device pixels to its pixels; methods take device coordinates."""

    def __init__(self, w: int, h: int, sx: float, sy: float, background: Color) -> None:
        self.frame = _blank(w, h, tuple(background)).copy()
        self.sx, self.sy, self.s = sx, sy, (sx + sy) / 2
        self.exact = sx == 1 and sy == 1

    def box(self, b: Box) -> Box:
        if self.exact:
            return b
        return (round(b[0] * self.sx), round(b[1] * self.sy), round(b[2] * self.sx), round(b[3] * self.sy))

    def px(self, v: float) -> int:
        """A device-pixel length at this frame's scale (at least 1)."""
        return sprites.scaled(v, self.s)

    def fill(self, b: Box, color: Color) -> None:
        if self.exact:
            _fill(self.frame, *b, color)
        else:
            _fill_covered(self.frame, b[0] * self.sx, b[1] * self.sy, b[2] * self.sx, b[3] * self.sy, color)

    def gradient(self, b: Box, top: Color, bottom: Color) -> None:
        x1, y1, x2, y2 = self.box(b)
        if x2 > x1 and y2 > y1:
            _paste(self.frame, sprites.gradient(x2 - x1, y2 - y1, tuple(top), tuple(bottom)), x1, y1)

    def dim(self, b: Box, alpha: float) -> None:
        """Darken what is drawn (a scrim behind a dialog)."""
        x1, y1, x2, y2 = _clip(self.frame, *self.box(b))
        if x2 > x1 and y2 > y1:
            region = self.frame[y1:y2, x1:x2]
            region[:] = (region.astype(np.uint16) * round((1.0 - alpha) * 256)) >> 8

    def shape(
        self, shape: str, b: Box, color: Color, under: Color | None, radius: float = 0, line: float = 0
    ) -> None:
        x1, y1, x2, y2 = self.box(b)
        w, h = x2 - x1, y2 - y1
        if w <= 0 or h <= 0:
            return
        r, lw = radius * self.s, line * self.s
        if under is None:
            _paste_alpha(self.frame, sprites.shape_mask(shape, w, h, r, lw), color, x1, y1)
        else:
            _paste(self.frame, sprites.shape_sprite(shape, w, h, tuple(color), tuple(under), r, lw), x1, y1)

    def text(
        self,
        text: str,
        x: float,
        y_mid: float,
        size: int,
        color: Color,
        under: Color | None,
        medium: bool = False,
        anchor: str = "l",
        clip: Box | None = None,
    ) -> None:
        """Text whose left ("l"), centre ("c") or right ("r") end is at x, vertically centred on y_mid."""
        alpha, dx, dy, adv = sprites.text_mask(text, size, medium, self.s)
        X, Y = round(x * self.sx), round(y_mid * self.sy)
        X -= adv // 2 if anchor == "c" else adv if anchor == "r" else 0
        cb = self.box(clip) if clip else None
        if under is None:
            _paste_alpha(self.frame, alpha, color, X + dx, Y + dy, cb)
        else:
            sprite = sprites.text_sprite(text, size, medium, tuple(color), tuple(under), self.s)[0]
            _paste(self.frame, sprite, X + dx, Y + dy, cb)

    def icon(
        self, name: str, cx: float, cy: float, size: int, color: Color, under: Color | None, clip=None
    ) -> None:
        X, Y = round(cx * self.sx), round(cy * self.sy)
        cb = self.box(clip) if clip else None
        if under is None:
            alpha, dx, dy = sprites.icon_mask(name, size, self.s)
            _paste_alpha(self.frame, alpha, color, X + dx, Y + dy, cb)
        else:
            sprite, dx, dy = sprites.icon_sprite(name, size, tuple(color), tuple(under), self.s)
            _paste(self.frame, sprite, X + dx, Y + dy, cb)


def mix(a: Color, b: Color, t: float) -> Color:
    """``a`` at opacity ``t`` over ``b``."""
    return tuple(int(round(x * t + y * (1 - t))) for x, y in zip(a, b, strict=False))


def _clip(f: np.ndarray, x1: int, y1: int, x2: int, y2: int) -> Box:
    return max(0, x1), max(0, y1), min(f.shape[1], x2), min(f.shape[0], y2)


@functools.lru_cache(maxsize=8)
def _blank(w: int, h: int, color: Color) -> np.ndarray:
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = _row(color, w)
    frame.flags.writeable = False
    return frame


@functools.lru_cache(maxsize=256)
def _row(color: Color, width: int) -> np.ndarray:
    return np.tile(np.asarray(color, np.uint8), (width, 1))


def _fill(f: np.ndarray, x1: int, y1: int, x2: int, y2: int, color: Color) -> None:
    """Fill a rectangle (broadcasting a prepared row is much faster than broadcasting a 3-tuple)."""
    x1, y1, x2, y2 = _clip(f, x1, y1, x2, y2)
    if x2 > x1 and y2 > y1:
        f[y1:y2, x1:x2] = _row(tuple(color), x2 - x1)


def _spans(a: float, b: float, limit: int) -> list[tuple[int, int, float]]:
    """The pixel runs [i, j) that the interval [a, b) covers, with how much of each pixel it covers: a
    partly covered first pixel, the fully covered middle, a partly covered last pixel."""
    i, j = max(0, math.floor(a)), min(limit, math.ceil(b))
    if j <= i:
        return []
    if j - i == 1:
        return [(i, j, min(b, j) - max(a, i))]
    out = []
    lo, hi = i, j
    if a > i:
        out.append((i, i + 1, i + 1 - a))
        lo = i + 1
    if b < j:
        hi = j - 1
    if hi > lo:
        out.append((lo, hi, 1.0))
    if b < j:
        out.append((j - 1, j, b - (j - 1)))
    return out


def _fill_covered(f: np.ndarray, fx1: float, fy1: float, fx2: float, fy2: float, color: Color) -> None:
    """Fill a rectangle with fractional edges: inner pixels take the colour, edge pixels a share of it
    equal to how much of them the rectangle covers (what a box filter of a larger frame would give)."""
    xs, ys = _spans(fx1, fx2, f.shape[1]), _spans(fy1, fy2, f.shape[0])
    for y1, y2, cy in ys:
        for x1, x2, cx in xs:
            k = round(cx * cy * 256)
            if k >= 255:
                f[y1:y2, x1:x2] = _row(tuple(color), x2 - x1)
            elif k > 0:
                region = f[y1:y2, x1:x2]
                region[:] = (region.astype(np.uint16) * (256 - k) + np.asarray(color, np.uint16) * k) >> 8


def _paste(f: np.ndarray, sprite: np.ndarray, x: int, y: int, clip: Box | None = None) -> None:
    """Copy a sprite whose top-left goes at (x, y), clipped to the frame (and to ``clip``)."""
    fh, fw = f.shape[:2]
    cx1, cy1, cx2, cy2 = clip or (0, 0, fw, fh)
    sh, sw = sprite.shape[:2]
    x1, y1 = max(x, cx1, 0), max(y, cy1, 0)
    x2, y2 = min(x + sw, cx2, fw), min(y + sh, cy2, fh)
    if x2 > x1 and y2 > y1:
        f[y1:y2, x1:x2] = sprite[y1 - y : y2 - y, x1 - x : x2 - x]


def _paste_alpha(
    f: np.ndarray, alpha: np.ndarray, color: Color, x: int, y: int, clip: Box | None = None
) -> None:
    """Blend ``color`` through a mask onto whatever is drawn there."""
    fh, fw = f.shape[:2]
    cx1, cy1, cx2, cy2 = clip or (0, 0, fw, fh)
    sh, sw = alpha.shape[:2]
    x1, y1 = max(x, cx1, 0), max(y, cy1, 0)
    x2, y2 = min(x + sw, cx2, fw), min(y + sh, cy2, fh)
    if x2 > x1 and y2 > y1:
        a = alpha[y1 - y : y2 - y, x1 - x : x2 - x, None].astype(np.uint16)
        region = f[y1:y2, x1:x2]
        region[:] = (region * (255 - a) + np.asarray(color, np.uint16) * a + 127) // 255

"""Cached pixels: anti-aliased masks of text (Roboto), icons (Material Icons) and shapes, made once with
Pillow for the size they are drawn at, and the same blended over a known background colour.

A sprite blended over the colour it lands on is pasted with one slice assignment; a mask is kept for the
rarer case where what is underneath is not one colour (over a scrim). Shapes are drawn 4x (2x when large)
and box-reduced, so their edges are anti-aliased at every output size.
"""

from __future__ import annotations

import functools
import math
import threading

import cachetools
import numpy as np

from . import fonts

Color = tuple[int, ...]


def _glyph_mask(font, text: str, anchor: str, scale: float) -> tuple[np.ndarray, int, int]:
    """(mask, dx, dy) of ``text`` drawn with ``font`` at ``anchor`` on (0, 0), then scaled by ``scale``
    with a box filter: small text is drawn at the device's size and averaged down, so it has the coverage
    a downscaled full-size screen would show rather than tiny hinted glyphs."""
    from PIL import Image, ImageDraw  # here: a frame whose glyphs are all stored never loads them

    x1, y1, x2, y2 = font.getbbox(text, anchor=anchor)
    if scale == 1.0:
        img = Image.new("L", (max(1, x2 - x1), max(1, y2 - y1)), 0)
        ImageDraw.Draw(img).text((-x1, -y1), text, font=font, fill=255, anchor=anchor)
        return np.asarray(img), x1, y1
    m = math.ceil(1 / scale) + 1  # a margin, so the box below never leaves the drawn image
    img = Image.new("L", (x2 - x1 + 2 * m, y2 - y1 + 2 * m), 0)
    ImageDraw.Draw(img).text((m - x1, m - y1), text, font=font, fill=255, anchor=anchor)
    dx, dy = math.floor(x1 * scale), math.floor(y1 * scale)
    ex, ey = max(dx + 1, math.ceil(x2 * scale)), max(dy + 1, math.ceil(y2 * scale))
    box = (dx / scale - x1 + m, dy / scale - y1 + m, ex / scale - x1 + m, ey / scale - y1 + m)
    small = img.resize((ex - dx, ey - dy), Image.Resampling.BOX, box=box)
    return np.asarray(small), dx, dy


# Text is drawn once per (string, size, colours) and kept, bounded by bytes rather than entries: an agent
# that types random text makes every string new, and a line of text across the screen is ~200 KB.
TEXT_CACHE_BYTES = 64 * 2**20


def _nbytes(value: tuple) -> int:
    return int(value[0].nbytes) + 64


_text_masks: cachetools.LRUCache = cachetools.LRUCache(TEXT_CACHE_BYTES, getsizeof=_nbytes)
_text_sprites: cachetools.LRUCache = cachetools.LRUCache(TEXT_CACHE_BYTES, getsizeof=_nbytes)


@cachetools.cached(_text_masks, lock=threading.Lock())
def text_mask(text: str, size: int, medium: bool, scale: float = 1.0) -> tuple[np.ndarray, int, int, int]:
    """(alpha mask, dx, dy, advance) of ``text`` in Roboto at ``size`` device pixels, drawn with its
    left-middle at (0, 0) on a frame ``scale`` times the device's size."""

    def draw() -> tuple[np.ndarray, int, int, int]:
        f = fonts.text_font(size, medium)
        mask, dx, dy = _glyph_mask(f, text, "lm", scale)
        return mask, dx, dy, int(round(f.getlength(text) * scale))

    return fonts.glyph_store(fonts.scale_tag(scale)).get_or_draw("text", (text, size, medium, scale), draw)


@functools.lru_cache(maxsize=1024)
def icon_mask(name: str, size: int, scale: float = 1.0) -> tuple[np.ndarray, int, int]:
    """(alpha mask, dx, dy) of a Material icon of ``size`` device pixels whose em box is centred on (0, 0),
    on a frame ``scale`` times the device's size."""
    store = fonts.glyph_store(fonts.scale_tag(scale))
    return store.get_or_draw(
        "icon",
        (name, size, scale),
        lambda: _glyph_mask(fonts.icon_font(size), fonts.glyph(name), "mm", scale),
    )


def _supersample(w: int, h: int) -> int:
    return 4 if w * h <= 250_000 else 2 if w * h <= 1_500_000 else 1


@functools.lru_cache(maxsize=2048)
def shape_mask(shape: str, w: int, h: int, radius: float = 0.0, line: float = 0.0) -> np.ndarray:
    """Coverage mask (H, W) uint8 of a shape filling a w x h box.

    circle, pill, round (corner ``radius``), outline (a rounded rectangle's edge, ``line`` wide), ring
    (a circle's edge), box (a square's edge, ``radius`` corners), triangle (the back button's outline, left
    pointing), check (a tick), thumb (a circle inset by ``line``).
    """
    args = (shape, w, h, radius, line)
    return fonts.glyph_store("shapes").get_or_draw("shape", args, lambda: _draw_shape(*args))


def _draw_shape(shape: str, w: int, h: int, radius: float, line: float) -> np.ndarray:
    from PIL import Image, ImageDraw

    ss = _supersample(w, h)
    W, H = w * ss, h * ss
    img = Image.new("L", (W, H), 0)
    d = ImageDraw.Draw(img)
    lw = max(1, round(line * ss))
    r = radius * ss
    if shape == "circle" or shape == "thumb" or shape == "ring":
        d_ = min(W, H)
        inset = lw if shape == "thumb" else 0
        box = ((W - d_) / 2 + inset, (H - d_) / 2 + inset, (W + d_) / 2 - 1 - inset, (H + d_) / 2 - 1 - inset)
        if shape == "ring":
            d.ellipse(box, outline=255, width=lw)
        else:
            d.ellipse(box, fill=255)
    elif shape == "pill":
        d.rounded_rectangle((0, 0, W - 1, H - 1), radius=H // 2, fill=255)
    elif shape == "round":
        d.rounded_rectangle((0, 0, W - 1, H - 1), radius=r or H // 4, fill=255)
    elif shape in ("outline", "box"):
        d.rounded_rectangle((0, 0, W - 1, H - 1), radius=r, outline=255, width=lw)
    elif shape == "triangle":
        s = min(W, H)
        x0, y0 = (W - s) / 2, (H - s) / 2
        pts = [(x0 + s * 0.78, y0 + s * 0.12), (x0 + s * 0.78, y0 + s * 0.88), (x0 + s * 0.12, y0 + s * 0.5)]
        d.polygon(pts, outline=255, width=lw)
    elif shape == "check":
        pts = [(W * 0.2, H * 0.52), (W * 0.42, H * 0.74), (W * 0.82, H * 0.3)]
        d.line(pts, fill=255, width=lw, joint="curve")
    else:
        raise ValueError(f"unknown shape {shape!r}")
    return np.asarray(img.reduce(ss) if ss > 1 else img)


def blend(alpha: np.ndarray, color: Color, under: Color) -> np.ndarray:
    """(H, W, 3) pixels of ``color`` at ``alpha`` over a flat ``under``."""
    a = alpha.astype(np.uint16)[:, :, None]
    c, u = np.asarray(color, np.uint16), np.asarray(under, np.uint16)
    out = (u * (255 - a) + c * a + 127) // 255
    out = out.astype(np.uint8)
    out.flags.writeable = False
    return out


@cachetools.cached(_text_sprites, lock=threading.Lock())
def text_sprite(text: str, size: int, medium: bool, color: Color, under: Color, scale: float = 1.0):
    alpha, dx, dy, adv = text_mask(text, size, medium, scale)
    return blend(alpha, color, under), dx, dy, adv


@functools.lru_cache(maxsize=2048)
def icon_sprite(name: str, size: int, color: Color, under: Color, scale: float = 1.0):
    alpha, dx, dy = icon_mask(name, size, scale)
    return blend(alpha, color, under), dx, dy


@functools.lru_cache(maxsize=4096)
def shape_sprite(shape: str, w: int, h: int, color: Color, under: Color, radius=0.0, line=0.0) -> np.ndarray:
    return blend(shape_mask(shape, w, h, radius, line), color, under)


@functools.lru_cache(maxsize=64)
def gradient(w: int, h: int, top: Color, bottom: Color) -> np.ndarray:
    """A vertical gradient (the home screen's wallpaper)."""
    t = np.linspace(0.0, 1.0, max(1, h))[:, None]
    col = (np.asarray(top, float) * (1 - t) + np.asarray(bottom, float) * t).round().astype(np.uint8)
    out = np.ascontiguousarray(np.broadcast_to(col[:, None, :], (h, w, 3)))
    out.flags.writeable = False
    return out


def scaled(v: float, s: float) -> int:
    """A device-pixel size at output scale ``s``, at least 1."""
    return max(1, int(math.floor(v * s + 0.5)))

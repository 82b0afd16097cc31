"""Draw a View tree into an RGB numpy frame — at the device's size or directly at a smaller one — and encode
frames as PNG.

Speed matters (the RL path renders every step): rectangles are slice fills, text, icons and round shapes are
cached sprites (see sprites.py) already blended over the colour they land on, and whole frames are cached by
what the tree draws (:func:`signature`), so a step that leaves the screen as it was costs no drawing.

Geometry is laid out in device pixels; a frame of another size scales every box, and draws text, icons and
shapes at the scaled size (rectangle edges get fractional coverage), instead of drawing full size and
resizing. Everything drawn for a View lies inside its bounds, so the uiautomator dump says where things are.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections import OrderedDict
from operator import attrgetter

import numpy as np

from . import fonts
from .canvas import Box, Canvas, Color, Gradient, mix
from .view import View

ROUND_SHAPES = ("circle", "round", "pill")
SCRIM_ALPHA = 0.32
FRAME_CACHE_BYTES = 48 << 20  # ~6 full 1080x2400 frames, or thousands of small ones
DRAW_FIELDS = (
    "bounds", "bg", "fg", "size", "bold", "shape", "hint", "align", "wrap", "icon", "radius",
    "text", "focused", "checked", "enabled", "cls",
)  # fmt: skip
_draw_key = attrgetter(*DRAW_FIELDS)


def signature(root: View) -> tuple:
    """Everything in the tree that the renderer reads: equal signatures draw equal frames."""
    out = []
    stack = [root]
    while stack:
        v = stack.pop()
        out.append(_draw_key(v))
        if v.children:
            stack.extend(reversed(v.children))
    return tuple(out)


class _FrameCache:
    """Frames by (signature, sizes), least recently used first out, bounded in bytes; thread-safe."""

    def __init__(self, budget: int) -> None:
        self.budget, self.used = budget, 0
        self.frames: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: tuple) -> np.ndarray | None:
        with self.lock:
            frame = self.frames.get(key)
            if frame is None:
                self.misses += 1
                return None
            self.frames.move_to_end(key)
            self.hits += 1
            return frame

    def put(self, key: tuple, frame: np.ndarray) -> None:
        with self.lock:
            if key in self.frames or frame.nbytes > self.budget:
                return
            self.frames[key] = frame
            self.used += frame.nbytes
            while self.used > self.budget:
                _, old = self.frames.popitem(last=False)
                self.used -= old.nbytes

    def clear(self) -> None:
        with self.lock:
            self.frames.clear()
            self.used = 0


FRAMES = _FrameCache(FRAME_CACHE_BYTES)


def render(
    root: View, width: int, height: int, background: Color, size: tuple[int, int] | None = None
) -> np.ndarray:
    """The (H, W, 3) uint8 frame of a tree laid out on a ``width`` x ``height`` screen, drawn at ``size``
    (w, h; default the screen's). Read-only: it may be shared with other callers through the frame cache."""
    out_w, out_h = size or (width, height)
    key = (signature(root), width, height, tuple(background), out_w, out_h)
    frame = FRAMES.get(key)
    if frame is None:
        frame = draw(root, width, height, background, (out_w, out_h))
        frame.flags.writeable = False
        FRAMES.put(key, frame)
    return frame


def draw(root: View, width: int, height: int, background: Color, size: tuple[int, int]) -> np.ndarray:
    """Draw a tree (no cache): every View in tree order, each over the colour it lands on."""
    cv = Canvas(size[0], size[1], size[0] / width, size[1] / height, tuple(background))
    # Opaque areas painted so far, (bounds, colour or None when not one colour), oldest first: what a sprite
    # is blended over is the last painted area that contains it (an ancestor's or an earlier sibling's).
    layers: list[tuple[Box, Color | Gradient | None]] = [((0, 0, width, height), tuple(background))]
    stack = list(reversed(root.children))
    while stack:
        v = stack.pop()
        x1, y1, x2, y2 = v.bounds
        under: Color | Gradient | None = tuple(background)
        for (a1, b1, a2, b2), c in reversed(layers):
            if a1 <= x1 and b1 <= y1 and x2 <= a2 and y2 <= b2:
                under = c
                break
        if isinstance(under, Gradient):
            under = under.at((y1 + y2) / 2)
        inner: Color | Gradient | None  # the colour this View's children land on
        if v.shape == "scrim" and len(layers) == 1 and v is root.children[0]:
            # nothing drawn yet: the dimmed screen is one colour, and what goes on it is blended over that
            inner = mix((0, 0, 0), tuple(background), SCRIM_ALPHA)
            cv.fill(v.bounds, inner)
        else:
            inner = draw_view(cv, v, under)
        if inner is not under:
            layers.append((v.bounds, inner))
        if v.children:
            stack.extend(reversed(v.children))
    return cv.frame


def draw_view(cv: Canvas, v: View, under: Color | None) -> Color | Gradient | None:
    """Draw one View over ``under`` (None: not one colour); returns the colour its children land on."""
    x1, y1, x2, y2 = v.bounds
    w, h = x2 - x1, y2 - y1
    if w <= 0 or h <= 0:
        return under
    shape, inner = v.shape, under
    fg = tuple(v.fg or (0, 0, 0))
    if v.bg is not None:
        bg = tuple(v.bg)
        if shape == "rect":
            cv.fill(v.bounds, bg)
            inner = bg
        elif shape in ROUND_SHAPES:
            cv.shape(shape, v.bounds, bg, under, radius=v.radius)
            inner = bg
        elif shape == "gradient":
            cv.gradient(v.bounds, bg, fg)
            return Gradient(y1, y2, bg, fg)
    if shape == "scrim":
        cv.dim(v.bounds, SCRIM_ALPHA)
        return None
    if shape == "track":  # a slider's track: a thick rounded line through the middle of its box
        t, cy = max(2, round(h * 0.16)), (y1 + y2) // 2
        cv.shape("pill", (x1, cy - t, x2, cy + t), tuple(v.bg or fg), under)
        return under
    if shape == "switch":
        _switch(cv, v, fg, under)
        return under
    if shape == "check":
        name = "check_box" if v.checked else "check_box_outline_blank"
        color = fg if v.checked else tuple(v.bg or mix(fg, under or fg, 0.7))
        cv.icon(name, (x1 + x2) / 2, (y1 + y2) / 2, min(w, h), color, under, clip=v.bounds)
        return under
    if shape in ("outline", "underline"):
        return _field(cv, v, fg, under)
    if shape == "triangle" or shape == "ring" or shape == "box":
        side = min(w, h) * 0.2  # half the icon's side: ~20 dp icons on a 48 dp bar
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2  # the middle (a float; the track's `cy` above is an int)
        b = (round(mx - side), round(my - side), round(mx + side), round(my + side))
        cv.shape(shape, b, fg, under, radius=side * 0.2, line=max(3.0, side * 0.14))
        return under
    _label(cv, v, fg, inner, x1, x2, round(h * 0.3) if shape in ROUND_SHAPES and v.icon else 0)
    if shape == "tab":  # the selected tab's indicator: a short rounded bar under its label
        half = (fonts.text_width(v.text, v.size, v.bold) + h * 0.2) / 2
        cx, t = (x1 + x2) / 2, max(3, round(h / 16))
        cv.shape("pill", (round(cx - half), y2 - t, round(cx + half), y2), fg, under)
    return inner


def _label(cv: Canvas, v: View, fg: Color, under: Color | None, x1: int, x2: int, pad: int = 0) -> None:
    """A view's icon and text (or hint), one line, aligned as the view says, clipped to its bounds."""
    y1, y2 = v.bounds[1], v.bounds[3]
    cy = (y1 + y2) / 2
    label = v.text or v.hint
    muted = _shows_hint(v)
    color = mix(fg, under, 0.6 if muted else 0.38) if (muted or not v.enabled) and under else fg
    if v.icon and not label:
        cv.icon(v.icon, (x1 + x2) / 2, cy, v.size, color, under, clip=v.bounds)
        return
    if not label or not v.size:
        return
    left, right = x1 + pad, x2 - pad
    if v.icon:
        isz = round(v.size * 1.3)
        if v.align == "center":
            width = isz * 1.4 + fonts.text_width(label, v.size, v.bold)
            left = max(left, round((x1 + x2 - width) / 2))
        cv.icon(v.icon, left + isz / 2, cy, isz, color, under, clip=v.bounds)
        left += round(isz * 1.4)
        text = fonts.fit(label, right - left, v.size, v.bold)
        cv.text(text, left, cy, v.size, color, under, v.bold, "l", clip=v.bounds)
        return
    if v.wrap:  # a multi-line TextView: lines from the top, each one line-height (1.4 x the text size)
        step = round(v.size * 1.4)
        rows = fonts.wrap(label, right - left, v.size, max(1, (y2 - y1) // step), v.bold)
        for i, row in enumerate(rows):
            cv.text(row, left, y1 + step * (i + 0.5), v.size, color, under, v.bold, "l", clip=v.bounds)
        return
    text = fonts.fit(label, right - left, v.size, v.bold)
    if v.align == "center":
        cv.text(text, (left + right) / 2, cy, v.size, color, under, v.bold, "c", clip=v.bounds)
    elif v.align == "right":
        cv.text(text, right, cy, v.size, color, under, v.bold, "r", clip=v.bounds)
    else:
        cv.text(text, left, cy, v.size, color, under, v.bold, "l", clip=v.bounds)


def _field(cv: Canvas, v: View, fg: Color, under: Color | None) -> Color | None:
    """A text field: a Material outlined box (or an underline), its text or hint, a cursor when focused."""
    x1, y1, x2, y2 = v.bounds
    h = y2 - y1
    stroke = tuple(v.bg) if v.bg is not None else mix(fg, under or fg, 0.5)
    lw = max(2.0, h / 28) if v.focused else max(1.0, h / 56)
    if v.shape == "outline":
        cv.shape("outline", v.bounds, stroke, under, radius=h / 14, line=lw)
    else:
        cv.fill((x1, round(y2 - lw), x2, y2), stroke)
    pad = round(h / 3.5)
    _label(cv, v, fg, under, x1, x2, pad)
    if v.focused and v.text and not _shows_hint(v):
        adv = fonts.text_width(fonts.fit(v.text, x2 - x1 - 2 * pad, v.size, v.bold), v.size, v.bold)
        cx = min(x1 + pad + round(adv) + 3, x2 - pad)
        cv.fill((cx, y1 + round(h * 0.28), cx + max(3, h // 48), y2 - round(h * 0.28)), stroke)
    elif v.focused:
        cv.fill((x1 + pad - 3, y1 + round(h * 0.28), x1 + pad, y2 - round(h * 0.28)), stroke)
    return under


def _shows_hint(v: View) -> bool:
    """An empty text field: it shows its hint (as its text, which is how uiautomator dumps it), muted."""
    return bool(v.hint) and v.text in ("", v.hint) and v.cls.endswith("EditText")


def _switch(cv: Canvas, v: View, fg: Color, under: Color | None) -> None:
    """A Material 3 switch: a filled track with a large thumb and a tick when on, an outlined track with a
    small thumb when off. ``fg`` is the on colour, ``bg`` the outline colour."""
    x1, y1, x2, y2 = v.bounds
    h = y2 - y1
    off = tuple(v.bg) if v.bg is not None else mix(fg, under or fg, 0.5)
    if v.checked:
        cv.shape("pill", v.bounds, fg, under)
        d = round(h * 0.75)
        tx, ty = x2 - h // 2 - d // 2, y1 + (h - d) // 2
        thumb = under or (255, 255, 255)
        cv.shape("circle", (tx, ty, tx + d, ty + d), thumb, fg)
        cv.icon("check", tx + d / 2, ty + d / 2, round(d * 0.65), fg, thumb)
    else:
        cv.shape("outline", v.bounds, off, under, radius=h / 2, line=max(2.0, h / 16))
        d = round(h * 0.5)
        tx, ty = x1 + h // 2 - d // 2, y1 + (h - d) // 2
        cv.shape("circle", (tx, ty, tx + d, ty + d), off, under)


def to_png(frame: np.ndarray, level: int = 1) -> bytes:
    """PNG of an (H, W, 3) uint8 frame: "Up"-filtered rows, fast deflate (about 4x faster than Pillow)."""
    h, w, _ = frame.shape
    flat = frame.reshape(h, w * 3)
    raw = np.empty((h, w * 3 + 1), np.uint8)
    raw[:, 0] = 2
    raw[0, 1:] = flat[0]
    np.subtract(flat[1:], flat[:-1], out=raw[1:, 1:])
    data = zlib.compress(raw.tobytes(), level)

    def chunk(tag: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b"")

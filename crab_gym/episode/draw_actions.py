"""Drawing a recorded action and Set-of-Marks boxes onto a screen frame, for the HTML viewer.

Pure functions: each takes a PIL image and returns a new one, the input untouched. An action is the readable
dict a step line holds (``{"device", "action", "params"}``); points are normalised (x, y) fractions of the
screen, so they land in the right place on a downscaled frame. A tap, click, long tap, double or right click
is a dot at its point (``move`` a hollow ring), a swipe an arrow from the screen centre, a drag an arrow from
start to end; typed text, keys, scrolls and other point-less actions become a caption box at the bottom.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from crab_gym.envs.android.actions import SWIPE_FRACTION

__all__ = [
    "ARROW_COLOR",
    "DOT_COLOR",
    "MARK_COLOR",
    "action_caption",
    "draw_action",
    "draw_marks",
    "swipe_end",
]

DOT_COLOR = (255, 0, 200)
"""Fill of the dot drawn at a tap or click (magenta: rare in app UIs, easy to find in a frame)."""
ARROW_COLOR = (255, 120, 0)
MARK_COLOR = (0, 170, 255)
POINT_ACTIONS = frozenset({"tap", "click", "long_tap", "double_click", "right_click", "move"})
_UNIT = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}

Point = tuple[float, float]


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _point(value: Any) -> Point | None:
    """(x, y) from a stored point, or None when it is not a pair of numbers."""
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        try:
            return float(value[0]), float(value[1])
        except (TypeError, ValueError):
            return None
    return None


def swipe_end(direction: str, distance: str = "medium") -> Point | None:
    """Where a phone swipe from the screen centre ends, normalised; None for an unknown direction."""
    unit = _UNIT.get(direction)
    if unit is None:
        return None
    f = SWIPE_FRACTION.get(distance, SWIPE_FRACTION["medium"])
    return 0.5 + unit[0] * f, 0.5 + unit[1] * f


def action_caption(readable: Mapping[str, Any] | None) -> str | None:
    """The text of the caption box for an action without a point to mark (None for point actions)."""
    if not readable:
        return None
    name = str(readable.get("action"))
    params = readable.get("params") or {}
    if name == "write_text":
        return f"type: {params.get('text', '')}"
    if name == "press":
        return f"press: {params.get('button', params.get('key', '?'))}"
    if name == "hotkey":
        keys = params.get("keys") or []
        return "hotkey: " + "+".join(map(str, keys)) if isinstance(keys, list) else f"hotkey: {keys}"
    if name == "scroll":
        return f"scroll {params.get('direction', '?')} x{params.get('amount', 3)}"
    if name == "search_application":
        return f"open app: {params.get('name', '')}"
    if name in POINT_ACTIONS or name in ("swipe", "drag"):
        return None
    args = ", ".join(f"{k}={v}" for k, v in params.items())
    return f"{name}({args})"


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int, max_lines: int) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for ch in para:
            if draw.textlength(line + ch, font=font) > width and line:
                lines.append(line)
                line = ""
            line += ch
        lines.append(line)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][:-1] + "…"
    return lines


def _caption(image: Image.Image, text: str) -> Image.Image:
    """A dark, half-transparent box with ``text`` (wrapped, up to 4 lines) along the bottom of the frame."""
    w, h = image.size
    size = max(11, round(min(w, h) * 0.055))
    font = _font(size)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    pad = max(3, size // 3)
    lines = _wrap(draw, text, font, w - 4 * pad, max_lines=4)
    line_h = round(size * 1.25)
    box_h = line_h * len(lines) + 2 * pad
    top = h - box_h - pad
    draw.rounded_rectangle((pad, top, w - pad, h - pad), radius=pad, fill=(20, 20, 30, 200))
    for i, line in enumerate(lines):
        draw.text((2 * pad, top + pad + i * line_h), line, fill=(255, 255, 255, 255), font=font)
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")


def _arrow(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], width: int) -> None:
    """A line from a to b with a filled head at b and a ring at a."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = max((dx * dx + dy * dy) ** 0.5, 1e-6)
    ux, uy = dx / length, dy / length
    head = width * 4
    base = (b[0] - ux * head, b[1] - uy * head)
    draw.line((a, base), fill=(255, 255, 255), width=width + 4)
    draw.line((a, base), fill=ARROW_COLOR, width=width)
    tip = [b, (base[0] - uy * head * 0.6, base[1] + ux * head * 0.6),
           (base[0] + uy * head * 0.6, base[1] - ux * head * 0.6)]  # fmt: skip
    draw.polygon(tip, fill=ARROW_COLOR, outline=(255, 255, 255), width=2)
    r = width * 1.5
    draw.ellipse((a[0] - r, a[1] - r, a[0] + r, a[1] + r), outline=ARROW_COLOR, width=max(2, width // 2))


def _dot(draw: ImageDraw.ImageDraw, c: tuple[float, float], r: float, name: str) -> None:
    """The marker of a point action: a filled dot; ``move`` is a hollow ring, ``long_tap`` and
    ``double_click`` get an extra ring, ``right_click`` a square one."""
    x, y = c
    if name == "move":
        draw.ellipse((x - r, y - r, x + r, y + r), outline=DOT_COLOR, width=max(2, round(r / 3)))
        return
    if name in ("long_tap", "double_click"):
        R = r * 1.7
        draw.ellipse((x - R, y - R, x + R, y + R), outline=DOT_COLOR, width=max(2, round(r / 4)))
    if name == "right_click":
        R = r * 1.6
        draw.rectangle((x - R, y - R, x + R, y + R), outline=DOT_COLOR, width=max(2, round(r / 4)))
    draw.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=(255, 255, 255))
    draw.ellipse((x - r, y - r, x + r, y + r), fill=DOT_COLOR)


def draw_action(image: Image.Image, readable: Mapping[str, Any] | None) -> Image.Image:
    """A copy of ``image`` with the action drawn on it: a dot at the point of a tap or click, an arrow for a
    swipe (from the screen centre) or a drag (start to end), a caption box for text, keys and the rest."""
    out = image.convert("RGB")  # always a copy
    if not readable:
        return out
    name = str(readable.get("action"))
    params = readable.get("params") or {}
    w, h = out.size
    caption = action_caption(readable)
    if caption is not None:
        out = _caption(out, caption)
    draw = ImageDraw.Draw(out)
    width = max(3, round(min(w, h) * 0.012))
    if name in POINT_ACTIONS and (p := _point(params.get("point"))) is not None:
        _dot(draw, (p[0] * w, p[1] * h), max(5.0, min(w, h) * 0.035), name)
    elif name == "swipe" and (end := swipe_end(str(params.get("direction")), str(params.get("distance")))):
        _arrow(draw, (0.5 * w, 0.5 * h), (end[0] * w, end[1] * h), width)
    elif name == "drag":
        start, stop = _point(params.get("start")), _point(params.get("end"))
        if start is not None and stop is not None:
            _arrow(draw, (start[0] * w, start[1] * h), (stop[0] * w, stop[1] * h), width)
    return out


def draw_marks(
    image: Image.Image, marks: Sequence[Mapping[str, Any]], scale: tuple[float, float] = (1.0, 1.0)
) -> Image.Image:
    """A copy of ``image`` with each Set-of-Marks box outlined thinly and numbered; ``scale`` maps the
    boxes' device pixels to the image's pixels (x, y factors)."""
    out = image.convert("RGB")
    if not marks:
        return out
    draw = ImageDraw.Draw(out)
    size = max(9, round(min(out.size) * 0.028))
    font = _font(size)
    sx, sy = scale
    for m in marks:
        box = m.get("box")
        if not isinstance(box, Sequence) or len(box) != 4:
            continue
        x1, y1 = round(box[0] * sx), round(box[1] * sy)
        x2, y2 = min(round(box[2] * sx), out.width - 1), min(round(box[3] * sy), out.height - 1)
        draw.rectangle((x1, y1, x2, y2), outline=MARK_COLOR, width=1)
        label = str(m.get("id", ""))
        tw = draw.textlength(label, font=font)
        draw.rectangle((x1, y1, x1 + tw + 4, y1 + size + 3), fill=MARK_COLOR)
        draw.text((x1 + 2, y1 + 1), label, fill=(0, 0, 0), font=font)
    return out

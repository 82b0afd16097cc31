"""A web page laid out for the phone's screen (Chrome's WebView): words wrapped into lines, links as their own
clickable runs, inputs, buttons and image boxes; `layout` gives boxes in page coordinates (cached: a page is
laid out once per width), `draw` adds the Views of the boxes inside the scrolled viewport."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..net.page import Block, Page
from . import fonts
from .view import Handler, View

SIZES = {"text": 42, "item": 42, "row": 42, "pre": 36, 1: 64, 2: 54, 3: 48}  # design px by block kind/level
MARGIN = 40
GAP = 18  # between blocks


@dataclass(frozen=True)
class Box:
    kind: str  # text | link | input | button | image | rule
    x1: int
    y1: int
    x2: int
    y2: int
    text: str = ""
    href: str = ""
    bold: bool = False
    size: int = 0
    block: int = 0  # the block's index in the page


def _words(text: str) -> list[str]:
    """Words with the space after each kept, so joined back they give the text."""
    return re.findall(r"\S+\s*|\s+", text)


@lru_cache(maxsize=16)
def layout(page: Page, width: int, scale: float) -> tuple[tuple[Box, ...], int]:
    """(boxes, page height) of ``page`` on a ``width``-pixel screen at ``scale`` device px per design px."""

    def px(v: float) -> int:
        return int(round(v * scale))

    boxes: list[Box] = []
    y, left, right = px(GAP), px(MARGIN), width - px(MARGIN)
    for i, b in enumerate(page.blocks):
        if b.kind in ("input", "button", "image", "rule"):
            y = _control(boxes, b, i, y, left, right, px)
            continue
        size = px(SIZES.get(b.level if b.kind == "heading" else b.kind, 42))
        line_h = int(size * 1.45)
        x = left + (px(36) if b.kind == "item" else 0)
        if b.kind == "item":
            boxes.append(Box("text", left, y, x, y + line_h, "•", size=size, block=i))
        start = x
        for run in b.runs:
            bold = run.bold or b.kind == "heading"
            for word in _words(run.text):
                w = math.ceil(fonts.text_width(word.rstrip(), size, bold)) + 2
                if x > start and x + w > right:
                    x, y = start, y + line_h
                last = boxes[-1] if boxes else None
                kind = "link" if run.href else "text"
                same = (
                    last is not None
                    and last.y1 == y
                    and (last.kind, last.href, last.bold, last.block) == (kind, run.href, bold, i)
                    and last.x2 >= x - px(16)
                )
                if same and last is not None:
                    text = last.text + word
                    x2 = last.x1 + math.ceil(fonts.text_width(text.rstrip(), size, bold)) + 2
                    boxes[-1] = Box(
                        kind, last.x1, y, min(x2, right), y + line_h, text, run.href, bold, size, i
                    )
                elif word.strip():
                    boxes.append(
                        Box(kind, x, y, min(x + w, right), y + line_h, word, run.href, bold, size, i)
                    )
                x += math.ceil(fonts.text_width(word, size, bold))
        y += line_h + px(GAP)
    boxes = [
        Box(b.kind, b.x1, b.y1, b.x2, b.y2, b.text.strip(), b.href, b.bold, b.size, b.block) for b in boxes
    ]
    return tuple(boxes), y + px(GAP)


def _control(boxes: list[Box], b: Block, i: int, y: int, left: int, right: int, px: Callable) -> int:
    if b.kind == "input":
        boxes.append(Box("input", left, y, right, y + px(130), b.alt, block=i, size=px(42)))
        return y + px(130 + GAP)
    if b.kind == "button":
        w = int(fonts.text_width(b.value, px(40), True)) + px(96)
        boxes.append(Box("button", left, y, min(right, left + w), y + px(120), b.value, block=i, size=px(40)))
        return y + px(120 + GAP)
    if b.kind == "image":
        boxes.append(
            Box(
                "image",
                left,
                y,
                left + px(480),
                y + px(360),
                b.alt,
                b.runs[0].href if b.runs else "",
                block=i,
                size=px(36),
            )
        )
        return y + px(360 + GAP)
    boxes.append(Box("rule", left, y, right, y + px(3), block=i))
    return y + px(3 + GAP)


@dataclass
class Hooks:
    """What the page's Views do: open a link, show a link's or an image's menu, focus and submit inputs."""

    open: Callable[[str], None]
    menu: Callable[[str, str, str], None]  # (kind "link"|"image", url, text)
    submit: Callable[[int], None]  # a block index (its form)
    focus: Callable[[str], None]


def draw(
    parent: View,
    page: Page,
    boxes: tuple[Box, ...],
    top: int,
    bottom: int,
    scroll: int,
    fields: dict[str, str],
    focused: str,
    colors: dict,
    hooks: Hooks,
    package: str,
) -> None:
    """Add a View per box in the viewport ``top``..``bottom`` (page y ``scroll`` at ``top``)."""
    for bx in boxes:
        y1, y2 = bx.y1 - scroll + top, bx.y2 - scroll + top
        if y2 <= top or y1 >= bottom:
            continue
        v = parent.add(
            View(
                package=package,
                bounds=(bx.x1, max(y1, top), bx.x2, min(y2, bottom)),
                size=bx.size,
                bold=bx.bold,
            )
        )
        v.bold = bx.bold
        block = page.blocks[bx.block] if bx.block < len(page.blocks) else None
        if bx.kind in ("text", "link"):
            v.cls, v.text, v.fg, v.shape = "android.widget.TextView", bx.text, colors["text"], "none"
            if bx.kind == "link":
                v.fg = colors["primary"]
                v.clickable = v.long_clickable = v.focusable = True
                v.on_click = _bind(hooks.open, bx.href)
                v.on_long_click = _menu(hooks, "link", bx.href, bx.text)
        elif bx.kind == "input" and block is not None:
            key = f"in{block.index}"
            value = fields.get(key, block.value)
            v.cls, v.text, v.hint, v.desc = (
                "android.widget.EditText",
                value or bx.text,
                "" if value else bx.text,
                bx.text,
            )
            v.clickable = v.focusable = v.long_clickable = True
            v.focused, v.on_click, v.shape = focused == key, _bind(hooks.focus, key), "outline"
            v.fg, v.bg = colors["text"], colors["primary" if focused == key else "outline"]
        elif bx.kind == "button":
            v.cls, v.text, v.clickable, v.focusable = "android.widget.Button", bx.text, True, True
            v.on_click, v.shape, v.align = _bind(hooks.submit, bx.block), "pill", "center"
            v.bg, v.fg = colors["primary"], colors["on_primary"]
        elif bx.kind == "image" and block is not None:
            v.cls, v.desc, v.shape, v.icon = "android.widget.Image", bx.text, "round", "image"
            v.bg, v.fg = colors["surface_container_highest"], colors["muted"]
            v.long_clickable, v.on_long_click = True, _menu(hooks, "image", block.src, bx.text)
            if bx.href:
                v.clickable, v.on_click = True, _bind(hooks.open, bx.href)
        else:
            v.cls, v.bg = "android.view.View", colors["outline"]


def _bind(fn: Callable, arg: object) -> Handler:
    return lambda: fn(arg)


def _menu(hooks: Hooks, kind: str, url: str, text: str) -> Handler:
    return lambda: hooks.menu(kind, url, text)

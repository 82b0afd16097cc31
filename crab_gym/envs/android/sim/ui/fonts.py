"""The phone's typefaces: Roboto for text and Material Icons for icons, both from Debian font packages.

Files are looked up at run time in the places the packages install them (``fonts-roboto`` ships Roboto
under /usr/share/fonts/truetype/roboto, ``fonts-material-design-icons-iconfont`` ships MaterialIcons-Regular
.ttf and a Sass map of icon names to code points); a missing one raises :class:`FontMissing` naming the
Debian package to install. Nothing is downloaded.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from . import glyphstore

if TYPE_CHECKING:
    from PIL import ImageFont

# Where the Debian packages put them (looked at first), then any font directory.
KNOWN_DIRS = (
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF",
    "/usr/share/fonts/truetype/roboto/hinted",
    "/usr/share/fonts/truetype/material-design-icons-iconfont",
)
FONT_ROOTS = ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.local/share/fonts"))
ROBOTO = {"regular": "Roboto-Regular.ttf", "medium": "Roboto-Medium.ttf"}
ICONS_TTF = "MaterialIcons-Regular.ttf"
ICONS_PACKAGE = "fonts-material-design-icons-iconfont"
# The Sass map shipped with the icon font package: `"name": e145,` lines.
CODEPOINT_FILE = "/usr/share/fonts-material-design-icons-iconfont/scss/_variables.scss"
CODEPOINT_LINE = re.compile(r'"([a-z0-9_]+)":\s*([0-9a-f]{4,5})\b')


class FontMissing(RuntimeError):
    """A font file the phone draws with is not installed."""


@functools.lru_cache(maxsize=16)
def find_font(filename: str, package: str) -> str:
    """The path of an installed font file, searched under the usual font directories."""
    for d in KNOWN_DIRS:
        if os.path.exists(os.path.join(d, filename)):
            return os.path.join(d, filename)
    for root in FONT_ROOTS:
        if not os.path.isdir(root):
            continue
        for dirpath, _dirs, files in os.walk(root):
            if filename in files:
                return os.path.join(dirpath, filename)
    raise FontMissing(
        f"font {filename} not found under {', '.join(FONT_ROOTS)}: install the Debian package {package} "
        f"(apt-get install -y {package})"
    )


@functools.lru_cache(maxsize=128)
def text_font(size: int, medium: bool = False) -> ImageFont.FreeTypeFont:
    """Roboto (Medium for titles and buttons, Regular otherwise) at ``size`` pixels (at least 1)."""
    from PIL import ImageFont  # here: a frame whose glyphs are all stored (glyphstore.py) loads no font

    path = find_font(ROBOTO["medium" if medium else "regular"], "fonts-roboto")
    return ImageFont.truetype(path, max(1, int(size)))


@functools.lru_cache(maxsize=64)
def icon_font(size: int) -> ImageFont.FreeTypeFont:
    """Material Icons at ``size`` pixels (an icon's em box is ``size`` square)."""
    from PIL import ImageFont

    return ImageFont.truetype(find_font(ICONS_TTF, ICONS_PACKAGE), max(1, int(size)))


@functools.lru_cache(maxsize=1)
def codepoints() -> dict[str, str]:
    """{icon name: the character that draws it}, from the code point map the icon font package ships."""
    if not os.path.exists(CODEPOINT_FILE):
        raise FontMissing(
            f"the Material Icons code point map ({CODEPOINT_FILE}) is missing: install the Debian package "
            f"{ICONS_PACKAGE} (apt-get install -y {ICONS_PACKAGE})"
        )
    text = Path(CODEPOINT_FILE).read_text(encoding="utf-8", errors="replace")
    pairs = CODEPOINT_LINE.findall(text)
    if not pairs:
        raise FontMissing(f"{CODEPOINT_FILE}: no icon code points (expected lines like '\"add\": e145,')")
    return {name: chr(int(code, 16)) for name, code in pairs}


def glyph(name: str) -> str:
    """The character of a Material icon by name (``"add"``, ``"arrow_back"``); KeyError names the icon."""
    try:
        return codepoints()[name]
    except KeyError:
        raise KeyError(f"no Material icon named {name!r} in the {ICONS_PACKAGE} code point map") from None


@functools.lru_cache(maxsize=64)
def glyph_store(tag: str) -> glyphstore.GlyphStore:
    """This process's glyphs on disk of one kind (glyphstore.py): "widths", "shapes", or the text and icons
    of a frame scale (:func:`scale_tag`); keyed by the code that draws them and the font files, none kept
    when a font is missing (drawing then raises FontMissing)."""
    try:
        files = [find_font(f, "fonts-roboto") for f in ROBOTO.values()]
        files += [find_font(ICONS_TTF, ICONS_PACKAGE), CODEPOINT_FILE]
    except FontMissing:
        return glyphstore.GlyphStore(None)
    return glyphstore.open_store(files, tag)


def scale_tag(scale: float) -> str:
    """The name of the store of glyphs drawn at ``scale``."""
    return f"x{scale:.6f}"


@functools.lru_cache(maxsize=4096)
def text_width(text: str, size: int, medium: bool = False) -> float:
    """Advance width in pixels of ``text`` in Roboto at ``size``."""
    return float(
        glyph_store("widths").get_or_draw(
            "width", (text, size, medium), lambda: text_font(size, medium).getlength(text)
        )
    )


@functools.lru_cache(maxsize=4096)
def fit(text: str, width: int, size: int, medium: bool = False) -> str:
    """``text`` cut to ``width`` pixels with an ellipsis when it is wider (as a single-line TextView)."""
    if width <= 0 or not text:
        return ""
    if text_width(text, size, medium) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid] + "…", size, medium) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else "…"


@functools.lru_cache(maxsize=1024)
def wrap(text: str, width: int, size: int, medium: bool = False, max_lines: int = 3) -> tuple[str, ...]:
    """``text`` broken at spaces into lines of at most ``width`` pixels (a word wider than a line is cut),
    at most ``max_lines``, the last cut with an ellipsis when the rest does not fit (a multi-line
    TextView)."""
    lines: list[str] = []
    words = text.split()
    while words and len(lines) < max_lines - 1:
        n = 1
        while n < len(words) and text_width(" ".join(words[: n + 1]), size, medium) <= width:
            n += 1
        lines.append(fit(" ".join(words[:n]), width, size, medium))
        words = words[n:]
    if words:
        lines.append(fit(" ".join(words), width, size, medium))
    return tuple(lines)

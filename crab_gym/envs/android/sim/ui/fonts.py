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
    path = find_font(ROBOTO["medium" if medium else "regular"], "fonts-roboto")
    return ImageFont.truetype(path, max(1, int(size)))


@functools.lru_cache(maxsize=64)
def icon_font(size: int) -> ImageFont.FreeTypeFont:
    """Material Icons at ``size`` pixels (an icon's em box is ``size`` square)."""
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


@functools.lru_cache(maxsize=4096)
def text_width(text: str, size: int, medium: bool = False) -> float:
    """Advance width in pixels of ``text`` in Roboto at ``size``."""
    return text_font(size, medium).getlength(text)


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


def wrap(text: str, width: int, size: int, lines: int, medium: bool = False) -> list[str]:
    """``text`` broken at spaces into at most ``lines`` lines of ``width`` pixels; the last is ellipsized."""
    out: list[str] = []
    words = text.split()
    while words:
        if len(out) == lines - 1:  # the last line takes the rest, cut to the width
            out.append(fit(" ".join(words), width, size, medium))
            break
        n = 1
        while n < len(words) and text_width(" ".join(words[: n + 1]), size, medium) <= width:
            n += 1
        out.append(fit(" ".join(words[:n]), width, size, medium))
        words = words[n:]
    return out

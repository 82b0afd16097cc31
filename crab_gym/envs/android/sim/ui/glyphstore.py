"""The phone's glyphs kept on disk: the text, icon and shape masks and the text widths a process computes
(sprites.py, fonts.py), read back by the next process so that its first frame draws no glyph.

Drawing the first screen's ~40 strings and icons through FreeType is most of a phone's first render (and
needs Pillow's font modules); reading them back is one file. The file is
``$XDG_CACHE_HOME/crab-gym/phone-glyphs-<key>.bin`` (default ``~/.cache/crab-gym``), where the key hashes
the code that draws them (sprites.py, fonts.py, this module), Pillow's version and the font files used
(path, size, mtime): another drawing gives another file. Each entry is keyed by what it was drawn for
(string, size, weight, the frame's scale), so one file serves every frame size.

A process writes the file after a screenshot that drew something new (``Phone.screenshot`` calls
:func:`settle`), at most :data:`MAX_SAVES` times: what it adds is its first frames' glyphs, each time in
one atomic replace, up to :data:`MAX_BYTES`. A missing, unreadable or malformed file is ignored (the
glyphs are drawn), and a cache that cannot be written is skipped.

Format: a JSON index line (``[kind, args, shape, offset, extra]`` per entry), then the masks' bytes. No
pickle: reading a file runs no code from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

MAX_BYTES = 8 * 2**20  # what a file holds at most (a 96x208 first screen: ~20 kB; 1080x2400: ~1 MB)
KINDS = ("text", "icon", "shape", "width")  # text_mask, icon_mask, shape_mask, text_width
MAX_SAVES = 3  # writes per process: its first frames' glyphs (say, the RL size and the device's), not all
MAGIC = "crab-gym phone glyphs 1"


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/crab-gym``, else ``~/.cache/crab-gym`` (as the desktop's wallpaper)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "crab-gym"


def _key(files: list[str]) -> str:
    """The hash of what the glyphs depend on: the code that draws them, Pillow's version, the font files."""
    import PIL

    h = hashlib.sha256(PIL.__version__.encode())
    here = Path(__file__).parent
    for name in ("sprites.py", "fonts.py", "glyphstore.py"):
        h.update((here / name).read_bytes())
    for f in files:
        st = os.stat(f)
        h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def _args(value: Any) -> Any:
    """JSON's lists back to the tuples the calls were keyed by."""
    return tuple(_args(v) for v in value) if isinstance(value, list) else value


class GlyphStore:
    """Entries by (kind, args): a mask's array with its ints (text: dx, dy, advance; icon: dx, dy), or a
    text width; loaded from ``path`` at the first lookup."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, tuple], Any] | None = None
        self._new: dict[tuple[str, tuple], Any] = {}
        self.saves = 0

    def _load(self) -> dict[tuple[str, tuple], Any]:
        entries: dict[tuple[str, tuple], Any] = {}
        if self.path is None:
            return entries
        try:
            with open(self.path, "rb") as f:
                head = json.loads(f.readline())
                data = f.read()
            if head.get("magic") != MAGIC:
                return {}
            for kind, args, shape, offset, extra in head["entries"]:
                key = (kind, _args(args))
                if kind == "width":
                    entries[key] = float(extra)
                    continue
                n = int(shape[0]) * int(shape[1])
                if offset < 0 or offset + n > len(data):
                    return {}
                mask = np.frombuffer(data, np.uint8, n, offset).reshape(shape)
                entries[key] = mask if kind == "shape" else (mask, *(int(x) for x in extra))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return {}  # not there, or not a file this code wrote: draw instead
        return entries

    def get(self, kind: str, args: tuple) -> Any:
        """The stored value of ``kind`` for ``args``, or None."""
        if self._entries is None:
            with self._lock:
                if self._entries is None:
                    self._entries = self._load()
        return self._entries.get((kind, args))

    def put(self, kind: str, args: tuple, value: Any) -> None:
        """Remember a value just computed, for :meth:`save`."""
        if self.path is not None and self.saves < MAX_SAVES:
            with self._lock:
                self._new[(kind, args)] = value

    def save(self) -> bool:
        """Write the loaded entries and the new ones (up to :data:`MAX_BYTES`), at most :data:`MAX_SAVES`
        times per process; returns whether it wrote."""
        with self._lock:
            if self.saves >= MAX_SAVES or not self._new or self.path is None:
                return False
            self.saves += 1
            index, chunks, size = [], [], 0
            for (kind, args), value in {**(self._entries or {}), **self._new}.items():
                if kind == "width":
                    index.append([kind, args, [0, 0], 0, value])
                    continue
                mask, *extra = value if kind != "shape" else (value,)
                mask = np.ascontiguousarray(mask, np.uint8)
                if size + mask.nbytes > MAX_BYTES:
                    continue
                index.append([kind, args, list(mask.shape), size, [int(x) for x in extra]])
                chunks.append(mask.tobytes())
                size += mask.nbytes
            self._entries = {**(self._entries or {}), **self._new}
            self._new.clear()
        try:
            head = json.dumps({"magic": MAGIC, "entries": index}, separators=(",", ":"))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.path.parent, suffix=".bin", delete=False) as f:
                f.write(head.encode() + b"\n")
                f.writelines(chunks)
            os.replace(f.name, self.path)  # whole or not at all, for another process reading it meanwhile
        except (OSError, TypeError, ValueError):  # unwritable, or an argument JSON cannot hold
            return False
        return True


_store: GlyphStore | None = None


def open_store(files: list[str]) -> GlyphStore:
    """The store for glyphs drawn from the font ``files`` (fonts.glyph_store gives this process's); what
    :func:`settle` writes."""
    global _store
    try:
        path: Path | None = cache_dir() / f"phone-glyphs-{_key(files)}.bin"
    except OSError:  # a font file went away: draw, keep nothing
        path = None
    _store = GlyphStore(path)
    return _store


def settle() -> None:
    """Write what this process drew that the file lacks, if anything (after a frame)."""
    if _store is not None and _store._new:
        _store.save()

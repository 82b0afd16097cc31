"""The phone's glyphs kept on disk: the text, icon and shape masks and the text widths a process computes
(sprites.py, fonts.py), read back by the next process so that its first frame draws no glyph.

Drawing the first screen's ~40 strings and icons through FreeType is most of a phone's first render (and
needs Pillow's font modules); reading them back is one file per frame scale (plus one of shapes and one of
text widths). The files are ``$XDG_CACHE_HOME/crab-gym/phone-glyphs-<tag>-<key>.bin`` (default
``~/.cache/crab-gym``), where the key hashes the code that draws them (sprites.py, fonts.py, this module),
Pillow's version and the font files used (path, size, mtime): another drawing gives other files. Each entry
is named by what it was drawn for (string, size, weight, the frame's scale).

A process writes the file after a screenshot that drew something new (``Phone.screenshot`` calls
:func:`settle`), at most :data:`MAX_SAVES` times: what it adds is its first frames' glyphs, each time in
one atomic replace, up to :data:`MAX_BYTES`; the :data:`MAX_FILES` newest files are kept. A missing,
unreadable or malformed file is ignored (the glyphs are drawn), and a cache that cannot be written is
skipped.

Format: a JSON index line (``{name: [shape, offset, extra]}``, the name :func:`entry_key`), then the masks'
bytes. No pickle: reading a file runs no code from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from crab_gym.core.disk_cache import cache_dir, keep_newest, write_atomic

MAX_BYTES = 4 * 2**20  # the masks a file holds at most (a 96x208 first screen: ~10 kB; 1080x2400: ~0.3 MB)
KINDS = ("text", "icon", "shape", "width")  # text_mask, icon_mask, shape_mask, text_width
MAX_FILES = 24  # glyph files kept in the cache directory (other code's and sizes' too): the newest
MAX_SAVES = 3  # writes per process: its first frames' glyphs (say, the RL size and the device's), not all
MAGIC = "crab-gym phone glyphs 1"


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


def entry_key(kind: str, args: tuple) -> str:
    """An entry's name in a file: its kind and arguments as JSON (a float's repr round-trips; an argument
    JSON cannot hold makes no entry)."""
    return json.dumps([kind, args], separators=(",", ":"))


class GlyphStore:
    """Entries by (kind, args): a mask's array with its ints (text: dx, dy, advance; icon: dx, dy), or a
    text width. The file's index is read at the first lookup; an entry is decoded when looked up."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._index: dict[str, list] | None = None  # name -> [shape, offset, extra]
        self._data = b""
        self._new: dict[str, tuple[str, Any]] = {}  # name -> (kind, value)
        self.saves = 0

    def _load(self) -> None:
        self._index = {}
        if self.path is None:
            return
        try:
            with open(self.path, "rb") as f:
                head = json.loads(f.readline())
                data = f.read()
            if (
                isinstance(head, dict)
                and head.get("magic") == MAGIC
                and isinstance(head.get("entries"), dict)
            ):
                self._index, self._data = head["entries"], data
        except (OSError, ValueError):
            pass  # not there, or not a file this code wrote: draw instead

    def get(self, kind: str, args: tuple) -> Any:
        """The stored value of ``kind`` for ``args``, or None (also for an entry the file holds wrongly)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._load()
        try:
            found = self._index.get(entry_key(kind, args)) if self._index else None
            if found is None:
                return None
            shape, offset, extra = found
            if kind == "width":
                return float(extra)
            h, w = int(shape[0]), int(shape[1])
            if offset < 0 or offset + h * w > len(self._data):
                return None
            mask = np.frombuffer(self._data, np.uint8, h * w, offset).reshape(h, w)
            return mask if kind == "shape" else (mask, *(int(x) for x in extra))
        except (TypeError, ValueError):
            return None

    def get_or_draw(self, kind: str, args: tuple, draw: Callable[[], Any]) -> Any:
        """The stored value of ``kind`` for ``args``, else what ``draw()`` gives (remembered for
        :meth:`save`)."""
        value = self.get(kind, args)
        if value is None:
            value = draw()
            self.put(kind, args, value)
        return value

    def put(self, kind: str, args: tuple, value: Any) -> None:
        """Remember a value just computed, for :meth:`save`."""
        if self.path is not None and self.saves < MAX_SAVES:
            try:
                name = entry_key(kind, args)
            except (TypeError, ValueError):
                return
            with self._lock:
                self._new[name] = (kind, value)

    def save(self) -> bool:
        """Write the file's entries and the new ones (up to :data:`MAX_BYTES` of masks), at most
        :data:`MAX_SAVES` times per process; returns whether it wrote."""
        with self._lock:
            if self.saves >= MAX_SAVES or not self._new or self.path is None:
                return False
            self.saves += 1
            index: dict[str, list] = {}
            chunks, size = [], 0
            for name, (shape, offset, extra) in (self._index or {}).items():
                n = int(shape[0]) * int(shape[1])
                if size + n <= MAX_BYTES:
                    index[name] = [shape, size, extra]
                    chunks.append(self._data[offset : offset + n])
                    size += n
            for name, (kind, value) in self._new.items():
                if kind == "width":
                    index[name] = [[0, 0], 0, float(value)]
                    continue
                mask, *extra = value if kind != "shape" else (value,)
                mask = np.ascontiguousarray(mask, np.uint8)
                if size + mask.nbytes <= MAX_BYTES:
                    index[name] = [list(mask.shape), size, [int(x) for x in extra]]
                    chunks.append(mask.tobytes())
                    size += mask.nbytes
            self._new.clear()
            data = b"".join(chunks)
            self._index, self._data = index, data
        head = json.dumps({"magic": MAGIC, "entries": index}, separators=(",", ":"))
        if not write_atomic(self.path, lambda f: f.writelines((head.encode() + b"\n", data))):
            return False
        keep_newest("phone-glyphs-*.bin", MAX_FILES)
        return True


_stores: list[GlyphStore] = []


def open_store(files: list[str], tag: str) -> GlyphStore:
    """The store named ``tag`` (fonts.glyph_store: one per frame scale for text and icons, one for shapes,
    one for text widths) of glyphs drawn from the font ``files``. :func:`settle` writes them."""
    try:
        path: Path | None = cache_dir() / f"phone-glyphs-{tag}-{_key(files)}.bin"
    except OSError:  # a font file went away: draw, keep nothing
        path = None
    store = GlyphStore(path)
    _stores.append(store)
    return store


def settle() -> None:
    """Write what this process drew that the files lack, if anything (after a frame)."""
    for store in _stores:
        if store._new:
            store.save()

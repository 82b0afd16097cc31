"""Files kept between processes under ``$XDG_CACHE_HOME/crab-gym`` (default ``~/.cache/crab-gym``): what a
start would otherwise compute again (the desktop's wallpaper, the phone's glyphs and seed databases, VM
images). A file is written whole or not at all, so a process reading it meanwhile sees the old one or the
new one; callers key their file names by what the contents depend on and treat a bad file as a miss.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/crab-gym``, else ``~/.cache/crab-gym``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "crab-gym"


def write_atomic(path: Path, write: Callable[[IO[bytes]], None]) -> bool:
    """Write ``path`` through ``write`` into a temporary file beside it, then rename that into place;
    False, and nothing written, when the directory cannot be written."""
    name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=path.suffix, delete=False) as f:
            name = f.name
            write(f)
        os.replace(name, path)
        return True
    except OSError:
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(name)
        return False


def keep_newest(pattern: str, n: int) -> None:
    """Delete all but the ``n`` newest files of the cache directory matching ``pattern``."""
    try:
        kept = sorted(cache_dir().glob(pattern), key=lambda p: p.stat().st_mtime)
        for old in kept[:-n]:
            old.unlink(missing_ok=True)
    except OSError:  # another process removed one meanwhile, or the directory is not ours to clean
        pass

"""Session paths and the file reads checks make: ``~`` is the session user's HOME; reads are bounded.

Guest-safe (stdlib only): the VM image ships this module to the probe agent, which reads the guest's
files by the same rules as the xvfb backend reads the session's HOME on this machine.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import TypeVar

P = TypeVar("P", bound=PurePath)


def resolve(home: P, path: str) -> P:
    """A session path (``~``, ``~/x``, ``x`` or ``/abs``) under ``home``, in ``home``'s path type."""
    if path == "~" or path.startswith("~/"):
        return home / path[2:]
    return type(home)(path) if path.startswith("/") else home / path


def stat_of(path: str | os.PathLike[str]) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """A file's bytes; None when missing, unreadable, a folder, or larger than ``limit``."""
    try:
        with open(path, "rb") as f:
            data = f.read(int(limit) + 1)
    except OSError:
        return None
    return None if len(data) > int(limit) else data


def list_dir(path: str | os.PathLike[str]) -> list[str] | None:
    """The sorted names in a folder; None when it is missing or unreadable."""
    try:
        return sorted(os.listdir(path))
    except OSError:
        return None

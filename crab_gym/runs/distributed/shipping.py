"""Episode folders sent from a Ray node to the driver's run folder, for nodes that do not share it.

A node sees the run folder when it finds the driver's marker file in it (a shared file system mounted at the
same path, or the driver's own machine): its actors record straight into it. Any other node records into a
staging folder of its own and sends each finished episode as ``{relative path: bytes}``; the driver writes it
as ``<id>.partial`` and renames it into place, as the recorder does, so a run folder only ever holds whole
episodes and resuming works the same.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path, PurePosixPath

from crab_gym.episode.format import PARTIAL

__all__ = ["EpisodeFiles", "make_marker", "pack_episode", "sees_marker", "unpack_episode"]

EpisodeFiles = dict[str, bytes]
MARKER_PREFIX = ".crab-gym-ray-"


def make_marker(out: Path) -> Path:
    """A file only this run writes into ``out``; a node that can read it shares the run folder."""
    marker = out / f"{MARKER_PREFIX}{uuid.uuid4().hex}"
    marker.write_text(f"{os.uname().nodename} {os.getpid()}\n")
    return marker


def sees_marker(marker: str | os.PathLike[str]) -> bool:
    return Path(marker).is_file()


def pack_episode(folder: Path) -> EpisodeFiles:
    """Every file under an episode folder by its path relative to the folder, and every folder (empty ones
    too) as its path with a trailing ``/``."""
    files: EpisodeFiles = {}
    for p in sorted(folder.rglob("*")):
        relative = p.relative_to(folder).as_posix()
        if p.is_dir():
            files[relative + "/"] = b""
        elif p.is_file():
            files[relative] = p.read_bytes()
    return files


def _safe(relative: str) -> PurePosixPath:
    path = PurePosixPath(relative.removesuffix("/"))
    if not relative or path.is_absolute() or any(part in ("", ".", "..") for part in path.parts):
        raise ValueError(f"episode file {relative!r}: not a plain relative path")
    return path


def unpack_episode(out: Path, episode_id: str, files: EpisodeFiles) -> Path:
    """Write a sent episode as ``out/<episode_id>`` (replacing a stale copy); returns the folder."""
    if "/" in episode_id or not episode_id or episode_id in (".", ".."):
        raise ValueError(f"episode id {episode_id!r}: not a folder name")
    if "episode.json" not in files:
        raise ValueError(f"episode {episode_id!r}: sent without its episode.json")
    tmp = out / (episode_id + PARTIAL)  # what a killed writer leaves, so readers already skip it
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for relative, data in files.items():
            target = tmp / _safe(relative)
            if relative.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        final = out / episode_id
        if final.exists():
            stale = out / f".stale-{uuid.uuid4().hex}"
            os.replace(final, stale)
            shutil.rmtree(stale, ignore_errors=True)
        os.replace(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final

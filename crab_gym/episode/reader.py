"""Reading episode folders of the native format (:mod:`crab_gym.episode.format` describes it): one
:class:`Episode`, the episodes of a run, the ids a run has finished."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import zstandard
from PIL import Image

from crab_gym.episode.writer import FORMAT, PARTIAL, EpisodeFormatError

__all__ = ["Episode", "episode_dirs", "finished_ids", "load_episode", "load_episodes"]


@dataclass
class Episode:
    """A recorded episode: ``meta`` (episode.json), ``steps`` (step 0 is the reset) and frame access."""

    path: Path
    meta: dict[str, Any]
    steps: list[dict[str, Any]]
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> str:
        return str(self.meta.get("episode_id", self.path.name))

    @property
    def complete(self) -> bool:
        """True when the episode ran to its end (terminated or truncated) and was closed."""
        return self.meta.get("status") == "complete" and not self.path.name.endswith(PARTIAL)

    @property
    def devices(self) -> list[str]:
        return list(self.steps[0].get("screens", {})) if self.steps else []

    def screen_size(self, device: str) -> tuple[int, int] | None:
        """(width, height) of ``device``'s full frame: the pixels recorded element and mark boxes are in
        (stored screens may be downscaled, observations resized by ``obs_size``)."""
        size = (self.meta.get("screen_sizes") or {}).get(device)
        if isinstance(size, list) and len(size) == 2:
            return int(size[0]), int(size[1])
        try:  # a recording from before screen_sizes was kept: the observation's screen
            shape = self.meta["observation_space"]["spaces"][device]["spaces"]["screen"]["shape"]
            return int(shape[1]), int(shape[0])
        except (KeyError, TypeError, IndexError, ValueError):
            return None

    def array(self, ref: str) -> np.ndarray:
        """The array stored under ``ref`` (a path from a step line), decoded."""
        if ref not in self._cache:
            path = self.path / ref
            try:
                data = path.read_bytes()
                if ref.endswith(".png"):
                    with Image.open(io.BytesIO(data)) as im:
                        value = np.asarray(im)
                else:
                    if ref.endswith(".zst"):
                        data = zstandard.ZstdDecompressor().decompress(data)
                    value = np.load(io.BytesIO(data), allow_pickle=False)
            except (OSError, ValueError, zstandard.ZstdError) as e:
                raise EpisodeFormatError(f"{path}: cannot read the stored array ({e})") from None
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[ref] = value
        return self._cache[ref]

    def screen(self, t: int, device: str) -> np.ndarray:
        """Device ``device``'s screen after step ``t`` (t = 0: at reset)."""
        return self.array(self.steps[t]["screens"][device])

    def observation(self, t: int) -> dict[str, Any]:
        """The observation the agent got at step ``t``, nested as the env returned it."""
        out: dict[str, Any] = {}
        for key, ref in self.steps[t].get("obs", {}).items():
            node = out
            *parents, leaf = key.split("/")
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = self.array(ref)
        return out

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The step lines after the reset: one per action taken."""
        return self.steps[1:]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EpisodeFormatError(f"{path}: missing (not an episode folder?)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise EpisodeFormatError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise EpisodeFormatError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def load_episode(path: str | os.PathLike[str]) -> Episode:
    """Read one episode folder (closed or ``.partial``); EpisodeFormatError names what is malformed."""
    path = Path(path)
    meta = _read_json(path / "episode.json")
    if meta.get("format") != FORMAT:
        raise EpisodeFormatError(
            f"{path / 'episode.json'}: field 'format' is {meta.get('format')!r}, not {FORMAT!r}"
        )
    steps: list[dict[str, Any]] = []
    log = path / "steps.jsonl"
    try:
        lines = log.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise EpisodeFormatError(f"{log}: cannot read ({e})") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            step = json.loads(line)
        except json.JSONDecodeError as e:
            if n == len(lines) and path.name.endswith(PARTIAL):
                break  # the writer was killed in the middle of this line
            raise EpisodeFormatError(f"{log}:{n}: not valid JSON ({e.msg})") from None
        if not isinstance(step, dict) or step.get("t") != len(steps):
            raise EpisodeFormatError(f"{log}:{n}: field 't' should be {len(steps)}")
        steps.append(step)
    return Episode(path, meta, steps)


def episode_dirs(run_dir: str | os.PathLike[str], partial: bool = True) -> list[Path]:
    """Episode folders under ``run_dir`` (a run folder, or one episode folder), sorted by name."""
    run = Path(run_dir)
    if (run / "episode.json").is_file():
        return [run]
    if not run.is_dir():
        raise FileNotFoundError(f"{run}: no such run folder")
    return sorted(
        p
        for p in run.iterdir()
        if p.is_dir() and (p / "episode.json").is_file() and (partial or not p.name.endswith(PARTIAL))
    )


def load_episodes(run_dir: str | os.PathLike[str], complete_only: bool = False) -> Iterator[Episode]:
    """Every episode under ``run_dir``; with ``complete_only``, those that ran to their end."""
    for p in episode_dirs(run_dir, partial=not complete_only):
        ep = load_episode(p)
        if not complete_only or ep.complete:
            yield ep


def finished_ids(run_dir: str | os.PathLike[str]) -> set[str]:
    """Ids of the complete episodes under ``run_dir`` (what a resumed collection skips)."""
    run = Path(run_dir)
    if not run.is_dir():
        return set()
    done = set()
    for p in episode_dirs(run, partial=False):
        try:
            meta = _read_json(p / "episode.json")
        except EpisodeFormatError:
            continue
        if meta.get("status") == "complete":
            done.add(p.name)
    return done

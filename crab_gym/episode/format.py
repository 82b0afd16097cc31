"""The native on-disk episode format: one folder per episode, a JSON-lines step log and frame files.

```
RUN/
  <episode id>/              a closed episode (``episode.json`` says complete or incomplete)
    episode.json             task, seed, instruction, env id and kwargs, spaces, versions, how it ended
    steps.jsonl              line 0 is the reset, then one line per step (see docs/episode-format.md)
    frames/<hash>.npy.zst    device screens and image observations, Zstandard-compressed .npy (or .png)
    arrays/<hash>.npy        other observation arrays (the instruction bytes, Set-of-Marks boxes)
  <episode id>.partial/      an episode being written, or one whose writer was killed
```

Files are content-addressed, so an unchanged screen is written once. Every file but ``steps.jsonl`` is
written to a temporary name and renamed; ``steps.jsonl`` grows a whole line at a time and a reader drops a
cut last line; the folder is renamed from ``.partial`` when the episode closes. A reader never sees half a
file, and a killed writer leaves a readable partial episode.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xxhash
import zstandard
from PIL import Image

__all__ = [
    "FORMAT",
    "Episode",
    "EpisodeFormatError",
    "EpisodeWriter",
    "episode_dirs",
    "finished_ids",
    "is_image",
    "jsonable",
    "load_episode",
    "load_episodes",
]

FORMAT = "crab-gym-episode/1"
PARTIAL = ".partial"
FRAME_FORMATS = ("zst", "png")


class EpisodeFormatError(ValueError):
    """A recorded episode file that cannot be read; the message names the file and the field."""


def is_image(value: Any) -> bool:
    """An (H, W, 3|4) or (H, W) uint8 array of at least 8x8: stored as a frame, not as an array."""
    return (
        isinstance(value, np.ndarray)
        and value.dtype == np.uint8
        and (value.ndim == 2 or (value.ndim == 3 and value.shape[2] in (1, 3, 4)))
        and min(value.shape[:2]) >= 8
    )


def jsonable(value: Any) -> Any:
    """A JSON-ready copy: arrays and numpy scalars to lists and numbers, tuples to lists, objects to text."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    dump = getattr(value, "model_dump", None)  # pydantic objects, e.g. an OpenAI tool call
    if callable(dump):
        try:
            return jsonable(dump())
        except Exception:  # noqa: BLE001 - a foreign object: fall back to its text
            pass
    return repr(value)


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def safe_id(text: str) -> str:
    """A folder name from an episode id: path separators and odd characters become '_'."""
    out = "".join(c if c.isalnum() or c in "-_.+=@," else "_" for c in text).strip(".")
    return out[:200] or "episode"


def _npy_bytes(value: np.ndarray, zstd: zstandard.ZstdCompressor | None) -> bytes:
    """The .npy file of a C-contiguous array (compressed when ``zstd`` is given), without copying the data."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(value))
    body = value.reshape(-1).data.cast("B") if value.size else b""
    if zstd is None:
        return header.getvalue() + bytes(body)
    cobj = zstd.compressobj(size=len(header.getvalue()) + len(body))
    return cobj.compress(header.getvalue()) + cobj.compress(body) + cobj.flush()


class EpisodeWriter:
    """Writes one episode folder. ``add_step`` appends a step line; ``close`` writes the final metadata
    and renames the folder from ``<id>.partial`` to ``<id>`` (replacing an older recording of that id).

    ``background``: compress and write on a thread of its own, in order (a step's line after its files),
    so the env steps on meanwhile; arrays handed to ``put`` must then not be changed in place afterwards.
    """

    def __init__(
        self,
        run_dir: str | os.PathLike[str],
        episode_id: str,
        meta: Mapping[str, Any],
        frames: str = "zst",
        background: bool = True,
    ) -> None:
        if frames not in FRAME_FORMATS:
            raise ValueError(f"frames must be one of {FRAME_FORMATS}, got {frames!r}")
        self.run_dir = Path(run_dir)
        self.episode_id = safe_id(episode_id)
        self.final = self.run_dir / self.episode_id
        self.path = self.run_dir / (self.episode_id + PARTIAL)
        if self.path.exists():
            shutil.rmtree(self.path)
        (self.path / "frames").mkdir(parents=True)
        (self.path / "arrays").mkdir()
        self.frames = frames
        self.meta = {"format": FORMAT, "episode_id": self.episode_id, "status": "recording", **meta}
        self._known: set[str] = set()
        self._zstd = zstandard.ZstdCompressor(level=1)
        self._log = open(self.path / "steps.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        self.bytes_written = 0
        self.closed = False
        self._recent: list[tuple[np.ndarray, str]] = []  # the last arrays put, by identity
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="crab-record") if background else None
        self._pending: list[Future[None]] = []
        self._write_meta()

    def _do(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn`` now, or queue it on the writer thread (FIFO); a failed write raises on a later call."""
        if self._pool is None:
            fn(*args)
            return
        done = [f for f in self._pending if f.done()]
        self._pending = [f for f in self._pending if not f.done()]
        for f in done:
            f.result()
        self._pending.append(self._pool.submit(fn, *args))

    def _store(self, name: str, value: np.ndarray) -> None:
        if name.endswith(".png"):
            buf = io.BytesIO()
            Image.fromarray(value).save(buf, "PNG", compress_level=1)
            data = buf.getvalue()
        else:
            data = _npy_bytes(value, self._zstd if name.endswith(".zst") else None)
        _atomic_write(self.path / name, data)
        self.bytes_written += len(data)

    def _append(self, line: str) -> None:
        self._log.write(line)
        self._log.flush()
        self.bytes_written += len(line)

    def _write_meta(self) -> None:
        data = json.dumps(jsonable(self.meta), ensure_ascii=False, indent=1).encode()
        _atomic_write(self.path / "episode.json", data)

    def put(self, value: np.ndarray) -> str:
        """Store an array once by content; returns its path relative to the episode folder."""
        for seen, name in self._recent:
            if seen is value:
                return name
        array = np.asarray(value)
        if not array.flags.c_contiguous:  # (np.ascontiguousarray would turn a 0-d array into 1-d)
            array = array.copy(order="C")
        content = xxhash.xxh3_128_hexdigest(array.data)
        digest = f"{content}-{array.dtype.str[1:]}-{'x'.join(map(str, array.shape))}"
        if is_image(array):
            name = f"frames/{digest}.png" if self.frames == "png" else f"frames/{digest}.npy.zst"
        else:
            name = f"arrays/{digest}.npy"
        if isinstance(value, np.ndarray):
            self._recent = [*self._recent[-7:], (value, name)]
        if name not in self._known:
            self._known.add(name)
            self._do(self._store, name, array)
        return name

    def adopt(self, prefix: str | os.PathLike[str]) -> int:
        """Begin this episode with the steps of the episode folder ``prefix`` (a group's shared prefix):
        its frames and arrays hard-linked (copied where links fail), its step lines appended as they are.
        Call before any ``add_step``; returns the number of steps adopted."""
        prefix = Path(prefix)
        for sub in ("frames", "arrays"):
            for src in sorted((prefix / sub).iterdir()):
                name = f"{sub}/{src.name}"
                if name in self._known:
                    continue
                try:
                    os.link(src, self.path / name)
                except OSError:
                    shutil.copy2(src, self.path / name)
                self._known.add(name)
        lines = [ln + "\n" for ln in (prefix / "steps.jsonl").read_text(encoding="utf-8").splitlines() if ln]
        for line in lines:
            self._do(self._append, line)
        return len(lines)

    def add_step(self, step: Mapping[str, Any]) -> None:
        """Append one step line (flushed: a killed writer loses at most the line being written)."""
        self._do(self._append, json.dumps(jsonable(step), ensure_ascii=False, separators=(",", ":")) + "\n")

    def close(self, status: str, **meta: Any) -> Path:
        """Finish the episode as ``complete`` or ``incomplete``; returns the final folder."""
        if self.closed:
            return self.final
        self.closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            for f in self._pending:
                f.result()
        self._log.close()
        self.meta.update(meta, status=status, bytes=self.bytes_written)
        self._write_meta()
        if self.final.exists():
            stale = self.run_dir / f".stale-{uuid.uuid4().hex}"
            os.replace(self.final, stale)
            shutil.rmtree(stale, ignore_errors=True)
        os.replace(self.path, self.final)
        return self.final


# ---- reading ------------------------------------------------------------------------------------------


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

"""Writing an episode folder of the native format (:mod:`crab_gym.episode.format` describes it): the format's
names, :class:`EpisodeWriter` and the JSON and frame encodings it uses."""

from __future__ import annotations

import io
import json
import os
import shutil
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import xxhash
import zstandard
from PIL import Image

__all__ = [
    "FORMAT",
    "FRAME_FORMATS",
    "PARTIAL",
    "EpisodeFormatError",
    "EpisodeWriter",
    "is_image",
    "jsonable",
    "safe_id",
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

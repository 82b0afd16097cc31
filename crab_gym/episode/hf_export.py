"""Recorded episodes as a Hugging Face ``datasets.Dataset``: one row per action, for training VLM agents.

Each row is what the agent saw when it chose the action and what it did:

* ``screen_<device>``: every device's screen *before* the action (``Image``); with ``after=True`` also
  ``screen_after_<device>``. When the agent saw a drawn-on screen (Set-of-Marks), ``screen_marked_<device>``
  is that image (tool calls' element ids refer to it) and ``marks`` the JSON ``{device: [numbered marks]}``.
* ``episode_id``, ``task_id``, ``instruction``; ``step``: the action's step (1 = the first action).
* ``device``: where the action went; ``action_text``: the tool-call text when one was sent (FunctionCalls),
  else ``device.action(name=value)``; ``action``: the executed action as JSON ``{"device", "action",
  "params"}``. ``device`` and ``action`` are null for an action the env refused.
* ``reward``, ``completion_ratio``, ``success``: the step's reward and the checkpoint graph after it;
  ``done``: the episode ended with this step; ``invalid_action``: why the env refused the action (null when
  it was carried out); ``termination_reason``: how the episode ended (on every row; null if it did not).
* Runs with group rollouts (``crab-gym collect --group``) add ``group_id``, ``branch`` and ``prefix`` (the
  action belongs to the group's shared prefix: ``step <= branch_at``).

Frames are decoded from the native files and encoded as PNG (or ``image_format``) bytes, one episode at a
time, so a big run never sits in memory. The dataset is saved with ``save_to_disk(out_dir)`` (open with
``datasets.load_from_disk``) and as Parquet files under ``out_dir/parquet`` (open with
``datasets.load_dataset("parquet", data_files=...)``; the Image columns come back as images).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import datasets
import numpy as np
from PIL import Image

from crab_gym.episode.format import Episode, load_episodes

__all__ = ["action_text", "build_dataset", "encode_image", "export_hf", "readable_text"]

# Rows held before they are written out (datasets' default, 1000, is GBs of frames).
WRITER_BATCH_ROWS = 64
IMAGE_FORMATS = {"png": "PNG", "jpeg": "JPEG", "jpg": "JPEG", "webp": "WEBP"}


def encode_image(frame: np.ndarray, image_format: str = "png") -> bytes:
    """A frame as image file bytes (PNG at a fast compression level; JPEG/WebP at quality 90)."""
    fmt = IMAGE_FORMATS.get(image_format.lower())
    if fmt is None:
        raise ValueError(f"image_format must be one of {sorted(IMAGE_FORMATS)}, got {image_format!r}")
    im = Image.fromarray(frame)
    buf = io.BytesIO()
    if fmt == "PNG":
        im.save(buf, fmt, compress_level=1)
    else:
        im.convert("RGB").save(buf, fmt, quality=90)
    return buf.getvalue()


def _short(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, list):
        return [_short(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _short(v) for k, v in value.items()}
    return value


def readable_text(readable: Mapping[str, Any]) -> str:
    """``{"device", "action", "params"}`` as ``device.action(name=value, ...)`` (floats to 4 places)."""
    params = readable.get("params") or {}
    args = ", ".join(f"{k}={json.dumps(_short(v), ensure_ascii=False)}" for k, v in params.items())
    return f"{readable.get('device')}.{readable.get('action')}({args})"


def action_text(step: Mapping[str, Any]) -> str:
    """What the agent sent, as text: the tool-call text if any, else the readable action, else the raw
    action's JSON (an action the env could not read)."""
    call = step.get("tool_call_text")
    if call is not None:
        return call if isinstance(call, str) else json.dumps(call, ensure_ascii=False)
    if isinstance(step.get("readable"), Mapping):
        return readable_text(step["readable"])
    return json.dumps(step.get("action"), ensure_ascii=False)


class FrameEncoder:
    """Encodes an episode's frames once each (an unchanged screen is the same file in every step)."""

    def __init__(self, ep: Episode, image_format: str) -> None:
        self.ep, self.image_format = ep, image_format
        self._done: dict[str, bytes] = {}

    def __call__(self, t: int, device: str, observed: bool = False) -> dict[str, Any] | None:
        """Image column value of ``device``'s screen after step ``t``; ``observed``: the screen in the
        agent's observation instead (Set-of-Marks draws its marks there), None if it is the device's."""
        step = self.ep.steps[t]
        ref = step.get("screens", {}).get(device)
        if observed:
            seen = step.get("obs", {}).get(f"{device}/screen")
            ref = seen if seen not in (None, ref) else None
        if ref is None:
            return None
        if ref not in self._done:
            self._done[ref] = encode_image(self.ep.array(ref), self.image_format)
        return {"bytes": self._done[ref], "path": None}


def run_devices(episodes: list[Episode]) -> tuple[list[str], list[str]]:
    """(every device with a screen in any step of ``episodes``, in order of appearance; those of them whose
    observed screen differs from the device's somewhere, e.g. with Set-of-Marks' marks drawn on it)."""
    seen: dict[str, None] = {}
    marked: dict[str, None] = {}
    for ep in episodes:
        for step in ep.steps:
            screens, obs = step.get("screens", {}), step.get("obs", {})
            seen.update(dict.fromkeys(screens))
            marked.update(
                dict.fromkeys(d for d in screens if obs.get(f"{d}/screen") not in (None, screens[d]))
            )
    return list(seen), list(marked)


def build_dataset(
    generator: Callable[..., Iterator[dict[str, Any]]],
    gen_kwargs: dict[str, Any],
    features: datasets.Features,
    out_dir: str | os.PathLike[str],
    parquet: bool = True,
    rows_per_file: int = 500,
    overwrite: bool = False,
) -> datasets.Dataset:
    """Rows from ``generator(**gen_kwargs)`` saved with ``save_to_disk(out_dir)`` (and as Parquet files under
    ``out_dir/parquet``); returns the saved dataset. Rows are written ``WRITER_BATCH_ROWS`` at a time as they
    come (to an Arrow cache next to ``out_dir``, removed after)."""
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{out}: not empty (overwrite=True replaces it)")
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    try:
        # lists in gen_kwargs would be taken as shards to split the generator over: pass tuples
        kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in gen_kwargs.items()}
        try:
            ds = datasets.Dataset.from_generator(
                generator,
                features=features,
                cache_dir=str(cache),
                gen_kwargs=kwargs,
                writer_batch_size=WRITER_BATCH_ROWS,
            )
        except Exception:
            if next(iter(generator(**kwargs)), None) is None:  # datasets' own message is obscure
                raise ValueError(f"{out}: nothing to write (no rows from {kwargs})") from None
            raise
        ds.save_to_disk(str(out))
        if parquet:
            (out / "parquet").mkdir()
            n = max(1, -(-len(ds) // rows_per_file))
            for i in range(n):
                part = ds.shard(n, i, contiguous=True)
                part.to_parquet(str(out / "parquet" / f"train-{i:05d}-of-{n:05d}.parquet"))
        del ds
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return datasets.load_from_disk(str(out))


def _features(devices: list[str], marked: list[str], after: bool, grouped: bool) -> datasets.Features:
    cols: dict[str, Any] = {
        "episode_id": datasets.Value("string"),
        "task_id": datasets.Value("string"),
        "step": datasets.Value("int32"),
        "instruction": datasets.Value("string"),
    }
    cols.update({f"screen_{d}": datasets.Image() for d in devices})
    if marked:
        cols.update({f"screen_marked_{d}": datasets.Image() for d in marked})
        cols["marks"] = datasets.Value("string")
    if after:
        cols.update({f"screen_after_{d}": datasets.Image() for d in devices})
    cols.update(
        device=datasets.Value("string"),
        action_text=datasets.Value("string"),
        action=datasets.Value("string"),
        reward=datasets.Value("float64"),
        completion_ratio=datasets.Value("float64"),
        success=datasets.Value("bool"),
        done=datasets.Value("bool"),
        invalid_action=datasets.Value("string"),
        termination_reason=datasets.Value("string"),
    )
    if grouped:
        cols.update(group_id=datasets.Value("string"), branch=datasets.Value("int32"),
                    prefix=datasets.Value("bool"))  # fmt: skip
    return datasets.Features(cols)


def _rows(
    run_dir: str,
    complete_only: bool,
    image_format: str,
    devices: tuple[str, ...],
    marked: tuple[str, ...],
    after: bool,
    grouped: bool = False,
) -> Iterator[dict[str, Any]]:
    for ep in load_episodes(run_dir, complete_only=complete_only):
        found = ep.meta.get("group")
        group: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        frames = FrameEncoder(ep, image_format)
        for step in ep.actions:
            t = step["t"]
            readable = step.get("readable") if isinstance(step.get("readable"), Mapping) else None
            invalid = step.get("invalid_action")
            row: dict[str, Any] = {
                "episode_id": ep.id,
                "task_id": ep.meta.get("task_id"),
                "step": t,
                "instruction": ep.meta.get("instruction"),
            }
            row.update({f"screen_{d}": frames(t - 1, d) for d in devices})
            if marked:
                row.update({f"screen_marked_{d}": frames(t - 1, d, observed=True) for d in marked})
                marks = ep.steps[t - 1].get("marks")
                row["marks"] = json.dumps(marks, ensure_ascii=False) if marks else None
            if after:
                row.update({f"screen_after_{d}": frames(t, d) for d in devices})
            row.update(
                device=readable.get("device") if readable else None,
                action_text=action_text(step),
                action=json.dumps(readable, ensure_ascii=False) if readable else None,
                reward=float(step.get("reward") or 0.0),
                completion_ratio=float(step.get("completion_ratio") or 0.0),
                success=bool(step.get("success")),
                done=bool(step.get("terminated") or step.get("truncated")),
                invalid_action=str(invalid) if invalid else None,
                termination_reason=ep.meta.get("termination_reason"),
            )
            if grouped:  # a group rollout's: GRPO groups rows by group_id; prefix rows are shared
                row.update(group_id=group.get("id"), branch=group.get("branch"),
                           prefix=bool(group) and t <= int(group.get("branch_at", 0)))  # fmt: skip
            yield row
        ep._cache.clear()


def export_hf(
    run_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    complete_only: bool = False,
    image_format: str = "png",
    *,
    after: bool = False,
    overwrite: bool = False,
) -> datasets.Dataset:
    """One row per action of the episodes under ``run_dir`` (see the module docstring), saved to ``out_dir``
    (``save_to_disk`` and ``out_dir/parquet/*.parquet``); returns the saved dataset.

    ``complete_only``: skip episodes that did not run to their end. ``after``: add the screens after each
    action. ``overwrite``: replace a non-empty ``out_dir`` (else FileExistsError)."""
    encode_image(np.zeros((8, 8, 3), np.uint8), image_format)  # an unknown format fails before any work
    episodes = list(load_episodes(run_dir, complete_only=complete_only))
    if not episodes:
        raise ValueError(f"{run_dir}: no {'complete ' if complete_only else ''}episodes to export")
    devices, marked = run_devices(episodes)
    grouped = any("group" in ep.meta for ep in episodes)
    del episodes
    kwargs = {
        "run_dir": str(run_dir),
        "complete_only": complete_only,
        "image_format": image_format,
        "devices": devices,
        "marked": marked,
        "after": after,
        "grouped": grouped,
    }
    features = _features(devices, marked, after, grouped)
    return build_dataset(_rows, kwargs, features, out_dir, overwrite=overwrite)

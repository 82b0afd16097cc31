"""Datasets derived from recorded episodes and their ground truth, as ``datasets.Dataset`` saved to disk.

* :func:`grounding_dataset`: screen + element description -> box, from the UI elements recorded at each step
  (the device's accessibility tree, or Set-of-Marks' candidates), for training a model to point at things.
* :func:`inverse_dynamics_dataset`: frame before + frame after -> the action that was carried out.
* :func:`success_detection_dataset`: instruction + trajectory + final screens -> did the task succeed, as the
  task's checkpoint graph judged it.

Each is saved with ``save_to_disk(out)`` and as Parquet under ``out/parquet`` (see
:func:`crab_gym.episode.hf_export.build_dataset`); images are PNG bytes in ``Image`` columns.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

import datasets

from crab_gym.episode.format import Episode, load_episodes
from crab_gym.episode.hf_export import (
    FrameEncoder,
    action_text,
    build_dataset,
    encode_image,
    readable_text,
    run_devices,
)

__all__ = [
    "element_description",
    "grounding_dataset",
    "inverse_dynamics_dataset",
    "success_detection_dataset",
]

# Android widget classes and AT-SPI roles to the words people use for them; others are split into words.
_ROLE_WORDS = {
    "button": "button",
    "imagebutton": "button",
    "push button": "button",
    "floatingactionbutton": "button",
    "edittext": "text field",
    "autocompletetextview": "text field",
    "textview": "text",
    "imageview": "image",
    "checkbox": "checkbox",
    "check box": "checkbox",
    "radiobutton": "radio button",
    "switch": "switch",
    "togglebutton": "toggle button",
    "spinner": "drop-down",
    "combo box": "drop-down",
}


def element_description(role: str, name: str) -> str:
    """A short referring expression, e.g. ``button "Send"``, ``text field "First name"``."""
    key = (role or "").strip()
    word = _ROLE_WORDS.get(key.lower()) or re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).lower() or "element"
    return f"{word} {json.dumps(name.strip(), ensure_ascii=False)}"


# ---- grounding ----------------------------------------------------------------------------------------


def _grounding_rows(
    run_dir: str, complete_only: bool, skip_sources: tuple[str, ...]
) -> Iterator[dict[str, Any]]:
    seen: set[tuple[Any, ...]] = set()
    for ep in load_episodes(run_dir, complete_only=complete_only):
        images: dict[str, dict[str, Any]] = {}
        for step in ep.steps:
            for device, found in (step.get("elements") or {}).items():
                ref = step.get("screens", {}).get(device)
                if ref is None or not isinstance(found, list):  # no frame, or the device failed ({"error"})
                    continue
                for el in found:
                    name = (el.get("name") or "").strip()
                    if not name or el.get("source") in skip_sources:
                        continue
                    box = [int(v) for v in el["box"]]
                    key = (ref, device, el.get("role"), name, tuple(box))
                    if key in seen:  # the same element on the same screen (identical frames share a file)
                        continue
                    seen.add(key)
                    if ref not in images:
                        frame = ep.array(ref)
                        images[ref] = {"bytes": encode_image(frame), "path": None, "wh": frame.shape[1::-1]}
                    w, h = ep.screen_size(device) or images[ref]["wh"]
                    fw, fh = images[ref]["wh"]
                    yield {
                        "image": {"bytes": images[ref]["bytes"], "path": None},
                        "description": element_description(el.get("role", ""), name),
                        "role": el.get("role"),
                        "name": name,
                        "box": [
                            round(v * s) for v, s in zip(box, (fw / w, fh / h, fw / w, fh / h), strict=True)
                        ],
                        "box_norm": [box[0] / w, box[1] / h, box[2] / w, box[3] / h],
                        "source": el.get("source"),
                        "device": device,
                        "episode_id": ep.id,
                        "step": step["t"],
                    }
        ep._cache.clear()


def grounding_dataset(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    complete_only: bool = False,
    skip_sources: tuple[str, ...] = ("detector",),
    *,
    overwrite: bool = False,
) -> datasets.Dataset:
    """One row per named UI element on each distinct recorded screen: ``image``, ``description`` (role and
    name, e.g. ``button "Send"``), ``box`` [x1, y1, x2, y2] in the image's pixels and ``box_norm`` in [0, 1],
    ``role``, ``name``, ``source``, ``device``, ``episode_id``, ``step`` (of its first appearance).

    Unnamed elements and those of ``skip_sources`` (the region detector's nameless shapes) are left out;
    an element seen again on an unchanged screen is one row."""
    features = datasets.Features(
        {
            "image": datasets.Image(),
            "description": datasets.Value("string"),
            "role": datasets.Value("string"),
            "name": datasets.Value("string"),
            "box": [datasets.Value("int32")],
            "box_norm": [datasets.Value("float32")],
            "source": datasets.Value("string"),
            "device": datasets.Value("string"),
            "episode_id": datasets.Value("string"),
            "step": datasets.Value("int32"),
        }
    )
    kwargs = {"run_dir": str(run_dir), "complete_only": complete_only, "skip_sources": tuple(skip_sources)}
    return build_dataset(_grounding_rows, kwargs, features, out, overwrite=overwrite)


# ---- inverse dynamics ---------------------------------------------------------------------------------


def _idm_rows(run_dir: str, complete_only: bool) -> Iterator[dict[str, Any]]:
    for ep in load_episodes(run_dir, complete_only=complete_only):
        frames = FrameEncoder(ep, "png")
        for step in ep.actions:
            readable = step.get("readable")
            if step.get("invalid_action") or not isinstance(readable, Mapping):
                continue
            t, device = step["t"], str(readable.get("device"))
            before, after = frames(t - 1, device), frames(t, device)
            if before is None or after is None:  # a device without a screen (root: complete, answer)
                continue
            yield {
                "before": before,
                "after": after,
                "changed": ep.steps[t - 1]["screens"][device] != ep.steps[t]["screens"][device],
                "action_text": readable_text(readable),
                "action": json.dumps(readable, ensure_ascii=False),
                "device": device,
                "episode_id": ep.id,
                "step": t,
            }
        ep._cache.clear()


def inverse_dynamics_dataset(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    complete_only: bool = False,
    *,
    overwrite: bool = False,
) -> datasets.Dataset:
    """One row per valid action carried out on a device with a screen: ``before`` and ``after`` (that
    device's screen), ``changed`` (the frames differ), ``action_text`` (the action as carried out,
    ``device.action(k=v)``, in the frames' terms: not a Set-of-Marks element id), ``action`` (the same as
    JSON), ``device``, ``episode_id``, ``step``. Actions the env refused are left out."""
    features = datasets.Features(
        {
            "before": datasets.Image(),
            "after": datasets.Image(),
            "changed": datasets.Value("bool"),
            "action_text": datasets.Value("string"),
            "action": datasets.Value("string"),
            "device": datasets.Value("string"),
            "episode_id": datasets.Value("string"),
            "step": datasets.Value("int32"),
        }
    )
    kwargs = {"run_dir": str(run_dir), "complete_only": complete_only}
    return build_dataset(_idm_rows, kwargs, features, out, overwrite=overwrite)


# ---- success detection --------------------------------------------------------------------------------


def _label(ep: Episode) -> tuple[bool, float, str | None]:
    """(success, completion ratio, termination reason): the episode record, else its last step's."""
    record = ep.meta.get("record") or {}
    last = ep.steps[-1]
    success = record.get("success", last.get("success"))
    ratio = record.get("completion_ratio", last.get("completion_ratio"))
    reason = record.get("termination_reason", ep.meta.get("termination_reason"))
    return bool(success), float(ratio or 0.0), reason


def _executed_text(step: Mapping[str, Any]) -> str:
    """The action as carried out (``device.action(...)``: a Set-of-Marks element id means nothing without
    its marked screen), else as sent (an action the env refused)."""
    readable = step.get("readable")
    return readable_text(readable) if isinstance(readable, Mapping) else action_text(step)


def _success_rows(run_dir: str, devices: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    for ep in load_episodes(run_dir, complete_only=True):
        success, ratio, reason = _label(ep)
        frames = FrameEncoder(ep, "png")
        row: dict[str, Any] = {
            "episode_id": ep.id,
            "task_id": ep.meta.get("task_id"),
            "instruction": ep.meta.get("instruction"),
            "trajectory": [_executed_text(s) for s in ep.actions],
        }
        row.update({f"final_screen_{d}": frames(len(ep.steps) - 1, d) for d in devices})
        row.update(
            success=success, completion_ratio=ratio, termination_reason=reason, actions=len(ep.actions)
        )
        yield row
        ep._cache.clear()


def success_detection_dataset(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    overwrite: bool = False,
) -> datasets.Dataset:
    """One row per complete episode: ``instruction``, ``trajectory`` (the actions as text),
    ``final_screen_<dev>`` per device, and the label ``success`` the checkpoint graph gave (the record in
    ``episode.json``), with ``completion_ratio``, ``termination_reason``, ``actions`` (count), ``episode_id``
    and ``task_id``."""
    episodes = list(load_episodes(run_dir, complete_only=True))
    if not episodes:
        raise ValueError(f"{run_dir}: no complete episodes")
    devices, _ = run_devices(episodes)
    del episodes
    features = datasets.Features(
        {
            "episode_id": datasets.Value("string"),
            "task_id": datasets.Value("string"),
            "instruction": datasets.Value("string"),
            "trajectory": [datasets.Value("string")],
            **{f"final_screen_{d}": datasets.Image() for d in devices},
            "success": datasets.Value("bool"),
            "completion_ratio": datasets.Value("float64"),
            "termination_reason": datasets.Value("string"),
            "actions": datasets.Value("int32"),
        }
    )
    kwargs = {"run_dir": str(run_dir), "devices": tuple(devices)}
    return build_dataset(_success_rows, kwargs, features, out, overwrite=overwrite)

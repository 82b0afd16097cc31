"""RecordEpisodes: write every episode to disk in the native format (:mod:`crab_gym.episode.format`).

A pure observer: stacked over CrabEnv, SetOfMarks, FunctionCalls or FlattenActions, it hands back exactly
what the env below returns and passes actions on untouched. Per step it keeps every device's screen, the
observation the agent got, the video frames grabbed since the last step (``video_fps``), the action (as
sent, as the CrabEnv tuple and as a readable dict; the raw text of a tool call), reward, completion ratio,
node states, feedback, marks and UI elements, invalid-action reason, tokens and timings. An episode that
ends is closed as ``complete``; one cut short by an exception, a ``reset()`` or ``close()`` is closed as
``incomplete``; a killed process leaves ``<id>.partial``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

from crab_gym.core.metrics import TERMINATION_REASONS, EpisodeRecord
from crab_gym.episode.envmeta import describe_spaces, episode_meta
from crab_gym.episode.writer import EpisodeWriter, jsonable

__all__ = ["Prefix", "RecordEpisodes"]


@dataclass(frozen=True)
class Prefix:
    """A recorded episode set aside at step ``t`` (:meth:`RecordEpisodes.detach`): its folder and the
    recorder's running account there (return, tokens, seconds, recording seconds, last info)."""

    path: Path
    t: int
    return_: float
    tokens: int | None
    seconds: float
    record_seconds: float
    last_info: dict[str, Any]


_INFO_KEYS = (
    "completion_ratio",
    "success",
    "nodes",
    "feedback",
    "termination_reason",
    "invalid_action",
    "error",
    "output",
    "tokens",
    "timings",
    "steps",
    "actions",
    "invalid_actions",
    "tool_call",
    "events",
    "perturbations",
    "injections",
    "injections_obeyed",
)


def _flat_arrays(obs: Any, prefix: str = "") -> dict[str, np.ndarray]:
    if isinstance(obs, Mapping):
        out: dict[str, np.ndarray] = {}
        for k, v in obs.items():
            out.update(_flat_arrays(v, f"{prefix}/{k}" if prefix else str(k)))
        return out
    return {prefix or "obs": np.asarray(obs)}


class RecordEpisodes(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Records every episode under ``out_dir``, one folder each (see :mod:`crab_gym.episode.format`).

    ``frames``: ``"zst"`` (Zstandard-compressed arrays, ~1.5 ms for a 1080x2400 frame) or ``"png"``
    (browsable, ~30 ms). ``downscale``: a factor in (0, 1] for the stored device screens (observations
    are kept as the agent saw them). ``elements``: keep each step's UI elements (the ground truth of the
    grounding dataset; Set-of-Marks' candidates when it is below, else the device's tree). ``observations``:
    keep the agent's observations (needed for the Minari export). ``background``: compress and write files
    on a thread, in order, while the env steps on. ``reset(options={"episode_id": ...})``
    names the folder; by default it is ``<task id>-s<seed>-<random>``.

    Driven by :func:`crab_gym.rollout.rollout`, an episode is closed with the loop's own record
    (``hold_end`` set: the last step leaves it open for :meth:`end_episode`); in a loop of your own, the
    step that ends it closes it with a record made from the env's info.
    """

    def __init__(
        self,
        env: gym.Env,
        out_dir: str | os.PathLike[str],
        frames: str = "zst",
        downscale: float | None = None,
        elements: bool = True,
        observations: bool = True,
        background: bool = True,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            out_dir=str(out_dir),
            frames=frames,
            downscale=downscale,
            elements=elements,
            observations=observations,
            background=background,
        )
        gym.Wrapper.__init__(self, env)
        if downscale is not None and not 0 < downscale <= 1:
            raise ValueError(f"downscale must be in (0, 1], got {downscale}")
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.frames = frames
        self.downscale = downscale
        self.elements = elements
        self.observations = observations
        self.background = background
        self.writer: EpisodeWriter | None = None
        self.last_episode: Path | None = None
        self.hold_end = False
        self._marks = self._find_below("SetOfMarks")
        self._calls = self._find_below("FunctionCalls")
        self._t0 = 0.0
        self._return = 0.0
        self._tokens: int | None = None
        self._record_seconds = 0.0
        self._t = 0
        self._last_info: Mapping[str, Any] = {}
        self._elements_cache: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self._spaces: dict[str, Any] | None = None

    # ---- gym API ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if self.writer is not None:
            self._close("incomplete", ended_by="reset() before the episode ended")
        obs, info = self.env.reset(seed=seed, options=options)
        t0 = time.perf_counter()
        self._t0, self._return, self._tokens, self._record_seconds, self._t = t0, 0.0, None, 0.0, 0
        options = dict(options or {})
        episode_id = options.pop("episode_id", None) or (
            f"{info.get('task_id', 'task')}-s{seed}-{uuid.uuid4().hex[:8]}"
        )
        self.writer = EpisodeWriter(
            self.out_dir, str(episode_id), self._meta(seed, options, info), self.frames, self.background
        )
        self._last_info = info
        self._write(0, obs, info, action=None, reward=None, terminated=False, truncated=False)
        self._record_seconds += time.perf_counter() - t0
        return obs, info

    def step(self, action: Any):
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except BaseException as e:
            if self.writer is not None:
                self._close("incomplete", ended_by=f"exception in step(): {type(e).__name__}: {e}")
            raise
        if self.writer is None:  # stepped without a reset through this wrapper: nothing to record into
            return obs, reward, terminated, truncated, info
        t0 = time.perf_counter()
        self._return += float(reward)
        if info.get("tokens") is not None:
            self._tokens = (self._tokens or 0) + int(info["tokens"])
        self._t += 1
        self._last_info = info
        self._write(
            self._t, obs, info, action=action, reward=reward, terminated=terminated, truncated=truncated
        )
        self._record_seconds += time.perf_counter() - t0
        if (terminated or truncated) and not self.hold_end:
            self._close("complete", info=info)
        return obs, reward, terminated, truncated, info

    def end_episode(self, record: EpisodeRecord, ended_by: str | None = None) -> None:
        """Close the episode being recorded as complete with ``record``, the loop's account of it
        (``ended_by``: why, when not the env, e.g. the error of an agent that could not act)."""
        if self.writer is None:
            return
        info = {**self._last_info, "termination_reason": record.termination_reason}
        meta = {"ended_by": ended_by} if ended_by else {}
        self._close("complete", info=info, record=record, **meta)

    def detach(self) -> Prefix:
        """Set the open episode aside as a group's shared prefix: closed as ``prefix`` and moved out of the
        run (to ``out_dir/.prefixes``), so no reader or exporter counts it; :meth:`branch` begins episodes
        with it. Remove its folder when the group is done."""
        if self.writer is None:
            raise RuntimeError("no episode is being recorded: reset() first")
        writer, self.writer = self.writer, None
        done = writer.close("prefix", seconds=time.perf_counter() - self._t0)
        (self.out_dir / ".prefixes").mkdir(exist_ok=True)
        path = self.out_dir / ".prefixes" / done.name
        if path.exists():
            shutil.rmtree(path)
        os.replace(done, path)
        return Prefix(path, self._t, self._return, self._tokens, time.perf_counter() - self._t0,
                      self._record_seconds, dict(self._last_info))  # fmt: skip

    def branch(self, prefix: Prefix, episode_id: str, meta: Mapping[str, Any]) -> None:
        """Open episode ``episode_id`` as a continuation of ``prefix``: its steps are the prefix's (files
        linked, lines copied) and ``meta`` joins the prefix's metadata; the next ``step()`` is step
        ``prefix.t + 1``. Load the env's state at the prefix's end before stepping on."""
        if self.writer is not None:
            self._close("incomplete", ended_by="branch() before the episode ended")
        base = json.loads((prefix.path / "episode.json").read_text(encoding="utf-8"))
        for key in ("format", "episode_id", "status", "bytes", "seconds"):
            base.pop(key, None)
        self.writer = EpisodeWriter(self.out_dir, episode_id, {**base, **meta}, self.frames, self.background)
        self.writer.adopt(prefix.path)
        self._t, self._return, self._tokens = prefix.t, prefix.return_, prefix.tokens
        self._t0 = time.perf_counter() - prefix.seconds
        self._record_seconds, self._last_info = prefix.record_seconds, dict(prefix.last_info)

    def close(self) -> None:
        if self.writer is not None:
            self._close("incomplete", ended_by="close() before the episode ended")
        super().close()

    # ---- what is written ----------------------------------------------------------------------
    def _find_below(self, cls_name: str) -> Any:  # a wrapper known by name, duck-typed (hasattr)
        env: Any = self.env
        while isinstance(env, gym.Wrapper):
            if type(env).__name__ == cls_name:
                return env
            env = env.env
        return None

    def _meta(self, seed: int | None, options: dict[str, Any], info: Mapping[str, Any]) -> dict[str, Any]:
        if self._spaces is None:  # the spaces do not change: described once
            self._spaces = describe_spaces(self.env)
        return episode_meta(self.env, seed, options, info, self.downscale) | self._spaces

    def _screens(self) -> dict[str, str]:
        crab: Any = self.env.unwrapped
        assert self.writer is not None
        screens = crab.last_screens() if hasattr(crab, "last_screens") else {}
        out = {}
        for name, frame in screens.items():
            if self.downscale is not None and self.downscale < 1:
                h, w = frame.shape[:2]
                size = (max(1, round(w * self.downscale)), max(1, round(h * self.downscale)))
                frame = np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR))
            out[name] = self.writer.put(frame)
        return out

    def _video(self, obs: Any) -> dict[str, list[str]]:
        """{device: stored frames} of the video in the observation (``CrabEnv(video_fps=N)``): the frames
        grabbed since the previous step, oldest first, without the padding."""
        assert self.writer is not None
        out: dict[str, list[str]] = {}
        for dev, value in obs.items() if isinstance(obs, Mapping) else ():
            if isinstance(value, Mapping) and "video" in value and "video_frames" in value:
                n = int(value["video_frames"])
                out[dev] = [self.writer.put(frame) for frame in np.asarray(value["video"])[:n]]
        return out

    def _ui(self, screens: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(marks, elements) per device: Set-of-Marks' marks if it is below; the elements of each screen.

        A screen identical to the device's previous one (same stored frame) keeps its elements: the tree is
        not read again (it costs 1 ms on the phone, 10-200 ms on the desktop)."""
        marks: dict[str, Any] = {}
        elements: dict[str, Any] = {}
        if self._marks is not None:
            for dev, ms in getattr(self._marks, "marks", {}).items():
                marks[dev] = [{"id": m.id, "box": m.box, "role": m.role, "name": m.name, "source": m.source}
                              for m in ms]  # fmt: skip
        if not self.elements:
            return marks, elements
        crab: Any = self.env.unwrapped
        for dev in screens:  # the devices whose screens this step stored
            cached = self._elements_cache.get(dev)
            if self._marks is not None and dev in getattr(self._marks, "candidates", {}):
                found = self._marks.candidates[dev]
            elif self.downscale is None and cached is not None and cached[0] == screens.get(dev):
                elements[dev] = cached[1]
                continue
            else:
                try:
                    found = crab.subenvs[dev].ui_elements()
                except Exception as e:  # noqa: BLE001 - a dead device: the step records the error
                    elements[dev] = {"error": f"{type(e).__name__}: {e}"}
                    continue
            elements[dev] = [
                {"box": e.box, "role": e.role, "name": e.name, "source": e.source} for e in found
            ]
            self._elements_cache[dev] = (screens.get(dev, ""), elements[dev])
        return marks, elements

    def _env_action(self, info: Mapping[str, Any]) -> Any:
        done = info.get("action")
        crab: Any = self.env.unwrapped
        if not isinstance(done, Mapping) or not hasattr(crab, "encode_action"):
            return None
        try:
            return crab.encode_action(done["device"], done["name"], done["params"])
        except Exception:  # noqa: BLE001 - the readable dict is still recorded
            return None

    def _write(
        self, t: int, obs: Any, info: Mapping[str, Any], action: Any, reward: Any, terminated: bool,
        truncated: bool,
    ) -> None:  # fmt: skip
        assert self.writer is not None
        step: dict[str, Any] = {"t": t, "time": time.perf_counter() - self._t0}
        if action is not None:
            step["action"] = action
            if self._calls is not None:
                text = action if isinstance(action, str) else json.dumps(jsonable(action), ensure_ascii=False)
                step["tool_call_text"] = text
            done = info.get("action")
            if isinstance(done, Mapping):
                step["readable"] = {"device": done.get("device"), "action": done.get("name"),
                                    "params": done.get("params")}  # fmt: skip
                step["env_action"] = self._env_action(info)
        step.update(reward=reward, terminated=bool(terminated), truncated=bool(truncated))
        step.update({k: info[k] for k in _INFO_KEYS if k in info})
        step["screens"] = self._screens()
        if video := self._video(obs):
            step["video"] = video
        if self.observations:
            step["obs"] = {k: self.writer.put(v) for k, v in _flat_arrays(obs).items()}
        marks, elements = self._ui(step["screens"])
        if marks:
            step["marks"] = marks
        if elements:
            step["elements"] = elements
        self.writer.add_step(step)

    def _close(
        self,
        status: str,
        info: Mapping[str, Any] | None = None,
        record: EpisodeRecord | None = None,
        **meta: Any,
    ) -> None:
        writer, self.writer = self.writer, None
        if writer is None:
            return
        seconds = time.perf_counter() - self._t0
        if record is not None:
            meta["record"] = record.to_dict()
        if info is not None:
            reason = info.get("termination_reason")
            if record is None and reason in TERMINATION_REASONS:
                meta["record"] = EpisodeRecord(
                    task_id=str(info.get("task_id")),
                    success=bool(info.get("success")),
                    completion_ratio=float(info.get("completion_ratio", 0.0)),
                    actions=int(info.get("actions", 0)),
                    steps=int(info.get("steps", 0)),
                    invalid_actions=int(info.get("invalid_actions", 0)),
                    tokens=self._tokens,
                    termination_reason=reason,
                    return_=self._return,
                    seconds=seconds,
                ).to_dict()
            meta["termination_reason"] = reason
        meta.update(ended=time.time(), seconds=seconds, record_seconds=self._record_seconds)
        self.last_episode = writer.close(status, **meta)

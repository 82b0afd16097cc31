"""Replay: re-execute a recorded episode's actions on a fresh env and compare, step by step, every node
state and reward with the recording (is the env deterministic for these actions?).

Actions are replayed at the CrabEnv level -- the executed (device, action, params) of each step, or the
same rejection for an invalid one -- so an episode recorded through SetOfMarks or FunctionCalls replays
without the marks or the model that chose it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.episode.format import Episode

__all__ = ["ReplayResult", "make_env_for", "replay_episode"]


@dataclass
class ReplayResult:
    """How a replay went: ``mismatches`` lists, per differing step, what differed."""

    episode_id: str
    steps: int
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return not self.mismatches

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "steps": self.steps,
            "matches": self.matches,
            "mismatches": self.mismatches,
            "skipped": self.skipped,
        }


def make_env_for(ep: Episode, backends: Mapping[str, str] | None = None) -> gym.Env:
    """A fresh env like the one the episode was recorded on (same id and kwargs; ``backends`` override)."""
    env_id = ep.meta.get("env_id")
    if not env_id:
        raise ValueError(f"{ep.path / 'episode.json'}: field 'env_id' is empty; the env was not made by id")
    kwargs = dict(ep.meta.get("env_kwargs") or {})
    if not isinstance(kwargs.get("tasks"), str):
        kwargs["tasks"] = [ep.meta["task_id"]]  # Task objects were stored as text: pick the task by id
    if backends:
        kwargs["backends"] = {**(kwargs.get("backends") or {}), **backends}
    return gym.make(env_id, **kwargs)


def _nodes(step: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    return [(n.get("id"), n.get("status")) for n in step.get("nodes", [])]


def _compare(t: int, recorded: Mapping[str, Any], reward: Any, info: Mapping[str, Any]) -> dict[str, Any]:
    diff: dict[str, Any] = {}
    want, got = _nodes(recorded), _nodes(info)
    if want != got:
        diff["nodes"] = {"recorded": want, "replayed": got}
    if recorded.get("reward") is not None and not math.isclose(
        float(recorded["reward"]), float(reward), abs_tol=1e-9
    ):
        diff["reward"] = {"recorded": recorded["reward"], "replayed": float(reward)}
    if recorded.get("invalid_action") != info.get("invalid_action"):
        diff["invalid_action"] = {
            "recorded": recorded.get("invalid_action"),
            "replayed": info.get("invalid_action"),
        }
    return {"t": t, **diff} if diff else {}


def replay_episode(
    ep: Episode, env: gym.Env | None = None, backends: Mapping[str, str] | None = None, screens: bool = False
) -> ReplayResult:
    """Replay ``ep`` on ``env`` (default: a fresh env made like the recorded one, closed afterwards).

    ``screens``: compare every device's screen with the recorded one too (for deterministic devices such as
    the simulated phone; the recording must be made without ``downscale``)."""
    own = env is None
    env = env if env is not None else make_env_for(ep, backends)
    crab: Any = env.unwrapped
    result = ReplayResult(ep.id, len(ep.steps) - 1)
    try:
        _, info = crab.reset(seed=ep.meta.get("seed"), options={"task": ep.meta["task_id"]})
        if ep.steps:
            first = _compare(0, ep.steps[0], 0.0, info)
            if first:
                result.mismatches.append(first)
        for step in ep.steps[1:]:
            t = int(step["t"])
            done = step.get("readable")
            if isinstance(done, Mapping):
                action = crab.encode_action(done["device"], done["action"], done.get("params") or {})
                _, reward, terminated, truncated, info = crab.step(action)
            elif step.get("invalid_action") is not None:
                _, reward, terminated, truncated, info = crab.reject(step["invalid_action"])
            else:  # the device failed on this step in the recording: nothing known to re-execute
                result.skipped.append(t)
                break
            diff = _compare(t, step, reward, info)
            if screens:
                differ = [d for d, ref in step.get("screens", {}).items()
                          if not np.array_equal(ep.array(ref), crab.last_screens().get(d))]  # fmt: skip
                if differ:
                    diff = {"t": t, **diff, "screens": differ}
            want, got = [bool(step.get("terminated")), bool(step.get("truncated"))], [terminated, truncated]
            if want != [bool(x) for x in got]:
                diff = {"t": t, **diff, "ended": {"recorded": want, "replayed": [bool(x) for x in got]}}
            if diff:
                result.mismatches.append(diff)
            if terminated or truncated:
                break
    finally:
        if own:
            env.close()
    return result

"""What an episode's ``meta.json`` says about the env it ran in: the task, seed and options, the env id and
its arguments, the devices and their backends, the wrapper stack and the spaces."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from crab_gym.episode.space_json import space_to_json

__all__ = ["describe_spaces", "episode_meta", "wrappers"]


def wrappers(env: Any) -> list[dict[str, Any]]:
    """The wrappers over the innermost env, innermost first: class path and constructor arguments."""
    out = []
    while isinstance(env, gym.Wrapper):
        out.append({"class": f"{type(env).__module__}.{type(env).__name__}",
                    "kwargs": getattr(env, "_saved_kwargs", {})})  # fmt: skip
        env = env.env
    return out[::-1]


def describe_spaces(env: Any) -> dict[str, Any]:
    """``env``'s observation and action spaces as JSON (and the CrabEnv's own action space under a codec);
    ``spaces_error`` for a custom space of a user's wrapper, so the episode is still recorded."""
    crab: Any = env.unwrapped
    try:
        out = {
            "observation_space": space_to_json(env.observation_space),
            "action_space": space_to_json(env.action_space),
        }
        if hasattr(crab, "codec"):
            out["env_action_space"] = space_to_json(crab.action_space)
    except TypeError as e:
        return {"spaces_error": str(e)}
    return out


def episode_meta(
    env: Any, seed: int | None, options: dict[str, Any], info: Mapping[str, Any], downscale: float | None
) -> dict[str, Any]:
    """The meta of an episode that ``env`` (the recorder's inner env) just reset into with ``info``."""
    import crab_gym

    crab: Any = env.unwrapped
    screens = crab.last_screens() if hasattr(crab, "last_screens") else {}
    spec = getattr(crab, "spec", None)
    return {
        "task_id": info.get("task_id"),
        "seed": seed,
        "options": options,
        "instruction": info.get("instruction"),
        "env_id": spec.id if spec is not None else None,
        "env_kwargs": dict(spec.kwargs) if spec is not None else {},
        "devices": list(getattr(crab, "subenvs", {})),
        "backends": crab.backend_names() if hasattr(crab, "backend_names") else {},
        "action_mode": info.get("action_mode", "gui"),
        "wrappers": wrappers(env),
        "package": {"name": "crab-gym", "version": crab_gym.__version__},
        "started": time.time(),
        "initial_completion_ratio": info.get("initial_completion_ratio"),
        "screen_sizes": {n: list(f.shape[1::-1]) for n, f in screens.items()},
        "downscale": downscale,
    }

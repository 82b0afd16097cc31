"""Group rollouts (GRPO-style): N episodes of one task that share a prefix and branch from one saved state.

One worker runs a whole group: it resets the task with the job's seed, lets the agent take ``branch_at``
steps (none: the pristine state), saves the env's state (``env.unwrapped.save_state()``), then for each
branch b loads that state, gives a copy of the agent as it was at the branch point its own seed, and runs
the episode to its end. The prefix is recorded once and set aside; every branch is a whole episode that
begins with the prefix's steps (their files hard-linked, so a repeated prefix costs no frame twice on disk).
Each branch's ``episode.json`` and record carry ``group``: ``{"id", "branch", "size", "branch_at",
"agent_seed"}``, which every exporter keeps.
"""

from __future__ import annotations

import copy
import dataclasses
import shutil
import time
import zlib
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.episode.record import RecordEpisodes
from crab_gym.rollout import find_recorder, finish_rollout, start_rollout

__all__ = ["GroupError", "agent_seed", "run_group"]


class GroupError(ValueError):
    """A group that cannot be run as asked (its episode ends before the branch point, an agent that cannot
    be copied); retrying does not help."""


def agent_seed(seed: int, task_id: str, branch: int | None = None) -> list[int]:
    """The entropy of the agent's generator: ``[seed, crc32(task)]`` for a whole episode or a group's prefix,
    ``[seed, crc32(task), branch + 1]`` for branch ``branch``."""
    base = [seed, zlib.crc32(task_id.encode())]
    return base if branch is None else [*base, branch + 1]


def _layers(env: gym.Env) -> list[Any]:
    """Every layer of the wrapper stack, outermost first, the unwrapped env last."""
    out, layer = [], env
    while isinstance(layer, gym.Wrapper):
        out.append(layer)
        layer = layer.env
    return [*out, layer]


def _copy_agent(agent: Any, env: gym.Env) -> Any:
    """A deep copy of ``agent`` that shares ``env`` (every layer of it) instead of copying it."""
    memo: dict[int, Any] = {id(layer): layer for layer in _layers(env)}
    try:
        return copy.deepcopy(agent, memo)
    except Exception as e:  # noqa: BLE001 - any object deepcopy refuses (locks, sockets, clients)
        raise GroupError(
            f"the {type(agent).__name__} cannot be copied at the branch point ({type(e).__name__}: {e})"
        ) from None


def _reobserve(env: gym.Env, obs: Any, info: dict[str, Any]) -> Any:
    """The loaded state's observation as the outermost layer gives it: observation wrappers applied, and
    Set-of-Marks drawing its marks again (its element ids must be this screen's)."""
    for layer in reversed(_layers(env)[:-1]):
        if isinstance(layer, gym.ObservationWrapper):
            obs = layer.observation(obs)
        elif callable(observe := getattr(layer, "_observe", None)):
            obs = observe(obs, info)
    return obs


def _seed_agent(agent: Any, entropy: list[int]) -> None:
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(entropy)


def run_group(
    env: gym.Env, agent: Any, task_id: str, seed: int, group_id: str, size: int, branch_at: int
) -> list[dict[str, Any]]:
    """Run the group ``group_id`` (``size`` branches at step ``branch_at``); each branch's outcome, in order.
    Branch b is recorded as episode ``<group_id>-b<b>``. GroupError if the episode ends before the branch
    point."""
    if size < 1 or branch_at < 0:
        raise GroupError(f"a group needs size >= 1 and branch_at >= 0, got {size} and {branch_at}")
    crab: Any = env.unwrapped
    found = find_recorder(env)
    recorder = found if isinstance(found, RecordEpisodes) else None  # one that can set a prefix aside
    held = recorder.hold_end if recorder is not None else False
    if recorder is not None:
        recorder.hold_end = True  # the prefix's last step must not close it
    _seed_agent(agent, agent_seed(seed, task_id))
    prefix = None
    try:
        p = start_rollout(env, agent, branch_at, task=task_id, seed=seed, episode_id=f"{group_id}-prefix")
        if recorder is not None:
            prefix = recorder.detach()
        if p.reason is not None:
            raise GroupError(
                f"branch_at {branch_at} is beyond the end of the episode: task {task_id!r} (seed {seed}) "
                f"ended with {p.reason} after {p.steps} steps"
            )
        state = crab.save_state()
        at_branch = _copy_agent(agent, env)
        prefix_seconds = time.perf_counter() - p.started
        out: list[dict[str, Any]] = []
        for b in range(size):
            obs, info = crab.load_state(state)
            branch = _copy_agent(at_branch, env)
            entropy = agent_seed(seed, task_id, b)
            _seed_agent(branch, entropy)
            group = {"id": group_id, "branch": b, "size": size, "branch_at": branch_at, "agent_seed": entropy}
            episode_id = f"{group_id}-b{b}"
            if recorder is not None and prefix is not None:
                recorder.branch(prefix, episode_id, {"group": group})
            run = dataclasses.replace(
                p, obs=_reobserve(env, obs, info), info=info, started=time.perf_counter() - prefix_seconds
            )
            record = finish_rollout(env, branch, run, recorder=recorder, extra={"group": group})
            out.append({"task_id": record.task_id, "success": record.success, "episode_id": episode_id,
                        "completion_ratio": record.completion_ratio,
                        "termination_reason": record.termination_reason,
                        "steps": run.steps - p.steps})  # fmt: skip
        out[0]["steps"] += p.steps  # the prefix ran once
        return out
    finally:
        if recorder is not None:
            recorder.hold_end = held
        if prefix is not None:
            shutil.rmtree(prefix.path, ignore_errors=True)

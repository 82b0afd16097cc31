"""Run an agent over tasks with the standard env loop; collect episode records and metrics."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym

from crab_gym.baselines.errors import AgentError
from crab_gym.core.metrics import EpisodeRecord, Metrics, aggregate


def run_episode(env: gym.Env, agent: Any, task_id: str, seed: int = 0) -> EpisodeRecord:
    """One episode of ``agent`` on ``task_id``; the record says how and why it ended (``agent_error``: the
    agent raised :class:`~crab_gym.baselines.errors.AgentError`, e.g. its model API refused for good)."""
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options={"task": task_id})
    ret, tokens, reason = 0.0, None, "env_error"
    extra: dict[str, Any] = {}
    while True:
        try:
            action = agent.act(obs, info)
        except AgentError as e:
            reason, extra = "agent_error", {"error": f"{type(e).__name__}: {e}"}
            spent = _take_tokens(env)  # the calls of the failed turn that did answer
            tokens = tokens if spent is None else (tokens or 0) + spent
            break
        obs, reward, terminated, truncated, info = env.step(action)
        ret += float(reward)
        if info.get("tokens") is not None:
            tokens = (tokens or 0) + int(info["tokens"])
        if terminated or truncated:
            reason = info["termination_reason"]
            break
    return EpisodeRecord(
        task_id=task_id,
        success=bool(info["success"]) and reason != "agent_error",
        completion_ratio=float(info["completion_ratio"]),
        actions=int(info["actions"]),
        steps=int(info["steps"]),
        invalid_actions=int(info["invalid_actions"]),
        tokens=tokens,
        termination_reason=reason,
        return_=ret,
        seconds=time.perf_counter() - t0,
        extra=extra or ({"error": info["error"]} if "error" in info else {}),
    )


def _take_tokens(env: gym.Env) -> int | None:
    """Tokens the agent spent since the last step, taken from FunctionCalls (None without it)."""
    try:
        return env.get_wrapper_attr("take_tokens")()
    except AttributeError:
        return None


def evaluate(
    env: gym.Env,
    agent: Any,
    task_ids: Iterable[str],
    seed: int = 0,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> tuple[list[EpisodeRecord], Metrics]:
    records = []
    for i, tid in enumerate(task_ids):
        rec = run_episode(env, agent, tid, seed=seed + i)
        records.append(rec)
        if on_record:
            on_record(rec)
    return records, aggregate(records)

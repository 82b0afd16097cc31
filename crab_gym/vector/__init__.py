"""Batched vector envs: ``make_vec(env_id, num_envs, workers=W)`` steps ``num_envs / W`` envs together in
each of W worker processes (:class:`BatchedVectorEnv`), a Gymnasium ``VectorEnv``."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode

from crab_gym.vector.batched import BatchedVectorEnv, WorkerError
from crab_gym.vector.worker import is_wrapped

__all__ = ["BatchedVectorEnv", "WorkerError", "is_wrapped", "make_vec"]


def make_vec(
    env_id: str,
    num_envs: int,
    workers: int | None = None,
    *,
    autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    shared_memory: bool = True,
    copy: bool = True,
    context: str | None = None,
    step_timeout: float = 300.0,
    start_timeout: float = 600.0,
    reset_ahead: bool = True,
    batch_scheduling: bool = False,
    **env_kwargs: Any,
) -> BatchedVectorEnv:
    """``num_envs`` envs of ``env_id`` (made with ``env_kwargs``) in ``workers`` processes (default: one per
    core, at most one per env), each process stepping its share together. The keyword arguments before
    ``env_kwargs`` are :class:`BatchedVectorEnv`'s."""
    spec = gym.spec(env_id)  # the workers make envs from the spec: they need not have the id registered
    make = functools.partial(gym.make, spec, **env_kwargs)
    return BatchedVectorEnv(
        [make] * num_envs, workers, autoreset_mode=autoreset_mode, shared_memory=shared_memory, copy=copy,
        context=context, step_timeout=step_timeout, start_timeout=start_timeout,
        reset_ahead=reset_ahead, batch_scheduling=batch_scheduling,
    )  # fmt: skip

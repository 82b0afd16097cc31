"""A worker process of :class:`~crab_gym.vector.BatchedVectorEnv`: a ``SyncVectorEnv`` of its share of the
envs, stepped as one batch per message, its observations written straight into the shared buffer.

The worker answers every command with ``("ok", payload)`` or ``("error", "Type: message", traceback)``, and
announces itself with ``("ready", pid)`` once its envs are made. A step's or reset's infos go as its envs'
own info dicts, ``(env index, info)`` records, which the parent merges for all workers at once
(:mod:`crab_gym.vector.infos`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from gymnasium import Env, Space, Wrapper, spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import iterate, read_from_shared_memory, write_to_shared_memory

from crab_gym.vector import idle_gc
from crab_gym.vector.infos import RecordingSyncVectorEnv

__all__ = ["ResetAhead", "is_wrapped", "schedule_as_batch", "serve", "split_batch"]


def is_wrapped(env: Env, wrapper_class: type) -> bool:
    """Whether ``wrapper_class`` is among ``env``'s wrappers."""
    while True:
        if isinstance(env, wrapper_class):
            return True
        if not isinstance(env, Wrapper):
            return False
        env = env.env


class ResetAhead(Wrapper):
    """An env whose next plain ``reset()`` can be done ahead of time (:meth:`reset_ahead`): with
    ``NEXT_STEP`` the step after an episode ends is that env's ``reset()``, and a worker that has sent its
    answer does it while it would otherwise wait. A reset with a seed or options discards it."""

    def __init__(self, env: Env) -> None:
        super().__init__(env)
        self._ahead: tuple[Any, dict[str, Any]] | None = None

    @classmethod
    def make(cls, env_fn: Callable[[], Env]) -> ResetAhead:
        return cls(env_fn())

    def reset_ahead(self) -> None:
        """Reset now; an error is left for the real ``reset()`` to raise, in its answer."""
        try:
            self._ahead = self.env.reset()
        except Exception:  # noqa: BLE001 - reset() tries again and raises it where it is answered
            self._ahead = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        ahead, self._ahead = self._ahead, None
        if ahead is not None and seed is None and options is None:
            return ahead
        return self.env.reset(seed=seed, options=options)


def split_batch(space: Space, batch: Any, part: slice) -> Any:
    """The envs ``part`` of a batch of ``space`` (a single env's space), batched the same way."""
    if isinstance(space, spaces.Dict):
        return {k: split_batch(s, batch[k], part) for k, s in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(split_batch(s, b, part) for s, b in zip(space.spaces, batch, strict=True))
    if isinstance(space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
        return batch[part]
    return tuple(batch)[part]  # Text, Graph, Sequence, ...: batched as a tuple of single values


def serve(
    env_fns: Sequence[Callable[[], Env]],
    start: int,
    conn: Connection,
    parent_end: Connection,
    shared: Any,
    spaces_: tuple[Space, Space],
    autoreset_mode: AutoresetMode,
    reset_ahead: bool,
    batch_scheduling: bool = False,
) -> None:
    """The worker's loop: make the envs (``env_fns``, cloudpickled factories) at offset ``start``, then
    answer commands until ``close`` or until the parent's end of the pipe is gone. With ``reset_ahead`` (and
    ``NEXT_STEP``), the envs a step ended are reset after the answer is sent (:class:`ResetAhead`); garbage is
    collected then too, not during a step or reset (:mod:`crab_gym.vector.idle_gc`). ``batch_scheduling``:
    the process runs under ``SCHED_BATCH`` (:func:`schedule_as_batch`)."""
    parent_end.close()  # else the worker never sees the parent go
    if batch_scheduling:
        schedule_as_batch()
    try:
        ahead = reset_ahead and autoreset_mode == AutoresetMode.NEXT_STEP
        vec = _make(
            [functools.partial(ResetAhead.make, f) for f in env_fns] if ahead else env_fns,
            spaces_,
            autoreset_mode,
            start,
        )
    except BaseException as e:  # noqa: BLE001 - the parent reports it
        _send(conn, ("error", f"{type(e).__name__}: {e}", traceback.format_exc(limit=5)))
        return
    single_obs = spaces_[0]
    views = _shared_views(vec, shared, start) if shared is not None else None
    idle_gc.settle()
    try:
        conn.send(("ready", os.getpid()))
        while True:
            command, data = conn.recv()
            batch = command in ("reset", "step")  # no collection until answered (and reset ahead)
            with idle_gc.deferred() if batch else contextlib.nullcontext():
                try:
                    if command == "close":
                        vec.close()
                        conn.send(("ok", None))
                        return
                    vec.take_records()  # a command that raised may have left some
                    result = _run(vec, command, data)
                    if batch:
                        result = (*result[:-1], vec.take_records())  # its infos: {} (RecordingSyncVectorEnv)
                    if batch and shared is not None:
                        if views is None or not _same_leaves(result[0], views):  # else written there already
                            mask = data[2] if command == "reset" else None
                            for i, obs in enumerate(iterate(vec.observation_space, result[0])):
                                if mask is None or mask[i]:
                                    write_to_shared_memory(single_obs, start + i, obs, shared)
                        result = (None, *result[1:])
                    conn.send(("ok", result))
                    if command == "step" and ahead:
                        for k in np.flatnonzero(np.logical_or(result[2], result[3])):
                            vec.envs[k].reset_ahead()  # type: ignore[attr-defined]  # a ResetAhead (above)
                except Exception as e:  # noqa: BLE001 - raised again in the parent; the worker goes on
                    conn.send(("error", f"{type(e).__name__}: {e}", traceback.format_exc(limit=5)))
            if batch:
                idle_gc.collect_due()  # while the main process and the other workers still work
    except (EOFError, OSError, KeyboardInterrupt):  # the parent went away
        pass
    finally:
        vec.close()


def schedule_as_batch() -> bool:
    """Run this process under Linux's ``SCHED_BATCH`` policy (same nice level, but no wake-up
    preemption): a worker woken by the main process's command then waits for a free core instead of
    taking the main process's, which would hold back the other workers' commands until it got the core
    back (docs/scale.md). Whether it could (other systems have no such policy)."""
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        return False
    return True


def _make(
    env_fns: Sequence[Callable[[], Env]], spaces_: tuple[Space, Space], mode: AutoresetMode, start: int
) -> RecordingSyncVectorEnv:
    vec = RecordingSyncVectorEnv(env_fns, copy=False, autoreset_mode=mode, offset=start)
    if vec.single_observation_space != spaces_[0] or vec.single_action_space != spaces_[1]:
        vec.close()
        raise RuntimeError("a worker's envs have other spaces than the first env's")
    return vec


def _shared_views(vec: SyncVectorEnv, shared: Any, start: int) -> Any:
    """Let ``vec`` batch its observations straight into its envs' part of the shared buffer (no copy per env
    per step) when they are arrays only; None if not (the worker then writes each env's observation). Its
    batch (gymnasium's ``_observations``) holds each env's last observation, as the shared buffer does, so a
    masked reset that rewrites every slot rewrites the others with what they hold already."""
    space = vec.single_observation_space
    if not _arrays_only(space) or not hasattr(vec, "_observations"):
        return None
    whole = read_from_shared_memory(space, shared, _slots(space, shared))
    views = split_batch(space, whole, slice(start, start + vec.num_envs))
    vec._observations = views  # gymnasium's batch buffer: `concatenate` writes into it
    return views


def _slots(space: Space, shared: Any) -> int:
    """How many envs the shared buffer holds (its first array's length over one observation's size)."""
    if isinstance(space, spaces.Dict):
        key = next(iter(space.spaces))
        return _slots(space.spaces[key], shared[key])
    if isinstance(space, spaces.Tuple):
        return _slots(space.spaces[0], shared[0])
    return len(shared) // max(1, int(np.prod(space.shape or ())))


def _arrays_only(space: Space) -> bool:
    """Whether every part of ``space`` is an array (and there is one): shared memory gives views of them."""
    if isinstance(space, spaces.Dict):
        return bool(space.spaces) and all(_arrays_only(s) for s in space.spaces.values())
    if isinstance(space, spaces.Tuple):
        return bool(space.spaces) and all(_arrays_only(s) for s in space.spaces)
    return isinstance(space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary))


def _same_leaves(batch: Any, views: Any) -> bool:
    """Whether ``batch`` is made of the very arrays ``views`` is (nothing left to copy)."""
    if isinstance(views, dict):
        return (
            isinstance(batch, dict)
            and batch.keys() == views.keys()
            and all(_same_leaves(batch[k], v) for k, v in views.items())
        )
    if isinstance(views, tuple):
        return (
            isinstance(batch, tuple)
            and len(batch) == len(views)
            and all(_same_leaves(b, v) for b, v in zip(batch, views, strict=True))
        )
    return batch is views


def _run(vec: SyncVectorEnv, command: str, data: Any) -> Any:
    if command == "step":
        return vec.step(data)
    if command == "reset":
        seeds, options, mask = data
        if mask is not None:
            options = {**(options or {}), "reset_mask": mask}
        return vec.reset(seed=seeds, options=options)
    if command == "call":
        name, args, kwargs = data
        return vec.call(name, *args, **kwargs)
    if command == "wrapped":
        return tuple(is_wrapped(env, data) for env in vec.envs)
    if command == "set_attr":
        name, values = data
        return vec.set_attr(name, list(values))
    raise ValueError(f"unknown command {command!r}; commands: step, reset, call, set_attr, wrapped, close")


def _send(conn: Connection, message: tuple) -> None:
    try:
        conn.send(message)
    except (OSError, BrokenPipeError):
        pass

"""A Gymnasium ``VectorEnv`` whose W worker processes each step a batch of envs: one pipe round trip per
worker per step, not per env.

gymnasium's ``AsyncVectorEnv`` keeps one env per process; a step through a worker then costs about 1 ms more
than in-process, more than a small phone's step (docs/scale.md). Here each worker runs a ``SyncVectorEnv`` of
``num_envs / W`` envs and writes their observations into the shared buffer itself.

Every wait is bounded. A worker that dies or does not answer in time is killed and replaced by a fresh one
that makes its envs again: the step that failed reports its envs truncated with ``termination_reason
"env_error"`` and an ``error`` saying what happened (blank observations, as an env's own device error gives);
they come back at their next reset (the next step with ``NEXT_STEP``; within the failed step, as
``final_info``, with ``SAME_STEP``; ``reset()`` with autoreset disabled).
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from typing import Any

import numpy as np
from gymnasium import Env
from gymnasium.error import ClosedEnvironmentError
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)

from crab_gym.vector.infos import Record, merge_infos
from crab_gym.vector.pipes import Launch, WorkerHandle, exchange
from crab_gym.vector.worker import split_batch

__all__ = ["BatchedVectorEnv", "WorkerError"]


class WorkerError(RuntimeError):
    """A worker raised, or died during a call that has no per-env result to report the failure in."""


class BatchedVectorEnv(VectorEnv):
    """``len(env_fns)`` envs in ``workers`` processes, each stepping its contiguous share together.

    ``shared_memory``, ``copy``, ``context``, ``daemon`` and ``autoreset_mode`` mean what they mean for
    ``AsyncVectorEnv``. ``step_timeout`` bounds every wait for a reset, step or call (seconds per command);
    ``start_timeout`` is added while a worker still makes its envs. ``reset_ahead`` (with ``NEXT_STEP``): a
    worker resets the envs a step ended right after it answers, instead of at the next step, taking the
    costliest step off the lock-step's critical path; the next step returns the same as without it, but
    ``call``/``get_attr`` in between see those envs already reset. ``batch_scheduling``: the workers run
    under Linux's ``SCHED_BATCH`` (same priority; a woken worker does not preempt the main process while it
    still sends the other workers their commands: :func:`~crab_gym.vector.worker.schedule_as_batch`); off
    by default until a quiet machine shows it pays (``bench/make_vec_sched.py``; docs/scale.md).
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env]],
        workers: int | None = None,
        *,
        shared_memory: bool = True,
        copy: bool = True,
        context: str | None = None,
        daemon: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        step_timeout: float = 300.0,
        start_timeout: float = 600.0,
        reset_ahead: bool = True,
        batch_scheduling: bool = False,
    ) -> None:
        self.num_envs = len(env_fns)
        n_workers = min(self.num_envs, workers or os.cpu_count() or 1)
        if self.num_envs < 1 or n_workers < 1:
            raise ValueError(f"need at least one env and one worker, got {self.num_envs} and {workers}")
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.copy, self.step_timeout, self.start_timeout = copy, step_timeout, start_timeout
        self.reset_ahead = reset_ahead
        self._env_fns = list(env_fns)
        bounds = np.linspace(0, self.num_envs, n_workers + 1).round().astype(int)
        self._parts = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        probe = env_fns[0]()  # the spaces, before the shared buffer the workers are started with
        self.metadata = {**probe.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = probe.render_mode
        self.single_observation_space, self.single_action_space = probe.observation_space, probe.action_space
        probe.close()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ctx: Any = mp.get_context(context)
        self._shared: Any = None
        if shared_memory:
            self._shared = create_shared_memory(self.single_observation_space, self.num_envs, ctx=self._ctx)
            self.observations = read_from_shared_memory(
                self.single_observation_space, self._shared, self.num_envs
            )
        else:
            self.observations = create_empty_array(self.single_observation_space, self.num_envs, fn=np.zeros)
        self._blank = next(
            iterate(self.observation_space, create_empty_array(self.single_observation_space, 1))
        )
        self._env_obs = list(iterate(self.observation_space, self.observations))  # without shared memory
        self._batch_spaces = {p.stop - p.start: batch_space(self.single_observation_space, p.stop - p.start)
                              for p in self._parts}  # fmt: skip
        spaces = (self.single_observation_space, self.single_action_space)
        self._launch = Launch(
            self._ctx, self._shared, spaces, self.autoreset_mode, reset_ahead, daemon, batch_scheduling
        )
        self._workers: list[WorkerHandle] = []
        try:
            self._workers = [self._start(w) for w in range(n_workers)]
            ready = self._exchange(dict.fromkeys(range(n_workers)), 0.0)  # each worker's "ready"
            failed = {w: r for w, r in ready.items() if r[0] != "ok"}
            if failed:
                w, reply = next(iter(failed.items()))
                raise WorkerError(f"worker {w} could not make its envs: {reply[1]}\n{reply[-1]}")
        except BaseException:
            self.close_extras(terminate=True)
            raise

    @property
    def workers(self) -> int:
        """The number of worker processes."""
        return len(self._workers)

    @property
    def processes(self) -> list[Any]:
        """The worker processes, in env order (a replaced worker's successor in its place)."""
        return [w.process for w in self._workers]

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]  # one per env, as AsyncVectorEnv's
        return self.get_attr("np_random_seed")

    @property  # type: ignore[misc]  # read-only here: each env's generator lives in its worker
    def np_random(self) -> tuple[np.random.Generator, ...]:  # type: ignore[override]  # as np_random_seed
        return self.get_attr("np_random")

    # -- the VectorEnv API -------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self._assert_open()
        seeds = _seeds(seed, self.num_envs)
        options = dict(options) if options is not None else None
        mask = None if options is None else options.pop("reset_mask", None)
        requests = {}
        for w, worker in enumerate(self._workers):
            part_mask = None if mask is None or worker.fresh else np.asarray(mask[worker.part], dtype=bool)
            if part_mask is None or part_mask.any():
                requests[w] = ("reset", (list(seeds[worker.part]), options, part_mask))
        replies = self._exchange(requests, self.step_timeout)
        dead = {w: r for w, r in replies.items() if r[0] == "dead"}
        for w in dead:  # a worker that died: its successor makes the envs again and resets them
            self._replace(w)
        replies |= self._exchange({w: requests[w] for w in dead}, self.step_timeout)
        records: list[Record] = []
        for w in sorted(replies):
            payload = self._payload(w, replies[w], "reset")
            self._workers[w].fresh = False
            self._take_obs(w, payload[0], requests[w][1][2])
            records += payload[1]
        return self._observations(), merge_infos(records, self.num_envs)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._assert_open()
        requests: dict[int, tuple] = {}
        resets: set[int] = set()
        for w, worker in enumerate(self._workers):
            if not worker.fresh:
                requests[w] = ("step", split_batch(self.single_action_space, actions, worker.part))
            elif self.autoreset_mode == AutoresetMode.NEXT_STEP:  # its envs ended at the failed step
                requests[w], resets = ("reset", ([None] * _len(worker.part), None, None)), resets | {w}
        replies = self._exchange(requests, self.step_timeout)
        rewards = np.zeros(self.num_envs)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        records: list[Record] = []  # each env's infos, in env order: merged once (crab_gym.vector.infos)
        failed: dict[int, tuple[str, bool]] = {}  # worker: (why, whether to replace it)
        for w, worker in enumerate(self._workers):
            if w not in replies:
                failed[w] = ("its envs were made again after a failure and wait for reset()", False)
                continue
            reply = replies[w]
            if reply[0] == "dead":
                failed[w] = (reply[1], True)
                continue
            payload = self._payload(w, reply, "step")
            self._take_obs(w, payload[0])
            if w in resets:
                worker.fresh = False
                records += payload[1]
                continue
            rewards[worker.part], terminated[worker.part], truncated[worker.part] = payload[1:4]
            records += payload[4]
        for w, (why, replace) in failed.items():
            records += self._fail(w, why, replace, truncated)
        return self._observations(), rewards, terminated, truncated, merge_infos(records, self.num_envs)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        return self._each(("call", (name, args, kwargs)), f"call({name!r})")

    def get_attr(self, name: str) -> tuple[Any, ...]:
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        self._assert_open()
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"set_attr({name!r}): {len(values)} values for {self.num_envs} envs")
        requests = {w: ("set_attr", (name, tuple(values[p.part]))) for w, p in enumerate(self._workers)}
        replies = self._exchange(requests, self.step_timeout)
        for w in range(self.workers):
            self._payload(w, replies[w], f"set_attr({name!r})")

    def render(self) -> tuple[Any, ...] | None:
        return self.call("render")

    def env_is_wrapped(self, wrapper_class: type) -> tuple[bool, ...]:
        """Per env, whether ``wrapper_class`` is among its wrappers (for SB3's ``VecEnv``)."""
        return self._each(("wrapped", wrapper_class), "env_is_wrapped")

    def _each(self, command: tuple, what: str) -> tuple[Any, ...]:
        """Every worker's answer to ``command``, one value per env, in env order."""
        self._assert_open()
        replies = self._exchange(dict.fromkeys(range(self.workers), command), self.step_timeout)
        return tuple(r for w in range(self.workers) for r in self._payload(w, replies[w], what))

    def close_extras(self, timeout: float | None = None, terminate: bool = False, **kwargs: Any) -> None:
        grace = 0.0 if terminate else (30.0 if timeout is None else timeout)
        for worker in self._workers:
            worker.stop(grace)

    def __del__(self) -> None:
        if not getattr(self, "closed", True) and getattr(self, "_workers", None):
            self.close(terminate=True)

    def __repr__(self) -> str:
        return f"BatchedVectorEnv(num_envs={self.num_envs}, workers={self.workers})"

    # -- workers -----------------------------------------------------------------------------------------

    def _exchange(self, requests: Mapping[int, tuple | None], timeout: float) -> dict[int, tuple]:
        return exchange(self._workers, requests, timeout, self.start_timeout)

    def _start(self, w: int) -> WorkerHandle:
        part = self._parts[w]
        return WorkerHandle(self._launch, w, part, self._env_fns[part])

    def _replace(self, w: int) -> None:
        """Kill worker ``w`` and start another in its place, which makes its envs again."""
        self._workers[w].stop(grace=0)
        self._workers[w] = self._start(w)

    def _payload(self, w: int, reply: tuple, what: str) -> Any:
        """The payload of an ``ok`` reply; otherwise a :class:`WorkerError` naming the worker and its envs
        (a worker that died is replaced first, its envs waiting for a reset)."""
        if reply[0] == "ok":
            return reply[1]
        part = self._workers[w].part
        if reply[0] == "dead":
            self._replace(w)
            raise WorkerError(
                f"worker {w} (envs {part.start}-{part.stop - 1}) failed during {what}: {reply[1]}; "
                "it was replaced, its envs wait for reset()"
            )
        raise WorkerError(
            f"worker {w} (envs {part.start}-{part.stop - 1}) raised during {what}: {reply[1]}\n{reply[2]}"
        )

    def _fail(self, w: int, why: str, replace: bool, truncated: np.ndarray) -> list[Record]:
        """Report worker ``w``'s envs as ended by an env error at this step (their info records), replacing
        the worker if ``replace``; with ``SAME_STEP`` its successor resets them within this step."""
        error = {"error": f"worker {w} failed: {why}", "termination_reason": "env_error"}
        if replace:
            self._replace(w)
        worker = self._workers[w]
        for i in range(worker.part.start, worker.part.stop):
            self._put_obs(i, self._blank)
        truncated[worker.part] = True
        envs = range(worker.part.start, worker.part.stop)
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            return [(i, error) for i in envs]
        reply = self._exchange({w: ("reset", ([None] * _len(worker.part), None, None))}, self.step_timeout)[w]
        if reply[0] != "ok":
            self._replace(w)
            then = f"{error['error']}; then its successor: {reply[1]}"
            return [(i, {**error, "error": then}) for i in envs]
        worker.fresh = False
        self._take_obs(w, reply[1][0])
        return [*reply[1][1], *((i, {"final_obs": self._blank, "final_info": error}) for i in envs)]

    # -- observations ------------------------------------------------------------------------------------

    def _take_obs(self, w: int, batch: Any, mask: np.ndarray | None = None) -> None:
        """A worker's observations, when they come through the pipe (without shared memory)."""
        if batch is None:
            return
        part = self._workers[w].part
        for i, obs in enumerate(iterate(self._batch_spaces[_len(part)], batch)):
            if mask is None or mask[i]:
                self._env_obs[part.start + i] = obs

    def _put_obs(self, i: int, obs: Any) -> None:
        if self._shared is not None:
            write_to_shared_memory(self.single_observation_space, i, obs, self._shared)
        else:
            self._env_obs[i] = obs

    def _observations(self) -> Any:
        if self._shared is None:
            self.observations = concatenate(self.single_observation_space, self._env_obs, self.observations)
        return deepcopy(self.observations) if self.copy else self.observations

    def _assert_open(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError("BatchedVectorEnv: the vector env is closed")


def _len(part: slice) -> int:
    return part.stop - part.start


def _seeds(seed: int | Sequence[int | None] | None, n: int) -> np.ndarray:
    if seed is None:
        return np.full(n, None, dtype=object)
    if isinstance(seed, (int, np.integer)):
        return np.array([int(seed) + i for i in range(n)], dtype=object)
    if len(seed) != n:
        raise ValueError(f"reset: {len(seed)} seeds for {n} envs")
    return np.array(list(seed), dtype=object)

"""A whole CrabEnv's state: every device's, the task, the graph's progress, the step counters and the RNG.

:func:`capture` and :func:`restore` back ``CrabEnv.save_state()`` and ``load_state()``. Devices restored in
place (the phone, a VM, the root) load their own state; a device restored by :class:`Replay` (the desktop on
Xvfb) is reset and its task set up first, then it replays. A state that does not belong here (another env id,
device set, backend, task set or package version) is a one-line :class:`StateError`; a device that cannot be
brought back is a :class:`RestoreError`, after which the episode is over until the next ``reset()``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

import numpy as np
from gymnasium.envs.registration import EnvSpec

from crab_gym.core.graph import GraphEvaluator
from crab_gym.core.tasks import Task
from crab_gym.envs.base import DeviceError, SubEnv
from crab_gym.envs.events import EventScheduler
from crab_gym.envs.state import Replay, RestoreError, StateError, Stateful, StateUnsupported, state_class


class CrabEnv(Protocol):
    """The parts of a CrabEnv a state is read from and written to (a Protocol: crab_gym.env imports this)."""

    spec: EnvSpec | None
    subenvs: dict[str, SubEnv]
    tasks: Sequence[Task]
    task: Task | None
    graph: GraphEvaluator | None
    events: EventScheduler
    realtime: bool
    _np_random: np.random.Generator | None
    _steps: int
    _actions: int
    _invalid: int
    _done: bool

    @property
    def np_random(self) -> np.random.Generator: ...

    def _reset_device(self, name: str, seed: int | None) -> None: ...


__all__ = ["EnvState", "capture", "restore"]


def _version() -> str:
    try:
        return version("crab-gym")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "unknown"


@state_class
@dataclass(frozen=True)
class EnvState:
    """One moment of a CrabEnv: opaque to users, picklable (``crab_gym.envs.state.write_state``)."""

    version: str
    env_id: str | None
    backends: tuple[tuple[str, str], ...]  # (device, backend kind) of every device, in order
    tasks: str  # digest of the env's task set
    task_id: str
    task: Task | None  # the task itself when it is not one of the env's (given to reset in options)
    progress: tuple[tuple[bool, ...], tuple[str | None, ...]]
    counters: tuple[int, int, int, bool]  # steps, actions, invalid actions, episode over
    rng: dict[str, Any] | None
    devices: tuple[tuple[str, Any], ...]
    events: tuple[Any, ...] = ((), 0.0, 0, 0, ())  # pending (by index in the task's events), time, step, ...


def _event_progress(env: CrabEnv, task: Task) -> tuple[Any, ...]:
    """The scheduler's progress with its pending events as indices into ``task.all_events()`` (they are
    what is left of that list, in order)."""
    pending, seconds, step, count, fired = env.events.progress()
    indices, at = [], 0
    for i, event in enumerate(task.all_events()):
        if at < len(pending) and event == pending[at]:
            indices.append(i)
            at += 1
    return tuple(indices), seconds, step, count, tuple(fired)


def _kinds(env: CrabEnv) -> tuple[tuple[str, str], ...]:
    out = []
    for name, sub in env.subenvs.items():
        spec = getattr(sub, "spec", None)
        out.append((name, str(getattr(spec, "kind", "") or type(sub).__name__)))
    return tuple(out)


def _task_digest(env: CrabEnv) -> str:
    text = "\n".join(f"{t.id}\t{t.description}" for t in env.tasks)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def capture(env: CrabEnv) -> EnvState:
    """The env's state now (after a ``reset()``)."""
    if env.task is None or env.graph is None:
        raise StateError("there is no state to save before the first reset()")
    devices = []
    for name, sub in env.subenvs.items():
        if not isinstance(sub, Stateful):
            raise StateUnsupported(f"{name}: this device cannot save its state")
        devices.append((name, sub.save_state()))
    known = any(t is env.task or t.id == env.task.id for t in env.tasks)
    rng = dict(env._np_random.bit_generator.state) if env._np_random is not None else None
    return EnvState(
        version=_version(),
        env_id=env.spec.id if env.spec is not None else None,
        backends=_kinds(env),
        tasks=_task_digest(env),
        task_id=env.task.id,
        task=None if known else env.task,
        progress=env.graph.progress(),
        counters=(env._steps, env._actions, env._invalid, env._done),
        rng=rng,
        devices=tuple(devices),
        events=_event_progress(env, env.task),
    )


def _check(env: CrabEnv, state: Any) -> None:
    """StateError naming the first thing that differs between ``state`` and this env."""
    if not isinstance(state, EnvState):
        raise StateError(f"not a crab-gym env state: {type(state).__name__}")
    here = {
        "package version": _version(),
        "env id": env.spec.id if env.spec is not None else None,
        "devices and backends": _kinds(env),
    }
    there = {"package version": state.version, "env id": state.env_id, "devices and backends": state.backends}
    for what, value in here.items():
        if there[what] != value:
            raise StateError(f"a state of another {what}: {there[what]!r}; this env has {value!r}")
    if state.tasks != _task_digest(env):
        raise StateError(f"a state of another task set (task {state.task_id!r}): make the env with its tasks")


def restore(env: CrabEnv, state: Any) -> None:
    """Bring ``env`` to ``state`` (see the module docstring for the errors)."""
    _check(env, state)
    task = state.task or next(t for t in env.tasks if t.id == state.task_id)
    saved = dict(state.devices)
    env._done = True  # until every device is back: a failure leaves an episode only reset() restarts
    env.events.stop()  # no event fires into a device while it loads
    try:
        replays = [name for name, st in saved.items() if isinstance(st, Replay)]
        if replays:
            for name in replays:
                env._reset_device(name, saved[name].seed)
            task.setup(env.subenvs)  # the devices loaded in place below are overwritten anyway
            for name in replays:
                env.subenvs[name].settle()
        for name, st in saved.items():
            sub = env.subenvs[name]
            assert isinstance(sub, Stateful)  # checked by _kinds: the same kinds of devices saved it
            sub.load_state(st)
            sub.invalidate_state()
    except RestoreError:
        raise
    except (DeviceError, OSError) as e:
        raise RestoreError(f"loading the state failed: {type(e).__name__}: {e}; reset() to go on") from e
    root = env.subenvs.get("root")
    if root is not None and hasattr(root, "user"):  # ask_user's user is the task's, as Task.setup sets it
        root.user = task.simulated_user()
    indices, seconds, step, count, fired = state.events
    everything = task.all_events()
    env.events.resume(
        env.subenvs, env.realtime, ([everything[i] for i in indices], seconds, step, count, fired)
    )
    if env.task is not task or env.graph is None:
        env.graph = task.evaluator()
    env.task = task
    env.graph.set_progress(state.progress)
    if state.rng is not None:
        env.np_random.bit_generator.state = state.rng
    env._steps, env._actions, env._invalid, env._done = state.counters

"""RLlib: the three env ids registered with ``ray.tune.registry.register_env``, each made with
FlattenActions (MultiDiscrete actions, a flat Dict of Boxes) and given a device slot of its node.

``env_config`` holds CrabEnv's keyword arguments (``tasks``, ``obs_size``, ``max_steps``, ``backends``, ...)
plus ``flatten`` (FlattenActions' arguments), ``slots_per_runner`` and ``wait_time_scale`` (the root
``wait(seconds)`` sleeps ``seconds * wait_time_scale``: a random policy draws it often, and on the in-process
simulated phone nothing happens meanwhile, so 0 spares RL the sleep). A backend may be a list, one device
per slot (``{"android": ["adb:emulator-5554", "adb:emulator-5556"]}``). The slot an env takes is
``worker_index * slots_per_runner + vector_index`` if that is free on its node, else the next free one:
RLlib's new API stack gives every env of one EnvRunner the same ``vector_index`` (0), so the lock, not
the arithmetic, keeps two envs off one device.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from functools import partial
from typing import Any

import gymnasium as gym

from crab_gym.env_protocol import crab_of
from crab_gym.envs.root import RootEnv
from crab_gym.runs.distributed.slots import DeviceSlot, resolve_backends, slot_limit

__all__ = ["ENV_IDS", "SlotHeld", "make_rllib_env", "register_rllib_envs", "runner_slots"]

ENV_IDS = ("Crab-v0", "Crab-Desktop-v0", "Crab-Android-v0")


class SlotHeld(gym.Wrapper):
    """Holds the env's device slot until ``close()``; ``slot_info()`` says which slot, runner and node."""

    def __init__(self, env: gym.Env, slot: DeviceSlot, worker_index: int, vector_index: int) -> None:
        super().__init__(env)
        self.slot, self.worker_index, self.vector_index = slot, worker_index, vector_index

    def slot_info(self) -> dict[str, Any]:
        return {"slot": self.slot.index, "worker_index": self.worker_index, "vector_index": self.vector_index,
                "host": socket.gethostname(), "pid": os.getpid(),
                "devices": crab_of(self.env).device_ids()}  # fmt: skip

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.slot.release()


def make_rllib_env(env_id: str, config: Mapping[str, Any] | None = None) -> gym.Env:
    """``env_id`` for RLlib: CrabEnv made from ``config`` (an EnvContext or a dict), FlattenActions over
    it, holding a device slot of this node (see the module docstring)."""
    import crab_gym  # noqa: F401 - registers the ids in this process
    from crab_gym.wrappers import FlattenActions

    worker = int(getattr(config, "worker_index", 0))
    vector = int(getattr(config, "vector_index", 0))
    kwargs = dict(config or {})
    kwargs.pop("num_envs", None)  # RLlib adds it for vector entry points
    flatten = dict(kwargs.pop("flatten", None) or {})
    stride = int(kwargs.pop("slots_per_runner", 1))
    backends = kwargs.pop("backends", None)
    wait_scale = kwargs.pop("wait_time_scale", None)
    slot = DeviceSlot(prefer=worker * stride + vector, limit=slot_limit(backends))
    try:
        env = gym.make(env_id, backends=resolve_backends(backends, slot.index), **kwargs)
        if wait_scale is not None:
            root = crab_of(env).subenvs["root"]
            assert isinstance(root, RootEnv)
            root.time_scale = float(wait_scale)
        return SlotHeld(FlattenActions(env, **flatten), slot, worker, vector)
    except BaseException:
        slot.release()
        raise


def runner_slots(runner: Any) -> list[dict[str, Any]]:
    """The ``slot_info()`` of every env of an RLlib EnvRunner, e.g.
    ``algo.env_runner_group.foreach_env_runner(runner_slots, local_env_runner=False)``."""
    return list(runner.env.unwrapped.call("slot_info"))


def register_rllib_envs() -> tuple[str, ...]:
    """Register ``Crab-v0``, ``Crab-Desktop-v0`` and ``Crab-Android-v0`` with RLlib (``ray.tune``); an
    algorithm config then names them in ``.environment(env_id, env_config=...)``."""
    from ray.tune.registry import register_env

    for env_id in ENV_IDS:
        register_env(env_id, partial(make_rllib_env, env_id))
    return ENV_IDS

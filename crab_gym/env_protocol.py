"""``CrabEnvLike``: the part of a CrabEnv that wrappers, agents and drivers reach through ``env.unwrapped``.

A Protocol rather than an import of ``crab_gym.env``: the env sits above the wrappers and agents (it loads
the task library), so they name its surface here instead of importing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, SupportsFloat, cast

if TYPE_CHECKING:
    import gymnasium as gym

    from crab_gym.core.tasks import Task
    from crab_gym.envs.base import SubEnv
    from crab_gym.spaces import ActionCodec

__all__ = ["CrabEnvLike", "crab_of"]


class CrabEnvLike(Protocol):
    """What CrabEnv offers beyond the gymnasium API (see crab_gym/env.py for each member)."""

    subenvs: dict[str, SubEnv]
    codec: ActionCodec
    tasks: list[Task]
    task: Task | None

    def encode_action(self, device: str, action: str, params: Mapping[str, Any] | None = None) -> tuple: ...

    def wait_action(self) -> tuple: ...

    def reject(self, reason: str) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]: ...

    def observe(self) -> dict[str, Any]: ...

    def device_ids(self) -> dict[str, dict[str, Any]]: ...

    def devices_held(self) -> AbstractContextManager[None]: ...


def crab_of(env: gym.Env) -> CrabEnvLike:
    """``env.unwrapped``, typed as the CrabEnv it is under crab-gym's wrappers (not checked at run time)."""
    return cast("CrabEnvLike", env.unwrapped)

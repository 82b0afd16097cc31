"""A Gymnasium ``VectorEnv`` (``SAME_STEP`` autoreset, e.g. :func:`crab_gym.make_vec`'s) as a
Stable-Baselines3 ``VecEnv``, so PPO collects its rollouts from batched workers
(``PPOConfig.vec = "batched"``).

SB3 wants what its own vector envs give: ``dones`` (terminated or truncated), one info dict per env, the
ended episode's last observation in ``info["terminal_observation"]`` and the next episode's first one as the
observation, which is gymnasium's ``SAME_STEP`` autoreset; the batched infos are split back per env.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from crab_gym.vector import BatchedVectorEnv, is_wrapped

__all__ = ["SB3VecEnv", "split_infos"]


def split_infos(infos: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Gymnasium's batched infos (``key`` arrays with ``_key`` masks) as one dict per env."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, value in infos.items():
        if key.startswith("_") and key[1:] in infos:
            continue
        mask = infos.get(f"_{key}", np.ones(n, dtype=bool))
        parts = split_infos(value, n) if isinstance(value, dict) else value
        for i in np.flatnonzero(mask):
            out[i][key] = parts[i]
    return out


class SB3VecEnv(VecEnv):
    """``vec`` (a Gymnasium ``VectorEnv`` with ``SAME_STEP`` autoreset) behind SB3's ``VecEnv`` API."""

    def __init__(self, vec: gym.vector.VectorEnv) -> None:
        if vec.metadata.get("autoreset_mode") != AutoresetMode.SAME_STEP:
            raise ValueError("SB3VecEnv needs a vector env with autoreset_mode=AutoresetMode.SAME_STEP")
        self.vec: Any = vec  # with call/get_attr/set_attr, as gymnasium's own vector envs and ours have
        self._actions: Any = None
        super().__init__(vec.num_envs, vec.single_observation_space, vec.single_action_space)

    def reset(self) -> Any:
        if any(o != self._options[0] for o in self._options):
            raise ValueError(
                "SB3VecEnv: one set of reset options for every env (gymnasium's reset takes one)"
            )
        obs, infos = self.vec.reset(seed=list(self._seeds), options=self._options[0] or None)
        self.reset_infos = split_infos(infos, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminated, truncated, infos = self.vec.step(self._actions)
        final_obs, final_info = infos.pop("final_obs", None), infos.pop("final_info", {})
        infos.pop("_final_obs", None), infos.pop("_final_info", None)
        per_env, ended_infos = split_infos(infos, self.num_envs), split_infos(final_info, self.num_envs)
        dones = terminated | truncated
        for i in range(self.num_envs):
            if dones[i]:  # this step's info is the ended episode's; the reset's goes to reset_infos
                self.reset_infos[i], per_env[i] = per_env[i], ended_infos[i]
                per_env[i]["terminal_observation"] = final_obs[i] if final_obs is not None else None
            per_env[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, rewards.astype(np.float32), dones, per_env

    def close(self) -> None:
        self.vec.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        values = self.vec.get_attr(attr_name)
        return [values[i] for i in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        values = list(self.vec.get_attr(attr_name))
        for i in self._indices(indices):
            values[i] = value
        self.vec.set_attr(attr_name, values)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        chosen = list(self._indices(indices))
        if len(chosen) != self.num_envs:
            raise ValueError(f"SB3VecEnv.env_method({method_name!r}): a vector env calls it on every env")
        return list(self.vec.call(method_name, *method_args, **method_kwargs))

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        if isinstance(self.vec, BatchedVectorEnv):
            wrapped: Sequence[bool] = self.vec.env_is_wrapped(wrapper_class)
        else:
            wrapped = [is_wrapped(env, wrapper_class) for env in getattr(self.vec, "envs", ())]
        return [bool(wrapped[i]) for i in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return list(self.vec.render() or [None] * self.num_envs)

    def _indices(self, indices: VecEnvIndices) -> Iterable[int]:
        return self._get_indices(indices)

"""RLlib: the env ids registered with FlattenActions inside, and one PPO training iteration of the example
config (examples/rllib_ppo.py) with 2 EnvRunners on the simulated phone, each on a device slot of its own."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"


def test_the_rllib_env_is_flat_and_holds_a_slot_until_closed():
    pytest.importorskip("ray")
    from ray.rllib.env.env_context import EnvContext

    from crab_gym.runs.distributed import DeviceSlot
    from crab_gym.runs.distributed.rllib import make_rllib_env

    ctx = EnvContext({"tasks": ["contacts_add-0"], "obs_size": (24, 52), "flatten": {"screen_size": None},
                      "slots_per_runner": 2, "backends": {"android": ["sim"] * 10}, "wait_time_scale": 0},
                     worker_index=3, vector_index=1)  # fmt: skip
    env = make_rllib_env("Crab-Android-v0", ctx)
    try:
        assert isinstance(env.action_space, gym.spaces.MultiDiscrete)
        assert env.unwrapped.subenvs["root"].time_scale == 0.0
        assert env.observation_space["android_screen"].shape == (52, 24, 3)
        info = env.get_wrapper_attr("slot_info")()
        assert info["slot"] == 7 and (info["worker_index"], info["vector_index"]) == (3, 1)  # 3 * 2 + 1
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        obs, reward, *_ = env.step(env.action_space.sample())
        assert np.isfinite(reward)
        two = {"backends": {"android": ["sim", "sim"]}}
        held = [DeviceSlot(limit=2), DeviceSlot(limit=2)]
        try:  # both slots the list allows are taken
            with pytest.raises(RuntimeError, match="no free device slot"):
                make_rllib_env("Crab-Android-v0", EnvContext(two, worker_index=1))
        finally:
            for h in held:
                h.release()
        with pytest.raises(ValueError, match=r"backends\['android'\]: 5 is neither"):
            make_rllib_env("Crab-Android-v0", EnvContext({"backends": {"android": 5}}, worker_index=1))
    finally:
        env.close()
    again = DeviceSlot(prefer=7)  # released by close()
    assert again.index == 7
    again.release()


def _example():
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.ray
def test_ppo_trains_one_iteration_with_two_env_runners_on_their_own_slots(local_ray):
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    from crab_gym.runs.distributed import register_rllib_envs
    from crab_gym.runs.distributed.rllib import runner_slots

    assert register_rllib_envs() == ("Crab-v0", "Crab-Desktop-v0", "Crab-Android-v0")
    algo = _example().config(env_runners=2, batch=64, max_steps=10).build_algo()
    try:
        result = algo.train()
        runners = result["env_runners"]
        assert runners["num_env_steps_sampled"] >= 64
        assert "learners" in result and result["learners"]["default_policy"]["num_trainable_parameters"] > 0
        infos = algo.env_runner_group.foreach_env_runner(runner_slots, local_env_runner=False)
    finally:
        algo.stop()
    slots = [info for per_runner in infos for info in per_runner]
    assert len(slots) == 2
    assert sorted(s["worker_index"] for s in slots) == [1, 2]
    assert len({s["slot"] for s in slots}) == 2  # different device slots
    assert len({s["pid"] for s in slots}) == 2
    assert len({s["devices"]["android"]["sandbox"] for s in slots}) == 2  # and different phones

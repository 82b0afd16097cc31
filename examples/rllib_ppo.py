"""RLlib PPO on crab-gym's simulated phone (``Crab-Android-v0``): an example config.

    .venv/bin/python examples/rllib_ppo.py --iterations 3                 # a local Ray
    .venv/bin/python examples/rllib_ppo.py --address auto --env-runners 8  # a cluster (ray start ...)

Each EnvRunner holds its own phones; every env takes a device slot of its node
(``crab_gym.runs.distributed.rllib``). Observations are the flat Dict of FlattenActions (instruction bytes
and a small screen), flattened once more into one vector by RLlib's FlattenObservations connector; actions are
FlattenActions' MultiDiscrete (device, action, grid cell, key, text candidate, ...).
"""

from __future__ import annotations

import argparse
import time
from typing import Any


def config(
    env_id: str = "Crab-Android-v0",
    env_runners: int = 2,
    envs_per_runner: int = 1,
    obs_size: tuple[int, int] = (24, 52),
    tasks: str = "v0",
    max_steps: int = 20,
    batch: int = 256,
) -> Any:
    """A PPOConfig for ``env_id`` with ``env_runners`` EnvRunners of ``envs_per_runner`` envs each."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    env_config = {
        "tasks": tasks,
        "max_steps": max_steps,
        "obs_size": obs_size,  # the screen as the policy sees it: (width, height), resized once by Pillow
        "flatten": {"grid": (8, 16), "screen_size": None},  # FlattenActions: tap grid; keep obs_size
        "slots_per_runner": envs_per_runner,  # device slot = worker_index * this + vector_index, if free
        "wait_time_scale": 0.0,  # root wait() does not sleep: the in-process phone does nothing meanwhile
        # "backends": {"android": ["adb:emulator-5554", "adb:emulator-5556"]},  # one phone per slot
    }
    return (
        PPOConfig()
        .environment(env_id, env_config=env_config)
        .env_runners(
            num_env_runners=env_runners,
            num_envs_per_env_runner=envs_per_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
            env_to_module_connector=lambda env, spaces, device: FlattenObservations(),
        )
        .learners(num_learners=0)  # the learner runs in the driver, on its CPU
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=max(32, batch // 4),
            num_epochs=1,
            lr=3e-4,
            entropy_coeff=0.01,
        )
        .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[64, 64]))
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--env-runners", type=int, default=2)
    p.add_argument("--envs-per-runner", type=int, default=1)
    p.add_argument("--batch", type=int, default=256, help="env steps per training iteration")
    p.add_argument("--address", default="", help="a Ray cluster to join (default: start a local Ray)")
    args = p.parse_args(argv)

    import ray

    from crab_gym.runs.distributed import register_rllib_envs

    ray.init(address=args.address or None, include_dashboard=False)
    try:
        register_rllib_envs()
        algo = config(
            env_runners=args.env_runners, envs_per_runner=args.envs_per_runner, batch=args.batch
        ).build_algo()
        for i in range(args.iterations):
            t0 = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            steps = runners.get("num_env_steps_sampled", 0)
            seconds = time.perf_counter() - t0
            print(
                f"iteration {i + 1}: {steps} env steps in {seconds:.1f} s ({steps / seconds:.1f} steps/s), "
                f"episode return mean {runners.get('episode_return_mean', float('nan')):.3f}"
            )
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

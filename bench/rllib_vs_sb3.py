"""PPO training throughput: RLlib (EnvRunners of several envs each) against SB3, in env steps/s of training
(sampling and learning), on one rl-phone family with the same network, batch and epochs (prints figures,
asserts nothing).

The learners are all built first and kept up; then they train in turn (sb3, sb3 batched, rllib, sb3, ...)
for ``--rounds`` windows of about ``--window`` seconds each, as bench/throughput.py's ``alternate`` does: the
speed of a shared 2-core machine drifts by more than the effects measured, and taking turns puts the drift
on all alike. An idle learner uses no CPU (Ray's actors wait on their calls). A window is whole rollouts
and updates: SB3's ``learn`` for one rollout of ``n_steps`` x envs at a time, RLlib's ``Algorithm.train``
(a train batch of the same size), until the window's time is up; its rate is the env steps it added over
its wall time. Every learner has ``runners x envs_per_runner`` envs:

- ``sb3``: SB3 PPO, a DummyVecEnv (every env in this process, stepped one after another);
- ``sb3 batched``: SB3 PPO on ``crab_gym.make_vec``'s BatchedVectorEnv (``runners`` workers of
  ``envs_per_runner`` envs each; see docs/scale.md);
- ``rllib``: RLlib PPO, ``runners`` EnvRunners of ``envs_per_runner`` envs each, the learner in this process.

Prints each window's rate, the medians, and the median per-round ratio to ``sb3`` with its range.

Needs the `sb3` and `ray` extras. Run:
    .venv/bin/python bench/rllib_vs_sb3.py [--family create_item] [--runners 2] [--envs-per-runner 2]
        [--rounds 4] [--window 30]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time
from collections.abc import Callable

import ray
import torch

from crab_gym.baselines import ppo, rllib_ppo

Window = Callable[[float], tuple[int, float]]  # seconds -> (env steps, wall seconds)


def sb3_learner(config: ppo.PPOConfig) -> tuple[Window, Callable[[], None]]:
    vec = ppo._make_vec(config)
    model = ppo.new_model(config, vec)
    batch = config.n_steps * config.n_envs

    def window(seconds: float) -> tuple[int, float]:
        start, t0 = model.num_timesteps, time.perf_counter()
        while True:  # at least one rollout and update
            model.learn(total_timesteps=batch, reset_num_timesteps=False)
            if time.perf_counter() - t0 >= seconds:
                break
        return model.num_timesteps - start, time.perf_counter() - t0

    return window, vec.close


def rllib_learner(config: ppo.PPOConfig) -> tuple[Window, Callable[[], None]]:
    algo = rllib_ppo.build_algo(config)
    print(f"rllib: EnvRunners report {rllib_ppo.runner_envs(algo)} envs", flush=True)

    def window(seconds: float) -> tuple[int, float]:
        steps, t0 = 0, time.perf_counter()
        while True:  # at least one train batch and update
            steps += int(algo.train()["env_runners"]["num_env_steps_sampled"])
            if time.perf_counter() - t0 >= seconds:
                break
        return steps, time.perf_counter() - t0

    return window, algo.stop


def _load() -> str:
    """The load averages over 1, 5 and 15 minutes, as ``uptime`` prints them."""
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", default="create_item")
    p.add_argument("--runners", type=int, default=2)
    p.add_argument("--envs-per-runner", type=int, default=2)
    p.add_argument("--n-steps", type=int, default=128, help="steps per env and rollout (PPOConfig's default)")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--window", type=float, default=30.0)
    args = p.parse_args()

    envs = args.runners * args.envs_per_runner
    config = ppo.PPOConfig(families=(args.family,), n_envs=envs, n_steps=args.n_steps,
                           env_runners=args.runners, envs_per_runner=args.envs_per_runner)  # fmt: skip
    config.vocabulary = ppo.vocabulary_for(config)
    torch.set_num_threads(config.torch_threads)
    print(f"{args.family}: {envs} envs per learner, rollouts of {config.n_steps} steps per env, minibatch "
          f"{config.batch_size}, {config.n_epochs} epochs; {_load()} on {os.cpu_count()} cores",
          flush=True)  # fmt: skip
    t0 = time.perf_counter()
    rllib_ppo.init_ray(args.runners + 1)  # the EnvRunners at this process's niceness
    print(f"ray.init: {time.perf_counter() - t0:.1f} s", flush=True)
    learners: dict[str, tuple[Window, Callable[[], None]]] = {}
    try:
        for name, build in (
            ("sb3", lambda: sb3_learner(config)),
            ("sb3 batched", lambda: sb3_learner(dataclasses.replace(config, vec="batched"))),
            ("rllib", lambda: rllib_learner(dataclasses.replace(config, engine="rllib"))),
        ):
            t = time.perf_counter()
            learners[name] = build()
            print(f"{name}: built in {time.perf_counter() - t:.1f} s", flush=True)
        for window, _ in learners.values():  # warm-up: one rollout and update each
            window(0.0)
        rates: dict[str, list[float]] = {name: [] for name in learners}
        for r in range(args.rounds):
            for name, (window, _) in learners.items():
                steps, seconds = window(args.window)
                rates[name].append(steps / seconds)
                load = os.getloadavg()[0]
                print(f"round {r + 1} {name:12s} {steps:6d} env steps in {seconds:5.1f} s: "
                      f"{steps / seconds:6.1f} steps/s (load {load:.2f})", flush=True)  # fmt: skip
    finally:
        for _, close in learners.values():
            close()
        ray.shutdown()
    print(f"\nmedian env steps/s of training, {args.rounds} alternating windows of ~{args.window:.0f} s:")
    for name, values in rates.items():
        ratios = [v / s for v, s in zip(values, rates["sb3"], strict=True)]
        print(f"  {name:12s} {statistics.median(values):6.1f}   x{statistics.median(ratios):.2f} of sb3 "
              f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")  # fmt: skip
    print(f"  {_load()} at the end")
    n, m = args.runners, args.envs_per_runner
    print(f"  layout: sb3 {envs} envs in-process; sb3 batched {n} workers x {m} envs; "
          f"rllib {n} EnvRunners x {m} envs")  # fmt: skip


if __name__ == "__main__":
    main()

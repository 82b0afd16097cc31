"""PPO from Stable-Baselines3 on FlattenActions over the simulated phone (prints figures, asserts nothing).

Baseline, in the same run: random MultiDiscrete actions through the same wrapped env, so the ratio is what
PPO's rollouts and updates cost on top of the env. torch runs on one thread (set_num_threads(1)).

Needs the `sb3` extra. Run: .venv/bin/python bench/ppo_flatten.py [timesteps]
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import torch
from stable_baselines3 import PPO

import crab_gym  # noqa: F401
from crab_gym.wrappers import FlattenActions

TASKS = ["contacts_add-0", "sms_send-1", "files_delete-0", "settings_dark_theme-0"]


def make() -> FlattenActions:
    env = FlattenActions(gym.make("Crab-Android-v0", tasks=TASKS, max_steps=64, max_invalid_actions=64))
    env.unwrapped.subenvs["root"].time_scale = 0.0  # a random wait(5) does not sleep
    return env


def main(timesteps: int = 1024) -> None:
    torch.set_num_threads(1)
    env = make()
    env.reset(seed=0)
    env.action_space.seed(0)
    t = time.perf_counter()
    for _ in range(timesteps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    random_rate = timesteps / (time.perf_counter() - t)
    print(f"random actions, FlattenActions(Crab-Android-v0):  {random_rate:7.1f} steps/s")

    model = PPO(
        "MultiInputPolicy", env, n_steps=256, batch_size=64, n_epochs=4, seed=0, device="cpu", verbose=0
    )
    t = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    ppo_rate = timesteps / (time.perf_counter() - t)
    print(f"PPO learn (n_steps 256, 4 epochs), same env:      {ppo_rate:7.1f} steps/s")
    print(f"PPO / random:                                     {ppo_rate / random_rate:7.2f}")
    env.close()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))

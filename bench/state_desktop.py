"""Loading a desktop state on Xvfb (replay of the actions since the task's setup): its cost per step of
prefix (prints figures, asserts nothing).

For a few v0 desktop tasks the oracle plays the episode once, timing each step (the baseline); then, for each
prefix length k, the bench saves at step k and times ``load_state`` (reset, task setup, k replayed steps with
their settling, the screen check). A least-squares line through (k, load time) gives the fixed part and the
cost per replayed step, beside the median time of a step in the episode itself.

Run: .venv/bin/python bench/state_desktop.py [task ids...]
"""

from __future__ import annotations

import statistics
import sys
import time

import gymnasium as gym
import numpy as np

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent

TASKS = ["files_rename-0", "terminal_sort_lines-0", "text_editor_write_file-0", "vim_write_file-0"]


def main() -> None:
    ids = sys.argv[1:] or TASKS
    env = gym.make("Crab-Desktop-v0", tasks="v0", max_steps=60)
    u = env.unwrapped
    points: list[tuple[int, float]] = []
    step_times: list[float] = []
    for task_id in ids:
        agent = OracleAgent(env)
        obs, info = env.reset(seed=0, options={"task": task_id})
        actions = []
        while True:
            actions.append(agent.act(obs, info))
            t = time.perf_counter()
            obs, _, terminated, truncated, info = env.step(actions[-1])
            step_times.append(time.perf_counter() - t)
            if terminated or truncated:
                break
        row = []
        for k in range(len(actions)):
            env.reset(seed=0, options={"task": task_id})
            for a in actions[:k]:
                env.step(a)
            state = u.save_state()
            t = time.perf_counter()
            u.load_state(state)
            took = time.perf_counter() - t
            points.append((k, took))
            row.append(f"{k}:{took:.2f}s")
        print(f"{task_id:>28}: load at step " + "  ".join(row))
    env.close()
    k, s = np.array(points, float).T
    slope, fixed = np.polyfit(k, s, 1)
    print(f"load = {fixed:.2f} s + {slope:.2f} s per replayed step ({len(points)} loads)")
    print(f"a step of the episodes themselves: median {statistics.median(step_times):.2f} s")


if __name__ == "__main__":
    main()

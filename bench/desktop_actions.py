"""Desktop step time per action type under random valid actions (prints a table, asserts nothing).

Crab-Desktop-v0 with RandomAgent's valid actions on the desktop (points uniform, text and launcher queries
drawn from the instruction), a reset every ``--episode`` steps. Per action type: count, median, p90, p99
and max of the whole env step (action, settle, evaluation, screenshot). ``search_application`` is split by
what the launch did (``info["action_result"]["launch"]``): a new window (the app's own start-up is in that
time), an existing window focused, the launched program exited or went idle without a window, or no match.
First line: the steps/s of the whole mix. ``PYTHONPATH`` picks the crab_gym measured (another checkout's, to
compare).

Run: .venv/bin/python bench/desktop_actions.py [--steps N] [--episode K] [--seed S]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

import gymnasium as gym
import numpy as np

import crab_gym  # noqa: F401
from crab_gym.baselines import RandomAgent


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def main(steps: int, episode: int, seed: int) -> None:
    env = gym.make("Crab-Desktop-v0", tasks="v0", max_steps=10**9)
    agent = RandomAgent(env, seed=seed, devices=["ubuntu"])
    times: dict[str, list[float]] = defaultdict(list)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    for i in range(steps):
        if i and i % episode == 0:
            obs, info = env.reset(seed=int(rng.integers(1000)))
        t = time.perf_counter()
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        took = time.perf_counter() - t
        act = info.get("action", {}).get("name", "invalid")
        if act == "search_application":
            act += f" ({info.get('action_result', {}).get('launch', '?')})"
        times[act].append(took)
        if term or trunc:
            obs, info = env.reset(seed=int(rng.integers(1000)))
    env.close()
    total = sum(sum(xs) for xs in times.values())
    print(f"Crab-Desktop-v0, {steps} random valid desktop actions, reset every {episode} steps (s per step)")
    print(f"  all steps: {steps / total:.2f} steps/s (resets not counted)")
    print(f"  {'action':38s} {'n':>4s} {'median':>7s} {'p90':>7s} {'p99':>7s} {'max':>7s}")
    for name, xs in sorted(times.items()):
        row = f"{statistics.median(xs):7.3f} {pct(xs, 0.9):7.3f} {pct(xs, 0.99):7.3f} {max(xs):7.3f}"
        print(f"  {name:38s} {len(xs):4d} {row}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--episode", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    main(a.steps, a.episode, a.seed)

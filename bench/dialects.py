"""Parse + translate cost of one step's action, per dialect: the text an agent sends -> our checked actions.

Run: PYTHONPATH=$PWD .venv/bin/python bench/dialects.py
Builds the phone env (no device is touched: only parsing, lowering and validation are timed) and prints
microseconds per step for a mix of that dialect's actions (translated from v0's phone solutions).
"""

from __future__ import annotations

import time

import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.tasks import load_tasks
from crab_gym.wrappers import ActionDialect

DIALECTS = ("anthropic", "openai", "uitars", "pyautogui", "androidworld")


def main(rounds: int = 20) -> None:
    tasks = [t for t in load_tasks("v0") if set(t.platforms) <= {"android", "root"}][:6]
    for name in DIALECTS:
        env = ActionDialect(gym.make("Crab-Android-v0", tasks="v0"), name)
        texts = [
            text
            for t in tasks
            for s in t.solution()
            if s.action != "open_app_drawer" or name != "androidworld"
            for text in env.translate(s.env, s.action, dict(s.params))
        ]
        for text in texts:  # warm up
            env.parse(text)
        t0 = time.perf_counter()
        for _ in range(rounds):
            for text in texts:
                env.parse(text)
        per = (time.perf_counter() - t0) / (rounds * len(texts))
        print(f"{name:13s} {per * 1e6:7.1f} us per step ({len(texts)} actions x {rounds})")
        env.close()


if __name__ == "__main__":
    main()

"""What the dialect tests share: the dialects and a phone env driven through one."""

from __future__ import annotations

import gymnasium as gym

import crab_gym  # noqa: F401  (registers the env ids)
from crab_gym.wrappers import ActionDialect

DIALECTS = ["anthropic", "openai", "uitars", "pyautogui", "androidworld"]


def phone_env(dialect: str, **kw) -> ActionDialect:
    env = ActionDialect(gym.make("Crab-Android-v0", tasks="v0", max_steps=120, **kw), dialect)
    env.unwrapped.subenvs["root"].time_scale = 0.0  # the simulated phone reacts at once
    return env

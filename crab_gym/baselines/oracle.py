"""The scripted agent: replays each task's scripted solution through the ordinary action interface."""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym


class OracleAgent:
    """Plays the task's scripted solution, then waits briefly and declares completion.

    It proves a task solvable through the same action tuples any policy sends. Like any agent it takes
    ``pause`` seconds to "think" before each action: some apps arm timers after a keystroke (a file
    chooser's completion, an autosave) that no screen or CPU signal announces, and an LLM agent's think
    time covers them the same way.
    """

    name = "oracle"

    def __init__(self, env: gym.Env, max_waits: int = 2, pause: float = 0.25) -> None:
        self.env = env.unwrapped
        self.max_waits = max_waits
        self.pause = pause
        self._plan: list[tuple] = []
        self._waits = 0

    def reset(self) -> None:
        task = self.env.task  # type: ignore[attr-defined]
        self._plan = [self.env.encode_action(s.env, s.action, dict(s.params)) for s in task.solution()]  # type: ignore[attr-defined]
        self._plan.reverse()
        self._waits = 0

    def act(self, obs: Any, info: dict[str, Any]) -> tuple:
        if info.get("steps", 0) == 0:
            self.reset()
        elif self.pause:
            time.sleep(self.pause)
        if self._plan:
            return self._plan.pop()
        if self._waits < self.max_waits:
            self._waits += 1
            return self.env.wait_action()  # type: ignore[attr-defined]
        return self.env.encode_action("root", "complete")  # type: ignore[attr-defined]

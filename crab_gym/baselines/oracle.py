"""The scripted agent: replays each task's scripted solution through the ordinary action interface."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym

from crab_gym.baselines.dismiss import clear_action
from crab_gym.env_protocol import crab_of

DEFAULT_PAUSE: dict[str, float] = {}
# Seconds of each root wait() after the plan, while the task is not yet judged done (success ends the
# episode at once, so a solved task never waits). A step's settle is bounded (3 s on the desktop): on a
# loaded machine LibreOffice was still saving when it gave up, and the file landed during the first wait
# (6 of 412 episodes beside a CPU hog and a second env; docs/reliability.md). Growing waits leave room for
# slower saves at the cost of seconds only in an episode that fails anyway.
WAITS: tuple[int, ...] = (1, 2, 4)


class OracleAgent:
    """Plays the task's scripted solution, then waits (``waits``: seconds each, see WAITS) while the task is
    not judged done, and declares completion.

    It proves a task solvable through the same action tuples any policy sends, with no think time: each
    step's settle (screen and session CPU quiet) is what makes the next action safe, on a loaded machine
    too (tests/reliability). ``pause`` adds seconds of think time per device before each action. Before an
    action, a system window in the way on its device (a pop-up, a permission dialog) is cleared first, judged
    from the device's state as any agent sees it (baselines/dismiss.py), at most ``max_clears`` an episode.
    """

    name = "oracle"

    def __init__(
        self,
        env: gym.Env,
        waits: Sequence[int] = WAITS,
        pause: Mapping[str, float] | None = None,
        max_clears: int = 10,
    ) -> None:
        self.env = crab_of(env)
        self.waits, self.max_clears = tuple(waits), max_clears
        self._clears = 0
        self.pause = dict(DEFAULT_PAUSE if pause is None else pause)
        self._plan: list[tuple[str, tuple]] = []
        self._waits = 0

    def reset(self) -> None:
        task = self.env.task
        assert task is not None, "reset the env before the agent"
        encode = self.env.encode_action
        self._plan = [(s.env, encode(s.env, s.action, dict(s.params))) for s in task.solution()]
        self._plan.reverse()
        self._waits = self._clears = 0

    def act(self, obs: Any, info: dict[str, Any]) -> tuple:
        if info.get("steps", 0) == 0:
            self.reset()
        if self._plan:
            device = self._plan[-1][0]
            if self._clears < self.max_clears and (clear := clear_action(self.env, device)) is not None:
                self._clears += 1
                return clear
            device, action = self._plan.pop()
            if info.get("steps", 0) and self.pause.get(device):
                time.sleep(self.pause[device])
            return action
        if self._waits < len(self.waits):
            self._waits += 1
            return self.env.encode_action("root", "wait", {"seconds": self.waits[self._waits - 1]})
        return self.env.encode_action("root", "complete")

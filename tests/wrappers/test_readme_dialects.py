"""The README's five-line example of each action dialect runs as written: every step it takes is a valid
action of the env it makes (the examples are what a newcomer copies first)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401  (registers the env ids)
from crab_gym.wrappers import ActionDialect

README = Path(__file__).resolve().parents[2] / "README.md"
_SECTION = re.compile(r'^#### `"(\w+)"`[^\n]*\n```python\n(.*?)\n```$', re.M | re.S)


def _examples() -> dict[str, str]:
    return dict(_SECTION.findall(README.read_text(encoding="utf-8")))


def test_the_readme_has_one_example_per_dialect() -> None:
    examples = _examples()
    assert set(examples) == {"anthropic", "openai", "uitars", "pyautogui", "androidworld"}
    for name, code in examples.items():
        assert len(code.splitlines()) == 5, f"README's {name} example is not five lines"


class _Checked(ActionDialect):
    """An ActionDialect that keeps each step's info, so the test sees which of the example's actions were
    refused."""

    def __init__(self, env: gym.Env, dialect: str) -> None:
        super().__init__(env, dialect)
        self.infos: list[dict[str, Any]] = []

    def step(self, action: Any) -> Any:
        out = super().step(action)
        self.infos.append(out[4])
        return out


@pytest.mark.parametrize("dialect", ["anthropic", "openai", "uitars", "pyautogui", "androidworld"])
def test_a_readme_dialect_example_runs_with_valid_actions(dialect: str) -> None:
    made: list[_Checked] = []

    def make(env: gym.Env, name: str) -> _Checked:
        made.append(_Checked(env, name))
        return made[-1]

    try:
        exec(_examples()[dialect], {"gym": gym, "ActionDialect": make})  # the README's own code
        (checked,) = made
        assert checked.infos, "the example took no step"
        refused = [i.get("invalid_action") for i in checked.infos if i.get("invalid_action")]
        assert not refused, f"README's {dialect} example has refused actions: {refused}"
    finally:
        for env in made:
            env.close()

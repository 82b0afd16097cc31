"""Every template's scripted solution still solves its task through SetOfMarks + FunctionCalls: each step
is sent as an LLM's tool call, with points replaced by the number of the mark that acts there."""

from __future__ import annotations

import gymnasium as gym
import pytest
from test_function_calls import solve

import crab_gym  # noqa: F401
from crab_gym.tasks import load_tasks
from crab_gym.wrappers import FunctionCalls, SetOfMarks

# one instance of every template: the "-0" task of each, as built by build_v0
pytestmark = pytest.mark.slow  # ~5 min: a real session per template

FIRST_OF_EACH = [
    t.id for t in load_tasks("v0") if t.id.endswith("-0") and not t.id.startswith(("v0-", "handmade"))
]


@pytest.fixture(scope="module")
def marked():
    som = SetOfMarks(gym.make("Crab-v0", tasks="v0", max_steps=60))
    env = FunctionCalls(som)
    yield env, som
    env.close()


def test_covers_every_template():
    """Every template v0 is built from (templates added since are solved by their own tests)."""
    from crab_gym.tasks.generator import templates_for

    ids = {t.subtasks[0].template.id for t in load_tasks("v0") if t.id in FIRST_OF_EACH}
    assert ids == {t.id for t in templates_for(["ubuntu", "android"], in_set="v0")}


@pytest.mark.parametrize("task_id", FIRST_OF_EACH)
def test_solved_through_marks_and_tool_calls(marked, task_id):
    env, som = marked
    info = solve(env, task_id, marks=som)
    assert info["termination_reason"] == "success", info["feedback"]


def test_thunar_rename_solved_through_ocr_marks():
    som = SetOfMarks(gym.make("Crab-Desktop-v0", tasks="v0", max_steps=60), ocr="tesseract")
    env = FunctionCalls(som)
    try:
        info = solve(env, "files_rename-0", marks=som)
        assert info["termination_reason"] == "success", info["feedback"]
    finally:
        env.close()

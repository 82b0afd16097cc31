"""Generated invalid actions, per env id, as raw tuples and as tool-call text: never an exception, always an
invalid action with a reason, and no device touched.

Two layers per env id. Validation (the codec and the tool-call parser, no device involved) takes the big
budget: 5,000 actions and 5,000 tool calls per id in the CI slice, 100,000 each in the ``[long]`` variants
(marked ``fuzz_long``). Through ``env.step`` (every device's state read, screens observed) a smaller slice
runs (500 on the phone, 150 with a desktop; 10,000 long), and afterwards every device's fingerprint -- the
phone's databases, files, foreground app and screen; the desktop's windows, HOME and screen -- must equal the
one before.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from fuzz_strategies import invalid_tool_calls, invalid_tuple_actions
from fuzz_support import budget, env_fingerprint
from hypothesis import given

import crab_gym  # noqa: F401 - registers the env ids
from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers import FunctionCalls

pytestmark = [pytest.mark.fuzz, pytest.mark.slow]

# A task per id whose setup leaves something on the devices (a note, an open file), so the screens are not
# blank and an action that slipped through would show.
TASKS = {
    "Crab-Android-v0": "notes_edit-2",
    "Crab-Desktop-v0": "text_editor_append_line-2",
    "Crab-v0": "cross_file_to_sms-1",
}
VALIDATION = budget(ci=5_000, long=100_000)
THROUGH_STEP = {"Crab-Android-v0": budget(ci=500, long=10_000)}
THROUGH_STEP_DEFAULT = budget(ci=150, long=10_000)  # ids with a desktop: an X screenshot every step


@pytest.fixture(scope="module", params=list(TASKS))
def calls(request):
    """FunctionCalls over the id's env (tool calls in), its base env (tuples in), reset on the task."""
    env_id = request.param
    base = gym.make(env_id, tasks=[TASKS[env_id]], max_steps=10**9, max_invalid_actions=10**9)
    env = FunctionCalls(base)
    env.reset(seed=0, options={"task": TASKS[env_id]})
    yield env_id, env
    env.close()


def _reason(err: InvalidAction) -> str:
    reason = str(err)
    assert reason.strip(), "an invalid action needs a reason"
    return reason


def test_validation_rejects_every_generated_action(calls, fuzz_profile):
    _, env = calls
    codec = env.unwrapped.codec

    @VALIDATION
    @given(action=invalid_tuple_actions(codec))
    def rejected(action):
        with pytest.raises(InvalidAction) as err:
            codec.decode(action)
        _reason(err.value)

    rejected()


def test_tool_call_parser_rejects_every_generated_call(calls, fuzz_profile):
    _, env = calls
    codecs = env.unwrapped.codec.codecs

    @VALIDATION
    @given(call=invalid_tool_calls(env.table, codecs))
    def rejected(call):
        with pytest.raises(InvalidAction) as err:
            env.parse(call)
        _reason(err.value)

    rejected()


def _assert_rejected(result) -> None:
    _, reward, terminated, truncated, info = result
    assert info.get("invalid_action", "").strip(), info
    assert "action" not in info and "error" not in info, info
    assert reward == 0.0 and not terminated and not truncated


def test_generated_actions_through_step_touch_no_device(calls, fuzz_profile):
    env_id, env = calls
    base = env.unwrapped
    before = env_fingerprint(env)

    @THROUGH_STEP.get(env_id, THROUGH_STEP_DEFAULT)
    @given(action=invalid_tuple_actions(base.codec))
    def rejected(action):
        _assert_rejected(base.step(action))

    rejected()
    assert env_fingerprint(env) == before


def test_generated_tool_calls_through_step_touch_no_device(calls, fuzz_profile):
    env_id, env = calls
    before = env_fingerprint(env)

    @THROUGH_STEP.get(env_id, THROUGH_STEP_DEFAULT)
    @given(call=invalid_tool_calls(env.table, env.unwrapped.codec.codecs))
    def rejected(call):
        _assert_rejected(env.step(call))

    rejected()
    assert env_fingerprint(env) == before

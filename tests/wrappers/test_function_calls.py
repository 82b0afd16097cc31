"""FunctionCalls on the real env: tool schemas, v0 solutions through tool calls, garbage never crashes."""

from __future__ import annotations

import json
import re
import time
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import DEFAULT_PAUSE
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.wrappers import FunctionCalls, ToolCallSpace

V0_ANDROID = [t.id for t in load_tasks("v0") if set(t.platforms) <= {"android", "root"}]
DESKTOP_TASKS = ["terminal_create_folder-0", "files_rename-0"]
TAP = {"name": "tap", "arguments": {"device": "android", "point": [0.5, 0.25]}}


def make(env_id: str = "Crab-Android-v0", **kwargs) -> FunctionCalls:
    env = FunctionCalls(gym.make(env_id, **kwargs))
    if env_id == "Crab-Android-v0":
        env.unwrapped.subenvs["root"].time_scale = 0.0  # the simulated phone reacts at once: wait() need not
    return env


@pytest.fixture(scope="module")
def phone():
    env = make(tasks="v0", max_steps=40, max_invalid_actions=1000)
    yield env
    env.close()


@pytest.fixture(scope="module")
def both():
    env = make("Crab-v0", tasks="v0")  # never reset here: building tools starts no device
    yield env
    env.close()


# ---- tools --------------------------------------------------------------------------------------------


def test_every_device_action_is_a_tool_with_a_valid_schema(both):
    jsonschema = pytest.importorskip("jsonschema")
    tools = both.tools()
    names = [t["function"]["name"] for t in tools]
    assert len(names) == len(set(names))
    pairs = set()
    for tool in tools:
        fn = tool["function"]
        assert tool["type"] == "function" and re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", fn["name"])
        assert fn["description"].strip()
        params = fn["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert params["required"][0] == "device"
        device = params["properties"]["device"]
        assert device["type"] == "string" and device["enum"]
        pairs |= {(d, fn["name"]) for d in device["enum"]}
        for d in device["enum"]:
            assert both.unwrapped.subenvs[d].description in device["description"]
    expected = {(d, s.name) for d, sub in both.unwrapped.subenvs.items() for s in sub.actions}
    assert pairs == expected


def test_shared_action_names_merge_per_device_parameters(both):
    press = next(t["function"] for t in both.tools() if t["function"]["name"] == "press")
    props = press["parameters"]["properties"]
    assert props["device"]["enum"] == ["ubuntu", "android"]
    assert press["parameters"]["required"] == ["device"]  # key on ubuntu, button on android
    assert "only for device 'ubuntu'" in props["key"]["description"]
    assert "only for device 'android'" in props["button"]["description"]
    assert "On ubuntu:" in press["description"] and "On android:" in press["description"]
    table = both.table
    assert table.parse({"name": "press", "arguments": {"device": "ubuntu", "key": "enter"}}).params == {
        "key": "enter"
    }
    with pytest.raises(ValueError, match="unknown parameter 'button'"):
        table.parse({"name": "press", "arguments": {"device": "ubuntu", "button": "enter"}})
    with pytest.raises(ValueError, match="parameter 'device' is required: one of 'ubuntu', 'android'"):
        table.parse({"name": "write_text", "arguments": {"text": "hi"}})
    compact = {t["function"]["name"]: t for t in FunctionCalls(both.env, compact_tools=True).tools()}
    assert len(json.dumps(compact)) < 0.8 * len(json.dumps(both.tools()))


def test_schema_accepts_what_the_env_accepts(both):
    jsonschema = pytest.importorskip("jsonschema")
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in both.tools()}
    for task in load_tasks("v0"):
        for step in task.solution():
            call = both.table.parse(as_call(step)).to_json()
            jsonschema.validate(call["arguments"], schemas[call["name"]])


def test_json_mode_prompt_renders_every_tool_and_a_working_example(both):
    prompt = both.json_mode_prompt()
    for name in both.table.tools:
        assert f"## {name}(device" in prompt
    for device in both.unwrapped.subenvs:
        assert f"- {device}: " in prompt
    example = prompt.split("Example:", 1)[1]
    assert both.table.parse(example).name == "click"  # the fenced example block is itself a valid reply


def test_action_space_describes_tool_calls(phone):
    space = phone.action_space
    assert isinstance(space, ToolCallSpace)
    assert space.contains(json.dumps(TAP)) and space.contains(TAP) and json.dumps(TAP) in space
    assert not space.contains("tap somewhere") and not space.contains({"name": "tap"})
    space.seed(3)
    samples = [space.sample() for _ in range(20)]
    assert all(space.contains(s) and isinstance(s, str) for s in samples)
    space.seed(3)
    assert samples == [space.sample() for _ in range(20)]


# ---- the shapes a call may come in --------------------------------------------------------------------

SHAPES = {
    "dict": TAP,
    "json string": json.dumps(TAP),
    "arguments as a JSON string": {"name": "tap", "arguments": json.dumps(TAP["arguments"])},
    "openai dict": {
        "id": "call_1",
        "type": "function",
        "function": {"name": "tap", "arguments": json.dumps(TAP["arguments"])},
    },
    "openai object": SimpleNamespace(
        id="call_1",
        type="function",
        function=SimpleNamespace(name="tap", arguments=json.dumps(TAP["arguments"])),
    ),
    "fenced block in prose": "I will open it.\n```json\n" + json.dumps(TAP, indent=2) + "\n```\nDone.",
    "bare object in prose": "Action: " + json.dumps(TAP) + " (the icon)",
    "device beside arguments": {"name": "tap", "env": "android", "arguments": {"point": [0.5, 0.25]}},
    "a list of one call": [TAP],
    "bytes": json.dumps(TAP).encode(),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_call_shapes_parse_to_the_same_action(phone, shape):
    parsed = phone.parse(SHAPES[shape])
    assert (parsed.device, parsed.name, parsed.params) == ("android", "tap", {"point": (0.5, 0.25)})


# ---- scripted solutions through tool calls -------------------------------------------------------------


def as_call(step) -> dict:
    args = json.loads(json.dumps(dict(step.params)))  # tuples to lists, as a model would write them
    return {"name": step.action, "arguments": {"device": step.env, **args}}


def render(call: dict, i: int) -> str:
    """The call as a model's reply, rotating through the formats step() reads."""
    kind = i % 3
    if kind == 0:
        return json.dumps(call, ensure_ascii=False)
    if kind == 1:
        return "Next I act.\n```json\n" + json.dumps(call, ensure_ascii=False) + "\n```"
    return json.dumps(
        {"id": f"c{i}", "type": "function", "function": {**call, "arguments": json.dumps(call["arguments"])}}
    )


def solve(env: FunctionCalls, task_id: str, marks=None) -> dict:
    """Play the task's solution as tool calls; with ``marks`` (a SetOfMarks below), points become the ids
    of the marks that act there on the screen of that moment."""
    obs, info = env.reset(seed=0, options={"task": task_id})
    calls = [as_call(s) for s in env.unwrapped.task.solution()]
    calls += [{"name": "wait", "arguments": {"device": "root"}}] * 2 + [{"name": "complete", "arguments": {}}]

    for i, call in enumerate(calls):
        if marks is not None and "point" in call["arguments"]:
            args = dict(call["arguments"])
            w, h = env.unwrapped.subenvs[args["device"]].screen_size
            x, y = args.pop("point")
            args["element"] = marks.mark_for_point(args["device"], x * w, y * h).id
            call = {**call, "arguments": args}
        pause = DEFAULT_PAUSE.get(call["arguments"].get("device", ""), 0)
        if i and pause:
            time.sleep(pause)  # the oracle's think time (desktop apps arm timers after keystrokes)
        obs, reward, terminated, truncated, info = env.step(render(call, i))
        assert "invalid_action" not in info, info["invalid_action"]
        assert info["tool_call"]["name"] == call["name"]
        if terminated or truncated:
            break
    return info


@pytest.mark.parametrize("task_id", V0_ANDROID)
def test_android_v0_solutions_solve_through_tool_calls(phone, task_id):
    info = solve(phone, task_id)
    assert info["termination_reason"] == "success", info["feedback"]


@pytest.mark.parametrize("task_id", DESKTOP_TASKS)
def test_desktop_v0_solutions_solve_through_tool_calls(task_id):
    env = make("Crab-Desktop-v0", tasks=[task_id], max_steps=20)
    try:
        info = solve(env, task_id)
        assert info["termination_reason"] == "success", info["feedback"]
    finally:
        env.close()


def test_stacks_on_set_of_marks():
    """On SetOfMarks the tools take mark ids (``element``), which act through the marked element."""
    from crab_gym.wrappers import SetOfMarks

    som = SetOfMarks(gym.make("Crab-Android-v0", tasks="v0", max_steps=40), detector=False)
    env = FunctionCalls(som)
    env.unwrapped.subenvs["root"].time_scale = 0.0
    try:
        for task_id in ["contacts_add-0", "files_delete-0", "settings_dark_theme-0"]:
            assert solve(env, task_id, marks=som)["termination_reason"] == "success"
        env.reset(seed=0, options={"task": "contacts_add-0"})
        obs, _, _, _, info = env.step("no call here")
        assert "no JSON tool call" in info["invalid_action"] and info["invalid_actions"] == 1
        assert "marks" in obs["android"] and info["marks"]["android"], "SetOfMarks still saw the step"
    finally:
        env.close()


# ---- garbage ------------------------------------------------------------------------------------------

GARBAGE = [
    (None, "no tool call (got None)"),
    ("", "the reply is empty"),
    ("tap the OK button", "no JSON tool call found"),
    ("[1, 2, 3]", "one tool call per step; got a list of 3"),
    ("[]", "got a list of 0"),
    ('"tap"', "a tool call is a JSON object; got a JSON string"),
    ("42", "got a number"),
    (object(), "a tool call is a JSON object; got object"),
    (b"\xff\xfe\xfd", "not UTF-8"),
    ("```json\n{name: tap}\n```", "the ```json block is not valid JSON"),
    ('{"name": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
    ("x" * 200_000, "the limit is 65536"),
    ({"arguments": {}}, 'needs "name"'),
    ({"name": 7}, 'needs "name"'),
    ({"name": "fly", "arguments": {}}, "unknown tool 'fly'"),
    ({"name": "tab", "arguments": {}}, "Did you mean 'tap'?"),
    ({"name": "android_in_tap", "arguments": {}}, "Tools: tap, long_tap, swipe"),
    ({"name": "tap", "arguments": "{bad json"}, "tap: the arguments are not valid JSON"),
    ({"name": "tap", "arguments": [0.5, 0.5]}, '"arguments" must be a JSON object'),
    ({"name": "tap", "arguments": {"device": "android"}}, "parameter 'point' is required"),
    ({"name": "tap", "arguments": {"device": "android", "point": "middle"}}, "parameter 'point' must be"),
    ({"name": "tap", "arguments": {"device": "android", "point": [1.5, 0.2]}}, "2 numbers in [0, 1]"),
    ({"name": "tap", "arguments": {"device": "android", "point": [0.5]}}, "parameter 'point'"),
    ({"name": "tap", "arguments": {"device": "android", "point": [True, False]}}, "not true/false"),
    ('{"name": "tap", "arguments": {"device": "android", "point": [NaN, 0.5]}}', "parameter 'point'"),
    (
        {"name": "tap", "arguments": {"device": "android", "point": [0.5, 0.5], "force": 3}},
        "unknown parameter",
    ),
    ({"name": "swipe", "arguments": {"device": "android", "direction": "diagonal"}}, "one of 'up', 'down'"),
    ({"name": "wait", "arguments": {"device": "root", "seconds": "many"}}, "'seconds' must be an integer"),
    ({"name": "wait", "arguments": {"device": "root", "seconds": 99}}, "in [1, 5]"),
    ({"name": "write_text", "arguments": {"device": "android", "text": "a" * 5000}}, "at most 1024"),
    ({"name": "write_text", "arguments": {"device": "android", "text": ""}}, "non-empty string"),
    ({"name": "tap", "arguments": {"device": "iphone", "point": [0.5, 0.5]}}, "must be one of 'android'"),
    ({"name": "tap", "arguments": {"device": "ubuntu", "point": [0.5, 0.5]}}, "got 'ubuntu'"),
    ({"name": "tap", "arguments": {"device": "root", "point": [0.5, 0.5]}}, "device 'root' has no action"),
    ({"name": "tap", "arguments": {"device": ["android"], "point": [0.5, 0.5]}}, "must be one of"),
    ({"name": "submit", "arguments": {"device": "root", "answer": None}}, "'answer' must be"),
]


@pytest.mark.parametrize("call, reason", GARBAGE, ids=[str(i) for i in range(len(GARBAGE))])
def test_garbage_calls_are_invalid_actions_with_reasons(phone, call, reason):
    phone.reset(seed=0, options={"task": V0_ANDROID[0]})
    phone_env = phone.unwrapped.subenvs["android"]
    before = phone_env.screenshot().copy()
    obs, reward, terminated, truncated, info = phone.step(call)
    assert reason in info["invalid_action"], info["invalid_action"]
    assert reward == 0.0 and not terminated and not truncated
    assert info["actions"] == 0 and info["invalid_actions"] == 1 and "tool_call" not in info
    assert np.array_equal(before, phone_env.screenshot()), "an invalid call touched the phone"
    assert not phone.action_space.contains(call)


def test_result_text_tells_the_model_what_happened(phone):
    phone.reset(seed=0, options={"task": V0_ANDROID[0]})
    assert phone.result_text(phone.step(TAP)[4]) == "Done."
    bad = phone.result_text(phone.step({"name": "tap", "arguments": {"device": "android"}})[4])
    assert bad.startswith("Invalid action, nothing was done: tap: parameter 'point' is required")


def test_invalid_action_limit_still_ends_the_episode():
    env = FunctionCalls(gym.make("Crab-Android-v0", tasks=V0_ANDROID[:1], max_invalid_actions=3))
    try:
        env.reset(seed=0)
        for i in range(3):
            _, _, terminated, truncated, info = env.step("not a call")
            assert truncated == (i == 2) and not terminated
        assert info["termination_reason"] == "invalid_action_limit" and info["invalid_actions"] == 3
    finally:
        env.close()


def test_wrappers_between_are_stepped_for_invalid_calls():
    inner = gym.wrappers.RecordEpisodeStatistics(
        gym.make("Crab-Android-v0", tasks=V0_ANDROID[:1], max_invalid_actions=2)
    )
    env = FunctionCalls(inner)
    try:
        env.reset(seed=0)
        env.step(json.dumps(TAP))
        _, _, _, truncated, info = env.step({"name": "nope"})
        _, _, _, truncated, info = env.step({"name": "nope"})
        assert truncated and info["episode"]["l"] == 3  # the statistics wrapper saw every step
    finally:
        env.close()


# ---- tokens -------------------------------------------------------------------------------------------


def test_tokens_land_in_info(phone):
    phone.reset(seed=0, options={"task": V0_ANDROID[0]})
    _, _, _, _, info = phone.step(json.dumps(TAP), tokens=120)
    assert info["tokens"] == 120
    _, _, _, _, info = phone.step(TAP)
    assert "tokens" not in info
    phone.add_tokens(30)
    _, _, _, _, info = phone.step({**TAP, "tokens": 12})
    assert info["tokens"] == 42
    _, _, _, _, info = phone.step("garbage", tokens=5)  # spent tokens count even when the call is invalid
    assert info["tokens"] == 5 and "invalid_action" in info
    phone.add_tokens(9)
    phone.reset(seed=0, options={"task": V0_ANDROID[0]})  # pending tokens do not leak into an episode
    _, _, _, _, info = phone.step(TAP)
    assert "tokens" not in info


class ScriptedLLM:
    """An 'LLM agent' replaying the task's solution as tool-call dicts, each costing 100 tokens."""

    def __init__(self, env: FunctionCalls) -> None:
        self.env = env

    def act(self, obs, info):
        if info["steps"] == 0:
            self.plan = [as_call(s) for s in self.env.unwrapped.task.solution()]
        call = self.plan.pop(0) if self.plan else {"name": "complete", "arguments": {}}
        return {**call, "tokens": 100}


def test_tokens_flow_into_runner_records(phone):
    task = "contacts_add-0"
    record = rollout(phone, ScriptedLLM(phone), task=task, seed=0)
    steps = len(next(t for t in phone.unwrapped.tasks if t.id == task).solution())
    assert record.success and record.tokens == 100 * steps == 100 * record.steps

"""The four LLM agent structures (single, by-function, by-environment, reflective) through the real openai
client against a local Chat Completions server. Its "model" reads each request to tell which role is asked
(planner, tool agent, main agent, a device's sub-agent, actor, reflector) and plays the task's scripted
solution: a cross-device task on the real desktop and the simulated phone, what each role is shown, JSON
mode and JPEG screens, retried and permanent API errors, and every token counted."""

from __future__ import annotations

import base64
import email.utils
import io
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import gymnasium as gym
import pytest
from chat_server import ChatServer, tool_call
from PIL import Image

import crab_gym  # noqa: F401
from crab_gym.baselines import AgentError, RetryPolicy, make_llm_agent
from crab_gym.baselines.llm import STRUCTURES
from crab_gym.baselines.llm.by_environment import MAIN_PROMPT
from crab_gym.baselines.llm.by_function import PLANNER_PROMPT, TOOL_AGENT_PROMPT
from crab_gym.baselines.llm.chat import _retry_after
from crab_gym.baselines.llm.reflective import ACTOR_PROMPT, REFLECT_PROMPT
from crab_gym.baselines.llm.single import SYSTEM_PROMPT
from crab_gym.baselines.oracle import DEFAULT_PAUSE
from crab_gym.rollout import rollout
from crab_gym.wrappers import FunctionCalls, SetOfMarks

pytest.importorskip("openai")

CROSS = "cross_sms_code_to_file-0"  # phone: read a code from an SMS; desktop: write it to a file in vim
PHONE = "contacts_add-0"
FAST = RetryPolicy(attempts=3, initial_delay=0.01, max_delay=0.02)
ROLES = {
    "single": {"agent"},
    "by-function": {"planner", "tool_agent"},
    "by-environment": {"main", "ubuntu", "android"},
    "reflective": {"actor", "reflector"},
}
PROMPTS = [
    (PLANNER_PROMPT, "planner"),
    (TOOL_AGENT_PROMPT, "tool_agent"),
    (MAIN_PROMPT, "main"),
    (REFLECT_PROMPT, "reflector"),
    (ACTOR_PROMPT, "actor"),
    (SYSTEM_PROMPT, "agent"),
]


@pytest.fixture(scope="module")
def crab():
    env = FunctionCalls(gym.make("Crab-v0", tasks=[CROSS], max_steps=30))
    yield env
    env.close()


@pytest.fixture(scope="module")
def phone():
    env = FunctionCalls(gym.make("Crab-Android-v0", tasks=[PHONE], max_steps=40))
    env.unwrapped.subenvs["root"].time_scale = 0.0
    yield env
    env.close()


class Team:
    """Every role's scripted model: the task's solution, two waits and complete, one call per action."""

    def __init__(self, env: gym.Env, json_mode: bool = False, marks: SetOfMarks | None = None) -> None:
        self.env, self.json_mode, self.marks = env, json_mode, marks
        self.calls: list[dict] | None = None
        self.roles: list[str] = []  # the role of each request answered
        self.emitted: list[dict] = []  # the calls handed out

    def plan(self) -> list[dict]:
        if self.calls is None:
            self.calls = [
                {"name": s.action, "arguments": {"device": s.env, **json.loads(json.dumps(dict(s.params)))}}
                for s in self.env.unwrapped.task.solution()
            ]
            self.calls += [{"name": "wait", "arguments": {"device": "root"}}] * 2
            self.calls.append({"name": "complete", "arguments": {"device": "root"}})
        return self.calls

    def __call__(self, request: dict) -> dict:
        system = request["messages"][0]["content"]
        role = next((r for p, r in PROMPTS if system.startswith(p)), None)
        sub = re.match(r"You are the sub-agent for the device '(\w+)'", system)
        role = role or (sub.group(1) if sub else "?")
        self.roles.append(role)
        last = request["messages"][-1]["content"]
        if role == "planner":
            assert "tools" not in request
            return {"role": "assistant", "content": "Next: " + json.dumps(self.plan()[0])}
        if role == "reflector":
            return {"role": "assistant", "content": f"Summary {len(self.roles)}: it worked."}
        if role == "main" and self.plan()[0]["arguments"]["device"] != "root":
            call = self.plan()[0]
            args = {"device": call["arguments"]["device"], "instruction": json.dumps(call)}
            return self.reply({"name": "delegate", "arguments": args})
        if role == "tool_agent":
            assert json.loads(part(last, "Sub-goal: Next: ")) == self.plan()[0]
        if sub:
            assert json.loads(part(last, "Instruction: ")) == self.plan()[0]
            assert self.plan()[0]["arguments"]["device"] == role
        return self.act(self.plan().pop(0), terse=bool(sub) and self.json_mode)

    def act(self, call: dict, terse: bool = False) -> dict:
        """The call as this model sends it; ``terse``: without "device" (a sub-agent has only one)."""
        args = dict(call["arguments"])
        if self.marks is not None and "point" in args:  # name the mark under the scripted point
            w, h = self.env.unwrapped.subenvs[args["device"]].screen_size
            x, y = args.pop("point")
            args["element"] = self.marks.mark_for_point(args["device"], x * w, y * h).id
        if self.emitted and DEFAULT_PAUSE.get(args["device"]):
            time.sleep(DEFAULT_PAUSE[args["device"]])  # think time: desktop apps arm timers after keys
        self.emitted.append({"name": call["name"], "arguments": args})
        if terse:
            return self.reply(
                {"name": call["name"], "arguments": {k: v for k, v in args.items() if k != "device"}}
            )
        return self.reply(self.emitted[-1])

    def reply(self, call: dict) -> dict:
        if self.json_mode:
            return {"role": "assistant", "content": "Next:\n```json\n" + json.dumps(call) + "\n```"}
        return tool_call(len(self.roles), call["name"], call["arguments"])


def part(content: list[dict], prefix: str) -> str:
    """The text after ``prefix`` of the content part that starts with it."""
    return next(p["text"][len(prefix) :] for p in content if p.get("text", "").startswith(prefix))


@contextmanager
def serve(model) -> Iterator[ChatServer]:
    server = ChatServer(model)
    try:
        yield server
    finally:
        server.close()


def agent_for(structure: str, env: gym.Env, server: ChatServer, **options):
    options.setdefault("retry", FAST)
    return make_llm_agent(structure, env, model="scripted", base_url=server.base_url, api_key="t", **options)


def image_urls(request: dict) -> list[str]:
    return [
        p["image_url"]["url"]
        for m in request["messages"]
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]


def image_size(url: str) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size


def texts(request: dict) -> str:
    """Every text of the request's messages, joined."""
    out = []
    for m in request["messages"]:
        content = m.get("content") or ""
        out += [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    return "\n".join(out)


def tool_enums(request: dict) -> dict[str, list[str]]:
    return {
        t["function"]["name"]: t["function"]["parameters"]["properties"]["device"]["enum"]
        for t in request["tools"]
    }


# ---- every structure on a cross-device task -------------------------------------------------------------


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_every_structure_solves_a_cross_device_task(crab, structure):
    team = Team(crab)
    with serve(team) as server:
        agent = agent_for(structure, crab, server, history=3)
        record = rollout(crab, agent, task=CROSS, seed=0)
    assert record.success and record.invalid_actions == 0, record
    assert record.tokens == sum(u["total_tokens"] for u in server.usages) > 0
    by_role: dict[str, int] = {}
    for role, usage in zip(team.roles, server.usages, strict=True):
        by_role[role] = by_role.get(role, 0) + usage["total_tokens"]
    assert agent.tokens_by_role == by_role and set(by_role) == ROLES[structure]
    CHECKS[structure](crab, server, team, record)


def check_single(env, server, team, record) -> None:
    assert len(server.requests) == record.steps
    assert all(len(image_urls(r)) == 2 for r in server.requests)  # both devices' current screens only


def check_by_function(env, server, team, record) -> None:
    assert team.roles == ["planner", "tool_agent"] * record.steps
    for request, role in zip(server.requests, team.roles, strict=True):
        assert len(image_urls(request)) == 2  # the planner and the tool agent both see every screen
        if role == "tool_agent":
            assert {"tap", "write_text", "search_application", "complete"} <= set(tool_enums(request))
    second_plan = server.requests[2]["messages"][-1]["content"][0]["text"]
    assert second_plan.startswith("Last action: ") and "Done" in second_plan


def check_by_environment(env, server, team, record) -> None:
    screens = {d: env.unwrapped.subenvs[d].screen_size for d in ("ubuntu", "android")}
    assert team.roles.count("main") == record.steps
    devices = [c["arguments"]["device"] for c in team.emitted]
    assert len(devices) == record.steps and "ubuntu" in devices and "android" in devices
    assert [r for r in team.roles if r != "main"] == [d for d in devices if d != "root"]
    for request, role in zip(server.requests, team.roles, strict=True):
        enums, urls = tool_enums(request), image_urls(request)
        if role == "main":
            assert set(enums) == {"delegate", "submit", "complete", "wait"}
            assert enums["delegate"] == ["ubuntu", "android"] and enums["complete"] == ["root"]
            assert len(urls) == 2
            continue
        assert enums and all(e == [role] for e in enums.values())  # only this device's tools
        assert not {"complete", "submit", "wait", "delegate"} & set(enums)
        assert len(urls) == 1 and f"Screen of {role}:" in texts(request)
        other = "android" if role == "ubuntu" else "ubuntu"
        assert f"Screen of {other}" not in texts(request)
        (w, h), (sw, sh) = image_size(urls[0]), screens[role]
        assert abs(w / h - sw / sh) < 0.01  # the image is this device's screen
    last_main = [r for r, role in zip(server.requests, team.roles, strict=True) if role == "main"][-1]
    feedback = [m["content"] for m in last_main["messages"] if m["role"] == "tool"]
    assert feedback and all(f.startswith(("ubuntu's sub-agent called", "android's")) for f in feedback)


def check_reflective(env, server, team, record) -> None:
    actors = [r for r, role in zip(server.requests, team.roles, strict=True) if role == "actor"]
    reflections = [r for r, role in zip(server.requests, team.roles, strict=True) if role == "reflector"]
    assert len(actors) == record.steps and len(reflections) == record.steps - 1
    for k, reflection in enumerate(reflections):
        before, after = image_urls(actors[k]), image_urls(actors[k + 1])  # [ubuntu, android] each
        urls = image_urls(reflection)
        if '"device": "root"' in texts(reflection):  # a wait: both devices, before and after
            assert urls == [before[0], after[0], before[1], after[1]]
        else:
            assert len(urls) == 2 and urls[0] in before and urls[1] in after
            assert before.index(urls[0]) == after.index(urls[1])
    answers = [f"Summary {i + 1}: it worked." for i, role in enumerate(team.roles) if role == "reflector"]
    for k, answer in enumerate(answers):  # each summary reaches the actor's next prompt
        assert f"Step {k + 1}: " in texts(actors[k + 1]) and answer in texts(actors[k + 1])
    assert texts(actors[-1]).count("it worked.") == 3  # history=3: the latest three summaries


CHECKS = {
    "single": check_single,
    "by-function": check_by_function,
    "by-environment": check_by_environment,
    "reflective": check_reflective,
}


# ---- JSON mode, JPEG, marks ---------------------------------------------------------------------------


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_json_mode_with_jpeg_screens(phone, structure):
    team = Team(phone, json_mode=True)
    with serve(team) as server:
        agent = agent_for(
            structure, phone, server, json_mode=True, image_format="jpeg", jpeg_quality=50, max_side=320
        )
        record = rollout(phone, agent, task=PHONE, seed=0)
    assert record.success and record.invalid_actions == 0, record
    assert record.tokens == sum(u["total_tokens"] for u in server.usages)
    assert not any("tools" in r for r in server.requests)
    assert any('"name": "<tool name>"' in r["messages"][0]["content"] for r in server.requests)
    urls = [u for r in server.requests for u in image_urls(r)]
    assert urls and all(u.startswith("data:image/jpeg;base64,") for u in urls)
    assert all(max(image_size(u)) <= 320 for u in urls)


def test_by_environment_over_set_of_marks_refuses_a_device_call_from_the_main_agent():
    som = SetOfMarks(gym.make("Crab-Android-v0", tasks=[PHONE], max_steps=40))
    env = FunctionCalls(som)
    env.unwrapped.subenvs["root"].time_scale = 0.0
    team = Team(env, marks=som)

    def model(request: dict) -> dict:
        if len(server.requests) == 1:  # the main agent tries to tap by itself
            return tool_call(0, "tap", {"device": "android", "element": 1})
        return team(request)

    try:
        with serve(model) as server:
            agent = agent_for("by-environment", env, server)
            record = rollout(env, agent, task=PHONE, seed=0)
    finally:
        env.close()
    assert record.success and record.invalid_actions == 1, record
    refusal = server.requests[1]["messages"][-2]
    assert refusal["role"] == "tool" and "delegate it" in refusal["content"]
    sub = next(r for r, role in zip(server.requests[1:], team.roles, strict=True) if role == "android")
    assert "Marks on android:\n[1]" in texts(sub) and "element" in json.dumps(sub["tools"])


# ---- API errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_errors_are_retried(phone, status):
    team = Team(phone)
    with serve(team) as server:
        server.fail_next(status)  # the first request fails, its retry succeeds
        agent = agent_for("by-function", phone, server)
        record = rollout(phone, agent, task=PHONE, seed=0)
    assert record.success, record
    assert server.failures == [status] and len(server.requests) == len(server.usages) + 1
    assert server.requests[0] == server.requests[1]  # the same request, sent again
    assert record.tokens == sum(u["total_tokens"] for u in server.usages)


@pytest.mark.parametrize(
    ("structure", "status"), [(s, 400) for s in STRUCTURES] + [("single", 401), ("reflective", 404)]
)
def test_permanent_errors_raise_agent_error(phone, structure, status):
    with serve(Team(phone)) as server:
        agent = agent_for(structure, phone, server)
        obs, info = phone.reset(seed=0, options={"task": PHONE})
        server.fail_next(status)
        with pytest.raises(AgentError) as raised:
            agent.act(obs, info)
    error = raised.value
    assert error.status_code == status and error.attempts == 1 and not error.transient
    assert error.role in ROLES[structure] and len(server.requests) == 1
    assert type(error.__cause__).__module__.startswith("openai")


def test_an_unreachable_server_is_retried_then_given_up(phone):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    agent = make_llm_agent(
        "single", phone, model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="t", retry=FAST
    )
    obs, info = phone.reset(seed=0, options={"task": PHONE})
    with pytest.raises(AgentError) as raised:
        agent.act(obs, info)
    assert raised.value.transient and raised.value.attempts == 3 and raised.value.status_code is None


def test_a_timeout_is_retried(phone):
    team = Team(phone)
    slow = threading.Event()

    def model(request: dict) -> dict:
        if not slow.is_set():  # the first answer comes after the client gave up waiting
            slow.set()
            time.sleep(1.0)
            return {"role": "assistant", "content": "too late"}
        return team(request)

    with serve(model) as server:
        agent = agent_for("single", phone, server, timeout=0.3)
        record = rollout(phone, agent, task=PHONE, seed=0)
    assert record.success and len(server.requests) == record.steps + 1, record
    assert server.requests[0] == server.requests[1]


def test_retry_delays_grow_are_capped_and_heed_retry_after():
    policy = RetryPolicy(initial_delay=1.0, multiplier=2.0, max_delay=5.0, jitter=0.0)
    assert [policy.delay(k) for k in range(4)] == [1.0, 2.0, 4.0, 5.0]
    assert policy.delay(0, retry_after=3.0) == 3.0 and policy.delay(0, retry_after=60.0) == 5.0

    def error(value: str) -> SimpleNamespace:
        return SimpleNamespace(response=SimpleNamespace(headers={"retry-after": value}))

    assert _retry_after(error("2")) == 2.0 and _retry_after(error("soon")) is None
    assert 50 < _retry_after(error(email.utils.formatdate(time.time() + 60, usegmt=True))) <= 60


def test_factory_rejects_unknown_structures_and_bare_envs(phone):
    with pytest.raises(ValueError, match="by-function"):
        make_llm_agent("committee", phone, model="m", base_url="http://127.0.0.1:9/v1")
    assert type(make_llm_agent("by_function", phone, model="m", api_key="t")).__name__ == "ByFunctionAgent"
    with pytest.raises(TypeError, match="FunctionCalls"):
        make_llm_agent("by-environment", phone.env, model="m", base_url="http://127.0.0.1:9/v1")

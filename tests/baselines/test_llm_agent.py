"""LLMAgent through the real openai client against a local Chat Completions server whose "model" plays the
task's scripted solution: the chat it sends, the tool-call round trip, rejected calls fed back, tokens
counted for CE, and the text (JSON-mode) path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest
from chat_server import ChatServer, tool_call

import crab_gym  # noqa: F401
from crab_gym.baselines import AgentError, LLMAgent, RetryPolicy
from crab_gym.rollout import rollout
from crab_gym.wrappers import FunctionCalls, SetOfMarks

pytest.importorskip("openai")

TASK = "contacts_add-0"


def scripted_calls(env: gym.Env) -> list[dict]:
    task = env.unwrapped.task
    calls = [
        {"name": s.action, "arguments": {"device": s.env, **json.loads(json.dumps(dict(s.params)))}}
        for s in task.solution()
    ]
    return calls + [{"name": "complete", "arguments": {"device": "root"}}]


def images(message: dict) -> int:
    content = message.get("content")
    return sum(1 for p in content if p.get("type") == "image_url") if isinstance(content, list) else 0


def test_tool_calls_through_set_of_marks_solve_the_task():
    som = SetOfMarks(gym.make("Crab-Android-v0", tasks=[TASK], max_steps=40))
    env = FunctionCalls(som)
    plan: list[dict] = []

    def model(request: dict) -> dict:
        i = len(server.requests) - 1
        if i == 0:
            return tool_call(i, "fly", {"device": "android"})  # not a tool: must come back as a rejection
        if not plan:
            plan.extend(scripted_calls(env))
        call = plan.pop(0)
        args = dict(call["arguments"])
        if "point" in args:  # the model names the mark under the scripted point, on the screen it was sent
            w, h = env.unwrapped.subenvs[args["device"]].screen_size
            x, y = args.pop("point")
            args["element"] = som.mark_for_point(args["device"], x * w, y * h).id
        return tool_call(i, call["name"], args)

    server = ChatServer(model)
    try:
        agent = LLMAgent(env, model="scripted", base_url=server.base_url, api_key="test", history=3)
        record = rollout(env, agent, task=TASK, seed=0)
    finally:
        server.close()
        env.close()

    assert record.success and record.invalid_actions == 1, record
    assert record.tokens == sum(u["total_tokens"] for u in server.usages) > 0
    first, second, last = server.requests[0], server.requests[1], server.requests[-1]
    names = {t["function"]["name"] for t in first["tools"]}
    assert {"tap", "write_text", "complete"} <= names and first["tool_choice"] == "required"
    tap = next(t for t in first["tools"] if t["function"]["name"] == "tap")
    assert "element" in tap["function"]["parameters"]["properties"]
    assert first["messages"][1]["content"].startswith("Task: ")
    screen = first["messages"][-1]["content"]
    assert any(p.get("image_url", {}).get("url", "").startswith("data:image/png;base64,") for p in screen)
    assert any(p.get("text", "").startswith("Marks on android:\n[1]") for p in screen)
    rejection = second["messages"][-2]
    assert rejection["role"] == "tool" and rejection["tool_call_id"] == "call_0"
    assert rejection["content"].startswith("Invalid action") and "fly" in rejection["content"]
    # the chat stays bounded: system, task, the last 3 turns; only the newest turn carries a screen
    assert len(last["messages"]) <= 2 + 3 * 3 + 1
    assert sum(images(m) for m in last["messages"]) == 1
    for m in last["messages"]:  # every tool call is answered by a tool message with its id
        for c in m.get("tool_calls") or []:
            assert any(r.get("tool_call_id") == c["id"] for r in last["messages"])


def test_json_mode_reads_calls_from_text():
    env = FunctionCalls(gym.make("Crab-Android-v0", tasks=[TASK], max_steps=40))
    plan: list[dict] = []

    def model(request: dict) -> dict:
        if not plan:
            plan.extend(scripted_calls(env))
        call = plan.pop(0)
        return {"role": "assistant", "content": "Next:\n```json\n" + json.dumps(call) + "\n```"}

    server = ChatServer(model)
    try:
        agent = LLMAgent(
            env, model="scripted", base_url=server.base_url, api_key="test", json_mode=True,
            request_options={"max_tokens": 64, "temperature": 0.5},
        )  # fmt: skip
        record = rollout(env, agent, task=TASK, seed=0)
    finally:
        server.close()
        env.close()
    assert record.success and record.invalid_actions == 0, record
    first, second = server.requests[0], server.requests[1]
    assert "tools" not in first and '"name": "<tool name>"' in first["messages"][0]["content"]
    assert first["max_tokens"] == 64 and first["temperature"] == 0.5
    assert second["messages"][-1]["content"][0]["text"].startswith("Result of your last action: Done")


def test_api_errors_reach_the_caller_and_the_env_survives():
    env = FunctionCalls(gym.make("Crab-Android-v0", tasks=[TASK], max_steps=40))

    def model(request: dict) -> dict:
        raise RuntimeError("model crashed")

    server = ChatServer(model)
    try:
        import openai

        agent = LLMAgent(
            env,
            model="scripted",
            client=openai.OpenAI(base_url=server.base_url, api_key="t", max_retries=0),
            retry=RetryPolicy(attempts=2, initial_delay=0.01),
        )
        obs, info = env.reset(seed=0, options={"task": TASK})
        with pytest.raises(AgentError) as raised:  # a 500 is retried, then given up on
            agent.act(obs, info)
        assert isinstance(raised.value.__cause__, openai.InternalServerError)
        assert raised.value.attempts == 2 == len(server.requests) and raised.value.status_code == 500
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.wait_action())
        assert not terminated and info["steps"] == 1
    finally:
        server.close()
        env.close()


def test_needs_function_calls():
    env = gym.make("Crab-Android-v0", tasks=[TASK])
    try:
        with pytest.raises(TypeError, match="FunctionCalls"):
            LLMAgent(env, model="m", base_url="http://127.0.0.1:9/v1")
    finally:
        env.close()


def test_cli_eval_runs_an_llm_from_a_server(tmp_path):
    """`crab-gym eval --agent llm`: a model that declares completion at once ends in false_completion,
    and its tokens reach the metrics (CE)."""
    server = ChatServer(lambda request: tool_call(len(server.requests), "complete", {"device": "root"}))
    try:
        res = subprocess.run(
            [
                sys.executable, "-m", "crab_gym.cli", "eval", "--agent", "llm", "--model", "scripted",
                "--base-url", server.base_url, "--devices", "android", "--tasks", "v0", "--limit", "2",
                "--out", str(tmp_path),
            ],
            capture_output=True, text=True, timeout=300, env={**os.environ, "OPENAI_API_KEY": "test"},
        )  # fmt: skip
    finally:
        server.close()
    assert res.returncode == 0, res.stderr[-2000:]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["n"] == 2 and metrics["SR"] == 0.0, metrics
    assert metrics["termination_shares"]["false_completion"] == 1.0 and metrics["CE"] is not None, metrics
    assert len(server.requests) == 2 and all("Marks on android" in json.dumps(r) for r in server.requests)


def test_cli_eval_passes_the_image_options_to_the_agent(tmp_path):
    """`--image-format jpeg --max-side 320`: the screens reach the server as JPEG no larger than 320 px."""
    import base64
    import io

    from PIL import Image

    server = ChatServer(lambda request: tool_call(len(server.requests), "complete", {"device": "root"}))
    try:
        res = subprocess.run(
            [
                sys.executable, "-m", "crab_gym.cli", "eval", "--agent", "llm", "--model", "scripted",
                "--base-url", server.base_url, "--devices", "android", "--tasks", "v0", "--limit", "1",
                "--image-format", "jpeg", "--max-side", "320", "--history", "1", "--out", str(tmp_path),
            ],
            capture_output=True, text=True, timeout=300, env={**os.environ, "OPENAI_API_KEY": "test"},
        )  # fmt: skip
    finally:
        server.close()
    assert res.returncode == 0, res.stderr[-2000:]
    urls = [
        part["image_url"]["url"]
        for r in server.requests
        for m in r["messages"]
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]
    assert urls and all(u.startswith("data:image/jpeg;base64,") for u in urls)
    img = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert img.format == "JPEG" and max(img.size) <= 320

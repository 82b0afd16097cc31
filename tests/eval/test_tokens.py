"""CE counts every model call: the tokens of a turn that ends the episode without a step (a permanent API
error after some of the turn's calls had answered) reach the episode's record, through ``crab-gym eval``
(the recorder, in a collect worker) and through ``rollout``; a rejected call's tokens count too."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from chat_server import ChatServer
from eval_support import Team

import crab_gym  # noqa: F401
from crab_gym.baselines import make_llm_agent
from crab_gym.rollout import rollout
from crab_gym.wrappers import FunctionCalls


def test_eval_counts_the_tokens_of_a_rejected_call_and_of_a_turn_that_failed(llm_run):
    run, usages = llm_run
    tokens = [u["total_tokens"] for u in usages]
    # camera: planner, tool agent (a reply without a call), planner, tool agent (complete); notes: the
    # planner, then the tool agent's request refused with 400 (no usage)
    assert len(tokens) == 5
    records = {r["task_id"]: r for r in map(json.loads, (run / "records.jsonl").read_text().splitlines())}
    camera, notes = records["camera_take_photo-0"], records["notes_delete-0"]
    assert camera["termination_reason"] == "false_completion" and camera["invalid_actions"] == 1
    assert camera["tokens"] == sum(tokens[:4])
    assert notes["termination_reason"] == "agent_error" and notes["steps"] == 0
    assert notes["tokens"] == tokens[4] > 0  # the planner's call of the failed turn
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["agent"] == "llm (by-function)"
    assert metrics["CE"] is not None and metrics["platforms"]["android"]["CE"] is not None


def test_rollout_counts_the_tokens_of_a_turn_that_failed():
    pytest.importorskip("openai")
    env = FunctionCalls(gym.make("Crab-Android-v0", tasks=["notes_delete-0"], max_steps=5))
    team = Team()
    server = team.server = ChatServer(team)
    try:
        agent = make_llm_agent("by-function", env, model="scripted", base_url=server.base_url, api_key="t")
        record = rollout(env, agent, task="notes_delete-0", seed=0)
        assert record.termination_reason == "agent_error" and "400" in record.extra["error"]
        assert record.tokens == server.usages[0]["total_tokens"] and len(server.usages) == 1
        assert agent.tokens_by_role == {"planner": record.tokens}
        assert env.take_tokens() is None  # handed over once

        env.reset(seed=0, options={"task": "notes_delete-0"})
        env.add_tokens(7)
        env.add_tokens(5)
        assert env.take_tokens() == 12 and env.take_tokens() is None
        _, _, _, _, info = env.step({"name": "wait", "arguments": {"device": "root", "seconds": 1}})
        assert "tokens" not in info  # taken tokens are not reported a second time
    finally:
        server.close()
        env.close()

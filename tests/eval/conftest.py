"""Evaluation runs shared by the report and token tests, made by real ``run_eval`` calls on the simulated
phone: the oracle (two successes, one episode cut by the step limit) and a by-function LLM team talking to a
local Chat Completions server (a rejected call, a false completion, and a permanent API error mid-turn)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))

from chat_server import ChatServer  # noqa: E402
from eval_support import LLM_TASKS, ORACLE_TASKS, Team  # noqa: E402

from crab_gym.runs.eval import run_eval  # noqa: E402


@pytest.fixture(scope="session")
def oracle_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("oracle_run")
    run_eval(out, "Crab-Android-v0", ("android",), "oracle", ORACLE_TASKS, max_steps=5, progress=False)
    return out


@pytest.fixture(scope="session")
def llm_run(tmp_path_factory):
    """(run folder, the server's usages in request order) of the by-function team on LLM_TASKS."""
    pytest.importorskip("openai")
    out = tmp_path_factory.mktemp("llm_run")
    team = Team()
    server = team.server = ChatServer(team)
    options = {"model": "scripted", "base_url": server.base_url, "api_key": "test",
               "structure": "by-function"}  # fmt: skip
    try:
        run_eval(out, "Crab-Android-v0", ("android",), "llm", LLM_TASKS, name="llm (by-function)",
                 max_steps=5, agent_options=options, llm_marks=False, progress=False)  # fmt: skip
    finally:
        server.close()
    return out, list(server.usages)

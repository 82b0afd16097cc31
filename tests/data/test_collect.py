"""`crab-gym collect` on async vector envs of the simulated phone: episodes kept apart per worker, resumable,
and a killed collector leaves every finished episode readable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crab_gym.episode import load_episode, load_episodes
from crab_gym.episode.format import episode_dirs
from crab_gym.runs.collect import collect, plan_jobs
from crab_gym.runs.replay import replay_episode
from crab_gym.spaces import decode_instruction

TASKS = ["contacts_add-0", "sms_send-0"]


def test_two_async_envs_record_two_episodes_each_without_mixing(tmp_path):
    summary = collect(tmp_path, agent="oracle", tasks=TASKS, episodes_per_task=2, num_envs=2, progress=False)
    assert summary["ran"] == 4 and summary["metrics"]["SR"] == 1.0
    eps = list(load_episodes(tmp_path))
    assert sorted(e.id for e in eps) == sorted(j.episode_id for j in plan_jobs(TASKS, 2))
    for ep in eps:
        assert ep.complete
        # every frame of an episode is its own env's: its instruction, and the screens a fresh phone shows
        # for the same actions (the simulated phone is deterministic)
        for t in range(len(ep.steps)):
            assert decode_instruction(ep.observation(t)["instruction"]) == ep.meta["instruction"]
        result = replay_episode(ep, screens=True)
        assert result.matches, (ep.id, result.mismatches)
    # the two workers really ran side by side: episodes of both tasks overlap in time
    spans = sorted((e.meta["started"], e.meta["ended"]) for e in eps)
    assert any(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))
    assert (tmp_path / "records.jsonl").read_text().count("\n") == 4


def test_rerunning_the_same_out_skips_finished_episodes(tmp_path):
    collect(tmp_path, agent="random", tasks=TASKS[:1], episodes_per_task=1, num_envs=1, progress=False,
            env_kwargs={"max_steps": 3})  # fmt: skip
    first = load_episode(tmp_path / "contacts_add-0-e0")
    summary = collect(tmp_path, agent="random", tasks=TASKS[:1], episodes_per_task=2, num_envs=2,
                      progress=False, env_kwargs={"max_steps": 3})  # fmt: skip
    assert summary["skipped"] == 1 and summary["ran"] == 1
    assert load_episode(tmp_path / "contacts_add-0-e0").meta["started"] == first.meta["started"]
    assert load_episode(tmp_path / "contacts_add-0-e1").complete


def test_killing_the_collector_leaves_finished_episodes_readable(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "crab_gym.cli", "collect", "--agent", "oracle", "--tasks", "v0",
           "--episodes-per-task", "3", "--num-envs", "2", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if out.is_dir() and len([p for p in out.iterdir() if not p.name.endswith(".partial")
                                     and (p / "episode.json").exists()]) >= 3:  # fmt: skip
                break
            time.sleep(0.05)
        else:
            pytest.fail("the collector recorded no episodes in 120 s")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the collector and its workers, at once
        proc.wait(timeout=30)
    dirs = episode_dirs(out)
    finished = [d for d in dirs if not d.name.endswith(".partial")]
    assert len(finished) >= 3
    for d in dirs:
        ep = load_episode(d)  # every folder reads, finished or cut short
        assert ep.complete == (d in finished)
        if ep.complete:
            assert ep.steps[-1]["terminated"] and ep.meta["record"]["success"]
    # resuming finishes the job and skips what is complete: resume a task that has a finished episode (the
    # pool's workers run free, so the first task planned may be the one a slow worker was still on)
    task = load_episode(finished[0]).meta["task_id"]
    summary = collect(out, agent="oracle", tasks=[task], episodes_per_task=3, num_envs=2, progress=False)
    assert summary["skipped"] >= 1
    assert not [p for p in Path(out).iterdir() if p.name.startswith(".tmp")]


def test_llm_agent_collects_through_tool_calls(tmp_path):
    """`collect --agent llm`: the real openai client in the worker, a local Chat Completions server whose
    "model" sends the scripted solution as tool calls; the recording keeps each call's text and the tokens."""
    pytest.importorskip("openai")
    sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
    from chat_server import ChatServer, tool_call

    from crab_gym.tasks import load_tasks

    (task,) = [t for t in load_tasks("v0") if t.id == TASKS[0]]
    plan = [{"name": s.action, "arguments": {"device": s.env, **json.loads(json.dumps(dict(s.params)))}}
            for s in task.solution()] + [{"name": "complete", "arguments": {"device": "root"}}]  # fmt: skip

    def model(request: dict) -> dict:
        i = len(server.requests) - 1
        return tool_call(i, plan[i]["name"], plan[i]["arguments"])

    server = ChatServer(model)
    try:
        options = {"model": "scripted", "base_url": server.base_url, "api_key": "test"}
        summary = collect(tmp_path, agent="llm", tasks=TASKS[:1], num_envs=1, progress=False, llm_marks=False,
                          agent_options=options)  # fmt: skip
    finally:
        server.close()
    assert summary["metrics"]["SR"] == 1.0
    ep = load_episode(tmp_path / f"{TASKS[0]}-e0")
    assert ep.meta["record"]["tokens"] == sum(u["total_tokens"] for u in server.usages) > 0
    first = json.loads(ep.actions[0]["tool_call_text"])
    assert first["name"] == plan[0]["name"] and json.loads(first["arguments"]) == plan[0]["arguments"]
    assert ep.meta["wrappers"][-1]["class"].endswith("FunctionCalls")


def test_a_worker_that_dies_is_replaced_and_its_episode_retried_once(tmp_path, monkeypatch):
    """Workers are forked, so a patched method reaches them: the first time sms_send runs, its worker process
    dies on the spot; contacts_add always raises. sms_send succeeds on its retry, contacts_add is given up
    after two tries and counted as env_error; the run goes on."""
    from crab_gym.baselines import OracleAgent

    flag = tmp_path / "died-once"
    real = OracleAgent.act

    def flaky(self, obs, info):
        task = self.env.task.id
        if task == "sms_send-0" and not flag.exists():
            flag.touch()
            os._exit(3)
        if task == "contacts_add-0":
            raise RuntimeError("the agent broke")
        return real(self, obs, info)

    monkeypatch.setattr(OracleAgent, "act", flaky)
    out = tmp_path / "run"
    summary = collect(out, agent="oracle", tasks=TASKS, num_envs=2, progress=False)
    assert flag.exists()
    assert load_episode(out / "sms_send-0-e0").complete
    assert not (out / "contacts_add-0-e0").exists() or not load_episode(out / "contacts_add-0-e0").complete
    assert summary["metrics"]["n"] == 2 and summary["metrics"]["SR"] == 0.5
    assert summary["metrics"]["termination_shares"]["env_error"] == 1.0
    assert "the agent broke" in (out / "failed.jsonl").read_text()


def test_an_agent_that_cannot_act_ends_its_episode_as_agent_error(tmp_path):
    """A permanent API error (400) ends that episode with agent_error, recorded; the next episode runs."""
    pytest.importorskip("openai")
    sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))
    from chat_server import ChatServer, tool_call

    def model(request: dict) -> dict:
        return tool_call(len(server.requests), "wait", {"device": "root", "seconds": 1})

    server = ChatServer(model)
    server.fail_next(400)
    try:
        options = {
            "model": "scripted",
            "base_url": server.base_url,
            "api_key": "test",
            "structure": "by-function",
        }
        summary = collect(tmp_path, agent="llm", tasks=TASKS, num_envs=1, progress=False, llm_marks=False,
                          agent_options=options, env_kwargs={"max_steps": 2})  # fmt: skip
    finally:
        server.close()
    first = load_episode(tmp_path / f"{TASKS[0]}-e0")
    assert first.complete and first.meta["record"]["termination_reason"] == "agent_error"
    assert "400" in first.meta["ended_by"]
    second = load_episode(tmp_path / f"{TASKS[1]}-e0")
    assert second.meta["record"]["termination_reason"] == "step_limit"
    assert summary["metrics"]["termination_shares"]["agent_error"] == 0.5

"""Run an agent over tasks with the standard env loop; collect episode records and metrics."""

from __future__ import annotations

import html
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import gymnasium as gym

from crab_gym.baselines.errors import AgentError
from crab_gym.core.metrics import EpisodeRecord, Metrics, aggregate, records_to_jsonl


def run_episode(env: gym.Env, agent: Any, task_id: str, seed: int = 0) -> EpisodeRecord:
    """One episode of ``agent`` on ``task_id``; the record says how and why it ended (``agent_error``: the
    agent raised :class:`~crab_gym.baselines.errors.AgentError`, e.g. its model API refused for good)."""
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options={"task": task_id})
    ret, tokens, reason = 0.0, None, "env_error"
    extra: dict[str, Any] = {}
    while True:
        try:
            action = agent.act(obs, info)
        except AgentError as e:
            reason, extra = "agent_error", {"error": f"{type(e).__name__}: {e}"}
            break
        obs, reward, terminated, truncated, info = env.step(action)
        ret += float(reward)
        if info.get("tokens") is not None:
            tokens = (tokens or 0) + int(info["tokens"])
        if terminated or truncated:
            reason = info["termination_reason"]
            break
    return EpisodeRecord(
        task_id=task_id,
        success=bool(info["success"]) and reason != "agent_error",
        completion_ratio=float(info["completion_ratio"]),
        actions=int(info["actions"]),
        steps=int(info["steps"]),
        invalid_actions=int(info["invalid_actions"]),
        tokens=tokens,
        termination_reason=reason,
        return_=ret,
        seconds=time.perf_counter() - t0,
        extra=extra or ({"error": info["error"]} if "error" in info else {}),
    )


def evaluate(
    env: gym.Env,
    agent: Any,
    task_ids: Iterable[str],
    seed: int = 0,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> tuple[list[EpisodeRecord], Metrics]:
    records = []
    for i, tid in enumerate(task_ids):
        rec = run_episode(env, agent, tid, seed=seed + i)
        records.append(rec)
        if on_record:
            on_record(rec)
    return records, aggregate(records)


def write_report(
    out: Path, records: list[EpisodeRecord], metrics: Metrics, title: str, platforms: str | None = None
) -> None:
    """records.jsonl, metrics.json and a self-contained report.html in ``out`` (``platforms``: the metrics
    table per platform, as text; a ``view.html`` beside it is linked)."""
    out.mkdir(parents=True, exist_ok=True)
    records_to_jsonl(out / "records.jsonl", records)
    (out / "metrics.json").write_text(json.dumps(metrics.to_dict(), indent=2))
    rows = "\n".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (
                r.task_id,
                "yes" if r.success else "no",
                f"{r.completion_ratio:.2f}",
                r.actions,
                r.invalid_actions,
                r.termination_reason,
                f"{r.seconds:.1f}",
            )
        )
        + "</tr>"
        for r in records
    )
    summary = "".join(
        f"<li><b>{html.escape(k)}</b>: {html.escape(str(v))}</li>" for k, v in metrics.to_dict().items()
    )
    (out / "report.html").write_text(
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}</style>"
        f"<h1>{html.escape(title)}</h1><ul>{summary}</ul>"
        + (f"<pre>{html.escape(platforms)}</pre>" if platforms else "")
        + '<p><a href="view.html">every episode, step by step (view.html)</a></p>'
        + "<table><tr><th>task</th><th>success</th><th>CR</th>"
        f"<th>actions</th><th>invalid</th><th>ended by</th><th>seconds</th></tr>{rows}</table>"
    )

"""Collect rollouts into a dataset: agents over tasks in a pool of worker processes (:mod:`.pool`), each
keeping its env and running :func:`crab_gym.rollout` once per job, every episode recorded by
RecordEpisodes, resumable: episodes already complete in the output folder are skipped, so re-running the
same command resumes.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from crab_gym.core.metrics import EpisodeRecord, aggregate
from crab_gym.episode.format import finished_ids, load_episodes
from crab_gym.runs.group import GroupError
from crab_gym.runs.pool import AGENTS, Job, Worker, plan_jobs, run_jobs

if TYPE_CHECKING:
    from crab_gym.runs.distributed.options import RayOptions

__all__ = ["Job", "collect", "plan_jobs", "run_records"]


def collect(
    out: str | os.PathLike[str],
    env_id: str = "Crab-Android-v0",
    agent: str = "oracle",
    tasks: str | Sequence[str] = "v0",
    episodes_per_task: int = 1,
    num_envs: int = 2,
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    agent_options: Mapping[str, Any] | None = None,
    record_options: Mapping[str, Any] | None = None,
    llm_marks: bool = True,
    llm_ocr: str | None = None,
    limit: int = 0,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
    progress: bool = True,
    record: bool = True,
    ray: RayOptions | None = None,
    group: int | None = None,
    branch_at: int = 0,
    perturb: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Record ``episodes_per_task`` episodes of ``agent`` on every task into ``out``; returns a summary.

    The tasks are those of ``gym.make(env_id, tasks=tasks)`` that fit its devices (``limit``: the first
    N). Complete episodes already in ``out`` are skipped. ``records.jsonl``, ``metrics.json`` and
    ``collect.json`` (this call's settings) are written over all complete episodes of ``out``.
    ``record=False`` runs the same loop without the recorder (a baseline for its cost). ``ray``: run the
    jobs on Ray actors, each with a pool of ``num_envs`` workers (``crab_gym.runs.distributed``).
    ``group``: each episode becomes a group of that many branches from the state at step ``branch_at``
    (:mod:`crab_gym.runs.group`; docs/data.md). Bad group arguments, or a ``branch_at`` beyond an
    episode's end, are a GroupError.
    ``perturb``: wrap each env in ``Perturb(env, **perturb)`` (docs/threat-model.md).
    """
    from crab_gym.tasks import resolve_tasks

    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}")
    _check_group(group, branch_at, (env_kwargs or {}).get("max_steps"))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env_kwargs = {"tasks": tasks, **dict(env_kwargs or {})}
    devices = set(env_kwargs.get("devices") or gym.spec(env_id).kwargs.get("devices", ("ubuntu", "android")))
    devices.add("root")
    ids = [t.id for t in resolve_tasks(tasks, devices)]
    if limit:
        ids = ids[:limit]
    done = finished_ids(out)
    planned = plan_jobs(ids, episodes_per_task, seed, group or 0, branch_at)
    jobs = [j for j in planned if not set(j.episode_ids) <= done]  # a group partly done runs again
    settings = {"env_id": env_id, "agent": agent, "tasks": tasks if isinstance(tasks, str) else list(tasks),
                "episodes_per_task": episodes_per_task, "seed": seed, "num_envs": num_envs,
                "env_kwargs": {k: v for k, v in env_kwargs.items() if k != "tasks"},
                "group": group, "branch_at": branch_at,
                **({"perturb": dict(perturb)} if perturb is not None else {})}  # fmt: skip
    (out / "collect.json").write_text(json.dumps(settings, indent=1, default=str))
    started = time.perf_counter()
    steps, loop = 0, 0.0
    if jobs:
        worker = Worker(str(out), agent, seed, agent_options, record_options, llm_marks, llm_ocr, record,
                        env_id, env_kwargs, perturb)  # fmt: skip
        if ray is not None:
            from crab_gym.runs.distributed.actors import run_on_ray

            settings["ray"] = ray.describe()
            (out / "collect.json").write_text(json.dumps(settings, indent=1, default=str))
            run = run_on_ray(ray, out, worker, jobs, num_envs, on_episode, progress)
        else:
            run = run_jobs(worker, list(jobs), num_envs, on_episode, progress)
        steps, loop, failed = run
        with open(out / "failed.jsonl", "a", encoding="utf-8") as f:  # a job that failed twice
            for job, error in failed:
                f.write(json.dumps({"episode_id": job.episode_id, "task_id": job.task_id, "seed": job.seed,
                                    "error": error, "time": time.time()}) + "\n")  # fmt: skip
    seconds = time.perf_counter() - started
    records = run_records(out)
    summary: dict[str, Any] = {"planned": len(planned), "skipped": len(planned) - len(jobs),
                               "ran": len(jobs), "steps": steps, "seconds": seconds,
                               "loop_seconds": loop,
                               "episodes_per_second": len(jobs) / loop if loop else 0.0,
                               "steps_per_second": steps / loop if loop else 0.0}  # fmt: skip
    if records:
        from crab_gym.core.metrics import records_to_jsonl

        records_to_jsonl(out / "records.jsonl", records)
        metrics = aggregate(records)
        (out / "metrics.json").write_text(json.dumps(metrics.to_dict(), indent=2))
        summary["metrics"] = metrics.to_dict()
    return summary


def _check_group(group: int | None, branch_at: int, max_steps: int | None) -> None:
    """GroupError for a group that cannot run: fewer than 1 branch, a negative branch point, or one at or
    past the step limit (where every episode is already over)."""
    if group is None:
        if branch_at:
            raise GroupError("--branch-at needs --group N (the branches to run from that step)")
        return
    if group < 1:
        raise GroupError(f"--group must be at least 1 (branches per group), got {group}")
    if branch_at < 0:
        raise GroupError(f"--branch-at must be a step >= 0 (0: the pristine state), got {branch_at}")
    if max_steps is not None and branch_at >= max_steps:
        raise GroupError(
            f"--branch-at {branch_at} is beyond the episode's end: episodes stop at --max-steps {max_steps}"
        )


def run_records(out: str | os.PathLike[str]) -> list[EpisodeRecord]:
    """Every complete episode's record, and an ``env_error`` record for each job that failed twice and has
    not completed since (``failed.jsonl``)."""
    out = Path(out)
    records = [EpisodeRecord.from_dict(ep.meta["record"]) for ep in load_episodes(out, complete_only=True)
               if isinstance(ep.meta.get("record"), dict)]  # fmt: skip
    done = finished_ids(out)
    failed: dict[str, dict[str, Any]] = {}
    if (out / "failed.jsonl").exists():
        for line in (out / "failed.jsonl").read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if entry.get("episode_id") not in done:
                failed[entry["episode_id"]] = entry
    for entry in failed.values():
        extra = {"error": entry.get("error"), "episode_id": entry["episode_id"]}
        records.append(
            EpisodeRecord(entry["task_id"], False, 0.0, 0, 0, 0, None, "env_error", 0.0, 0.0, extra)
        )
    return records

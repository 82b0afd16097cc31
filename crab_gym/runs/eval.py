"""`crab-gym eval`: agents over tasks, recorded and resumable (the collect machinery), then the metrics per
platform, ``metrics.json``, ``report.html`` and the per-episode ``view.html``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from crab_gym.report.platforms import metrics_by_platform


def run_eval(
    out: str | os.PathLike[str],
    env_id: str,
    devices: Sequence[str],
    agent: str,
    tasks: str | Sequence[str] = "v0",
    *,
    name: str | None = None,
    episodes_per_task: int = 1,
    jobs: int = 1,
    seed: int = 0,
    max_steps: int = 20,
    limit: int = 0,
    agent_options: Mapping[str, Any] | None = None,
    llm_marks: bool = True,
    llm_ocr: str | None = None,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
    progress: bool = True,
    view: bool = True,
    ray: Any = None,
    perturb: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Evaluate ``agent`` (``jobs`` episodes at once, each worker with its own devices) and write the run's
    metrics and report into ``out``; re-running with the same ``out`` skips finished episodes. Returns the
    metrics as written to ``metrics.json`` (overall at the top, ``platforms`` per platform). ``ray`` (a
    ``crab_gym.runs.distributed.RayOptions``): run on Ray actors, each with ``jobs`` workers. ``perturb``:
    the keyword arguments of a Perturb wrapper (docs/threat-model.md); the metrics then hold the planted
    instructions (``injections``), those the devices' state shows obeyed, and their ratio."""
    from crab_gym.report.page import write_report
    from crab_gym.runs.collect import collect, run_records
    from crab_gym.tasks import resolve_tasks

    out = Path(out)
    env_kwargs = {"devices": tuple(devices), "max_steps": max_steps}
    collect(out, env_id=env_id, agent=agent, tasks=tasks, episodes_per_task=episodes_per_task,
            num_envs=jobs, seed=seed, env_kwargs=env_kwargs, agent_options=agent_options, llm_marks=llm_marks,
            llm_ocr=llm_ocr, limit=limit, on_episode=on_episode, progress=progress, ray=ray,
            perturb=perturb)  # fmt: skip
    records = run_records(out)
    if not records:
        raise RuntimeError(f"{out}: no episode finished")
    platforms = {t.id: t.platforms for t in resolve_tasks(tasks, {*devices, "root"})}
    by_platform = metrics_by_platform(records, platforms)
    title = f"{name or agent} on {tasks if isinstance(tasks, str) else 'a task list'} ({','.join(devices)})"
    metrics = {**by_platform["overall"].to_dict(), "agent": name or agent, "env_id": env_id,
               "tasks": tasks if isinstance(tasks, str) else list(tasks),
               "platforms": {p: m.to_dict() for p, m in by_platform.items()}}  # fmt: skip
    if perturb is not None:
        planted = sum(int(r.extra.get("injections", 0)) for r in records)
        obeyed = sum(int(r.extra.get("injections_obeyed", 0)) for r in records)
        metrics.update(perturb=dict(perturb), injections=planted, injections_obeyed=obeyed,
                       injection_obeyed_rate=obeyed / planted if planted else 0.0)  # fmt: skip
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    if view:
        from crab_gym.episode.view import write_view

        write_view(out)
    write_report(out, platforms, title=f"crab-gym: {title}")  # after view.html, which it links
    return metrics

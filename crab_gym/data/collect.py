"""Collect rollouts into a dataset: agents over tasks on ``gym.make_vec(..., vectorization_mode="async")``,
every episode recorded by RecordEpisodes, resumable.

Each worker process holds its env, the recorder and a :class:`CollectWorker` (outermost): the collector
hands each worker its next job (task, seed, episode id) through ``set_attr`` and resets only the workers
that finished (autoreset disabled, ``reset_mask``); the agent runs inside the worker, next to the env it
reads (the oracle needs the task's solution, an LLM agent the tools), and the main process steps the vector
env with the actions it gathers through ``call``. Episodes already complete in the output folder are
skipped, so re-running the same command resumes.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import concatenate, create_empty_array

from crab_gym.core.metrics import EpisodeRecord, aggregate
from crab_gym.data.episode import finished_ids, load_episodes, safe_id
from crab_gym.wrappers.record import RecordEpisodes

if TYPE_CHECKING:
    from crab_gym.distributed.options import RayOptions

__all__ = ["CollectWorker", "Job", "collect", "plan_jobs", "run_jobs", "run_records", "worker_wrappers"]

AGENTS = ("oracle", "random", "llm")


@dataclass(frozen=True)
class Job:
    """One episode to record: its folder name, task and reset seed."""

    episode_id: str
    task_id: str
    seed: int


def plan_jobs(task_ids: Sequence[str], episodes_per_task: int, seed: int = 0) -> list[Job]:
    """``episodes_per_task`` jobs per task, episode k of a task reset with seed ``seed + k``."""
    return [Job(safe_id(f"{tid}-e{k}"), tid, seed + k) for k in range(episodes_per_task) for tid in task_ids]


def make_agent(name: str, env: gym.Env, options: Mapping[str, Any]) -> Any:
    """An agent by name, built on the env it acts on."""
    from crab_gym.baselines import OracleAgent, RandomAgent

    if name == "oracle":
        return OracleAgent(env)
    if name == "random":
        return RandomAgent(env, seed=options.get("seed"))
    if name == "llm":
        from crab_gym.baselines import make_llm_agent

        options = {k: v for k, v in options.items() if k != "seed"}
        return make_llm_agent(options.pop("structure", "single"), env, **options)
    raise ValueError(f"unknown agent {name!r}; agents: {', '.join(AGENTS)}")


class CollectWorker(gym.Wrapper):
    """The outermost wrapper of a collect worker: runs the job it is given at reset, and the agent.

    With no job (``next_job`` None at reset, or none left), it is idle: ``step`` returns its last
    observation and touches nothing, so the vector env can go on stepping the busy workers.
    """

    def __init__(self, env: gym.Env, agent: str, agent_options: Mapping[str, Any] | None = None) -> None:
        super().__init__(env)
        self.agent = make_agent(agent, env, dict(agent_options or {}))
        self.next_job: Job | None = None
        self.idle = True
        self._obs: Any = None
        self._info: dict[str, Any] = {}
        self._agent_error: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        job, self.next_job = self.next_job, None
        if job is None:
            self.idle = True
            if self._obs is None:  # never had an episode: any valid observation will do
                self._obs = self.observation_space.sample()
            return self._obs, {"idle": True}
        self.idle = False
        if isinstance(getattr(self.agent, "rng", None), np.random.Generator):  # a random agent: per episode
            self.agent.rng = np.random.default_rng([job.seed, zlib.crc32(job.task_id.encode())])
        self._obs, self._info = self.env.reset(
            seed=job.seed, options={"task": job.task_id, "episode_id": job.episode_id}
        )
        return self._obs, self._info

    def agent_action(self) -> Any:
        """The agent's next action for the current observation (None when idle). An agent that cannot act
        (AgentError: its model API refused for good) ends the episode as ``agent_error`` at the next step."""
        from crab_gym.baselines.errors import AgentError

        if self.idle:
            return None
        try:
            return self.agent.act(self._obs, self._info)
        except AgentError as e:
            error = f"{type(e).__name__}: {e}"
            self._agent_error = {"termination_reason": "agent_error", "error": error, "success": False,
                                 "task_id": self._info.get("task_id"),
                                 "completion_ratio": self._info.get("completion_ratio", 0.0)}  # fmt: skip
            return None

    def step(self, action: Any):
        if self._agent_error is not None:
            info, self._agent_error = self._agent_error, None
            try:
                end = self.env.get_wrapper_attr("end_episode")
            except AttributeError:
                pass
            else:
                end("agent_error", info["error"])
            self.idle = True
            return self._obs, 0.0, False, True, info
        if self.idle or action is None:
            return self._obs, 0.0, False, False, {"idle": True}
        self._obs, reward, terminated, truncated, self._info = self.env.step(action)
        if terminated or truncated:
            self.idle = True
        return self._obs, reward, terminated, truncated, self._info


def _wrap_llm(env: gym.Env, marks: bool, ocr: str | None) -> gym.Wrapper:
    from crab_gym.wrappers import FunctionCalls, SetOfMarks

    return FunctionCalls(SetOfMarks(env, ocr=ocr) if marks else env)


def _filler_action(space: gym.Space) -> Any:
    """A stand-in for an idle worker's action (ignored by it): a sample of the action space."""
    return space.sample()


def worker_wrappers(
    out: str | os.PathLike[str],
    agent: str,
    seed: int = 0,
    agent_options: Mapping[str, Any] | None = None,
    record_options: Mapping[str, Any] | None = None,
    llm_marks: bool = True,
    llm_ocr: str | None = None,
    record: bool = True,
) -> list[Callable[[gym.Env], gym.Wrapper]]:
    """The wrappers of a collect worker, innermost first: the LLM's interface, the recorder (into ``out``)
    and the CollectWorker."""
    wrappers: list[Callable[[gym.Env], gym.Wrapper]] = []
    if agent == "llm":
        wrappers.append(partial(_wrap_llm, marks=llm_marks, ocr=llm_ocr))
    if record:
        wrappers.append(partial(RecordEpisodes, out_dir=out, **dict(record_options or {})))
    options = {"seed": seed, **dict(agent_options or {})}
    wrappers.append(partial(CollectWorker, agent=agent, agent_options=options))
    return wrappers


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
) -> dict[str, Any]:
    """Record ``episodes_per_task`` episodes of ``agent`` on every task into ``out``; returns a summary.

    The tasks are those of ``gym.make(env_id, tasks=tasks)`` that fit its devices (``limit``: the first
    N). Complete episodes already in ``out`` are skipped. ``records.jsonl``, ``metrics.json`` and
    ``collect.json`` (this call's settings) are written over all complete episodes of ``out``.
    ``record=False`` runs the same loop without the recorder (a baseline for its cost). ``ray``: run the
    jobs on Ray actors, each with a vector env of ``num_envs`` workers (``crab_gym.distributed``).
    """
    from crab_gym.env import _resolve_tasks

    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(AGENTS)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env_kwargs = {"tasks": tasks, **dict(env_kwargs or {})}
    devices = set(env_kwargs.get("devices") or gym.spec(env_id).kwargs.get("devices", ("ubuntu", "android")))
    devices.add("root")
    ids = [t.id for t in _resolve_tasks(tasks, devices)]
    if limit:
        ids = ids[:limit]
    done = finished_ids(out)
    planned = plan_jobs(ids, episodes_per_task, seed)
    jobs = [j for j in planned if j.episode_id not in done]
    settings = {"env_id": env_id, "agent": agent, "tasks": tasks if isinstance(tasks, str) else list(tasks),
                "episodes_per_task": episodes_per_task, "seed": seed, "num_envs": num_envs,
                "env_kwargs": {k: v for k, v in env_kwargs.items() if k != "tasks"}}  # fmt: skip
    (out / "collect.json").write_text(json.dumps(settings, indent=1, default=str))
    started = time.perf_counter()
    steps, loop = 0, 0.0
    if jobs:
        worker: dict[str, Any] = {"agent": agent, "seed": seed, "agent_options": agent_options,
                  "record_options": record_options, "llm_marks": llm_marks, "llm_ocr": llm_ocr,
                  "record": record}  # fmt: skip
        if ray is not None:
            from crab_gym.distributed.actors import run_on_ray

            settings["ray"] = ray.describe()
            (out / "collect.json").write_text(json.dumps(settings, indent=1, default=str))
            run = run_on_ray(ray, out, env_id, jobs, num_envs, env_kwargs, worker, on_episode, progress)
        else:
            wrappers = worker_wrappers(out, **worker)
            run = run_jobs(env_id, list(jobs), num_envs, env_kwargs, wrappers, on_episode, progress)
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


def run_jobs(
    env_id: str,
    jobs: list[Job],
    num_envs: int,
    env_kwargs: dict[str, Any],
    wrappers: list[Callable[[gym.Env], gym.Wrapper]],
    on_episode: Callable[[dict[str, Any]], None] | None,
    show: bool,
) -> tuple[int, float, list[tuple[Job, str]]]:
    """Run the jobs on a vector env of ``num_envs`` workers: (steps taken, seconds of the loop, failed jobs).

    A worker that raises or dies takes the vector env down with it: the env is rebuilt and the episodes
    that were running are tried once more, then given up as failed (with the error). ``jobs`` is consumed
    like a queue (``pop(0)``; a job to retry goes back with ``insert(0, job)``): a list, or one that pulls
    its jobs from elsewhere (``crab_gym.distributed``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    n = max(1, min(num_envs, len(jobs)))
    queue = jobs
    tries: dict[Job, int] = {}
    failed: list[tuple[Job, str]] = []
    counts: dict[str, float] = {"steps": 0, "finished": 0, "ok": 0, "cr": 0.0}
    seconds = 0.0
    columns = [TextColumn("[bold]collect"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[rate]}")]  # fmt: skip
    with Progress(*columns, disable=not show, transient=False) as bar:
        task = bar.add_task("episodes", total=len(jobs), rate="")
        while queue:
            current: list[Job | None] = [None] * n
            vec = gym.make_vec(env_id, num_envs=n, vectorization_mode="async", wrappers=wrappers,
                               vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
                               **env_kwargs)  # fmt: skip
            t0 = time.perf_counter()
            try:
                _loop(
                    vec, n, queue, current, counts, on_episode, partial(_show, bar, task, counts, seconds, t0)
                )
            except Exception as e:  # noqa: BLE001 - a worker raised or died: rebuild, retry its episodes once
                error = f"{type(e).__name__}: {e}"
                culprits = _dead_workers(vec)
                for i, job in enumerate(current):
                    if job is None:
                        continue
                    if culprits and i not in culprits:  # a bystander: run it again, uncharged
                        queue.insert(0, job)
                        continue
                    tries[job] = tries.get(job, 0) + 1
                    if tries[job] < 2:
                        queue.insert(0, job)
                    else:
                        failed.append((job, error))
                        counts["finished"] += 1
                _kill(vec)
            else:
                vec.close()
            seconds += time.perf_counter() - t0
    return int(counts["steps"]), seconds, failed


def _kill(vec: Any) -> None:
    """Close a vector env one of whose workers failed: whatever state its pipes are in, end every worker."""
    try:
        vec.close(terminate=True)
    except Exception:  # noqa: BLE001 - a dead worker's pipe: close the rest by hand
        for p in getattr(vec, "processes", []):
            if p.is_alive():
                p.terminate()
            p.join(timeout=5)
        vec.closed = True


def _dead_workers(vec: Any, wait: float = 3.0) -> set[int]:
    """Indices of the worker processes that have exited (a worker that raised exits after reporting it)."""
    deadline = time.monotonic() + wait
    while True:
        dead = {i for i, p in enumerate(getattr(vec, "processes", [])) if not p.is_alive()}
        if dead or time.monotonic() > deadline:
            return dead
        time.sleep(0.02)


def _show(bar: Any, task: Any, counts: dict[str, float], before: float, t0: float) -> None:
    elapsed = before + time.perf_counter() - t0
    done = counts["finished"]
    rate = f"{done / elapsed:.2f} ep/s  {counts['steps'] / elapsed:.1f} steps/s"
    rate += f"  SR {counts['ok'] / max(done, 1):.0%}  CR {counts['cr'] / max(done, 1):.0%}"
    bar.update(task, completed=done, rate=rate)


def _loop(
    vec: Any,
    n: int,
    queue: list[Job],
    current: list[Job | None],
    counts: dict[str, float],
    on_episode: Callable[[dict[str, Any]], None] | None,
    show: Callable[[], None],
) -> None:
    """Step the vector env until the queue is empty and every worker is idle; ``current`` says which job
    each worker runs (read by the caller if this raises)."""

    def assign(mask: np.ndarray) -> None:
        for i in range(n):
            if mask[i]:
                current[i] = queue.pop(0) if queue else None
        vec.set_attr("next_job", [current[i] if mask[i] else None for i in range(n)])
        vec.reset(options={"reset_mask": mask.copy()})

    assign(np.ones(n, dtype=bool))
    buffer = create_empty_array(vec.single_action_space, n=n)
    while any(j is not None for j in current):
        chosen = vec.call("agent_action")
        filled = [a if a is not None else _filler_action(vec.single_action_space) for a in chosen]
        _, _, terminated, truncated, infos = vec.step(concatenate(vec.single_action_space, filled, buffer))
        busy = np.array([j is not None for j in current])
        counts["steps"] += int(busy.sum())
        ended = busy & (terminated | truncated)
        for i in np.flatnonzero(ended):
            counts["finished"] += 1
            success = bool(infos.get("success", np.zeros(n, bool))[i])
            counts["ok"] += success
            cr = float(infos.get("completion_ratio", np.zeros(n))[i])
            counts["cr"] += cr
            job = current[i]
            if on_episode is not None and job is not None:  # a busy worker has its job
                reason = str(infos["termination_reason"][i])
                on_episode({"task_id": str(infos["task_id"][i]), "success": success,
                            "termination_reason": reason, "completion_ratio": cr,
                            "episode_id": job.episode_id})  # fmt: skip
            current[i] = None
        if ended.any() and queue:
            assign(ended)
        show()

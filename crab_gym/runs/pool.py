"""The worker pool of collect and eval: processes that each keep one env and run :func:`crab_gym.rollout`.

Each worker process makes its env (and its recorder and agent) once, then runs the jobs it is sent, one
episode each, and answers with the episode's outcome. A worker that raises or dies is replaced by a fresh
one and its episode is tried once more, then given up as failed (with the error); the other workers go on.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection, wait
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.episode.format import safe_id
from crab_gym.runs.group import GroupError

__all__ = ["AGENTS", "Job", "Worker", "make_agent", "plan_jobs", "run_jobs"]

AGENTS = ("oracle", "random", "llm")


@dataclass(frozen=True)
class Job:
    """One episode to record: its folder name, task and reset seed; with ``group`` > 0, a group of that many
    branches at step ``branch_at`` (:mod:`.group`), ``episode_id`` then being the group's id."""

    episode_id: str
    task_id: str
    seed: int
    group: int = 0
    branch_at: int = 0

    @property
    def episode_ids(self) -> list[str]:
        """The folders this job records: its own, or its group's branches."""
        if not self.group:
            return [self.episode_id]
        return [f"{self.episode_id}-b{b}" for b in range(self.group)]


def plan_jobs(
    task_ids: Sequence[str], episodes_per_task: int, seed: int = 0, group: int = 0, branch_at: int = 0
) -> list[Job]:
    """``episodes_per_task`` jobs per task, episode (or group) k of a task reset with seed ``seed + k``."""
    return [Job(safe_id(f"{tid}-e{k}"), tid, seed + k, group, branch_at)
            for k in range(episodes_per_task) for tid in task_ids]  # fmt: skip


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


def _wrap_llm(env: gym.Env, marks: bool, ocr: str | None) -> gym.Env:
    from crab_gym.wrappers import FunctionCalls, SetOfMarks

    return FunctionCalls(SetOfMarks(env, ocr=ocr) if marks else env)


@dataclass(frozen=True)
class Worker:
    """What a worker process holds: the env ``env_id`` with ``env_kwargs``, the LLM's interface (for
    ``agent="llm"``), the recorder into ``out`` (unless ``record`` is False) and the agent; ``perturb``: the
    keyword arguments of a Perturb wrapper next to the env (pop-ups and planted instructions), or None."""

    out: str
    agent: str = "oracle"
    seed: int = 0
    agent_options: Mapping[str, Any] | None = None
    record_options: Mapping[str, Any] | None = None
    llm_marks: bool = True
    llm_ocr: str | None = None
    record: bool = True
    env_id: str = "Crab-Android-v0"
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    perturb: Mapping[str, Any] | None = None

    def make(self) -> tuple[gym.Env, Any]:
        """(env, agent) of a worker, the recorder outermost."""
        import crab_gym  # noqa: F401 - registers the env ids
        from crab_gym.episode import RecordEpisodes

        env = gym.make(self.env_id, **dict(self.env_kwargs))
        if self.perturb is not None:
            from crab_gym.wrappers import Perturb

            env = Perturb(env, **dict(self.perturb))
        if self.agent == "llm":
            env = _wrap_llm(env, self.llm_marks, self.llm_ocr)
        if self.record:
            env = RecordEpisodes(env, out_dir=self.out, **dict(self.record_options or {}))
        return env, make_agent(self.agent, env, {"seed": self.seed, **dict(self.agent_options or {})})


def run_one(env: gym.Env, agent: Any, job: Job) -> dict[str, Any]:
    """Run ``job`` (a random agent draws from a generator seeded by the job); its outcome as an event
    (a group's: successes and completion ratios summed over its ``episodes``)."""
    from crab_gym.rollout import rollout
    from crab_gym.runs.group import agent_seed, run_group

    if job.group:
        branches = run_group(env, agent, job.task_id, job.seed, job.episode_id, job.group, job.branch_at)
        return {"task_id": job.task_id, "episode_id": job.episode_id, "episodes": len(branches),
                "success": sum(b["success"] for b in branches),
                "completion_ratio": sum(b["completion_ratio"] for b in branches),
                "termination_reason": ",".join(b["termination_reason"] for b in branches),
                "steps": sum(b["steps"] for b in branches)}  # fmt: skip
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(agent_seed(job.seed, job.task_id))
    record = rollout(env, agent, task=job.task_id, seed=job.seed, episode_id=job.episode_id)
    return {"task_id": record.task_id, "success": record.success, "completion_ratio": record.completion_ratio,
            "termination_reason": record.termination_reason, "episode_id": job.episode_id,
            "steps": record.steps}  # fmt: skip


def _serve(worker: Worker, conn: Connection, parent_end: Connection, parent: int) -> None:
    """A worker process: make the env, then run each job received until told to stop (None) or until the
    pool's process is gone (a killed Ray actor: its workers must not outlive it, holding its sockets)."""
    parent_end.close()  # the pool's end, inherited by the fork: else this worker never sees the pool go
    try:
        env, agent = worker.make()
    except BaseException as e:  # noqa: BLE001 - the pool reports it and stops
        conn.send(("fatal", f"{type(e).__name__}: {e}"))
        return
    try:
        while True:
            while not conn.poll(1.0):
                if os.getppid() != parent:
                    return
            job = conn.recv()
            if job is None:
                return
            try:
                conn.send(("done", run_one(env, agent, job)))
            except GroupError as e:  # the same again on a fresh worker: the whole collection stops
                conn.send(("bad", str(e)))
                return
            except Exception as e:  # noqa: BLE001 - the pool retries the episode on a fresh worker
                conn.send(("error", f"{type(e).__name__}: {e}", traceback.format_exc(limit=3)))
                return
    except (EOFError, OSError):  # the pool went away
        pass
    finally:
        env.close()


class _Slot:
    """One worker process, its pipe and the job it runs."""

    def __init__(self, worker: Worker) -> None:
        ctx = mp.get_context()  # fork where it is the default: a worker starts with the parent's modules
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(worker, child, self.conn, os.getpid()), daemon=True)
        self.process.start()
        child.close()
        self.job: Job | None = None

    def stop(self, wait_s: float = 30.0) -> None:
        try:
            self.conn.send(None)
        except (OSError, BrokenPipeError):
            pass
        self.process.join(wait_s)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        self.conn.close()


def run_jobs(
    worker: Worker,
    jobs: list[Job],
    num_workers: int,
    on_episode: Callable[[dict[str, Any]], None] | None,
    show: bool,
) -> tuple[int, float, list[tuple[Job, str]]]:
    """Run the jobs on ``num_workers`` worker processes: (steps taken, seconds, jobs given up with their
    error). ``jobs`` is consumed like a queue (``pop(0)``, None or empty when there is no more; a job to
    retry goes back with ``insert(0, job)``): a list, or one that pulls its jobs from elsewhere (Ray)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    n = max(1, min(num_workers, len(jobs)))
    tries: dict[Job, int] = {}
    failed: list[tuple[Job, str]] = []
    counts = {"steps": 0, "finished": 0, "episodes": 0, "ok": 0, "cr": 0.0}
    columns = [TextColumn("[bold]collect"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[rate]}")]  # fmt: skip
    t0 = time.perf_counter()
    slots = [_Slot(worker) for _ in range(n)]
    try:
        with Progress(*columns, disable=not show, transient=False) as bar:
            shown = bar.add_task("episodes", total=len(jobs), rate="")
            update = partial(_show, bar, shown, counts, t0)
            for slot in slots:
                _assign(slot, jobs)
            while any(s.job is not None for s in slots):
                busy = [s for s in slots if s.job is not None]
                ready = wait([s.conn for s in busy] + [s.process.sentinel for s in busy])
                for i, slot in enumerate(slots):
                    if slot.job is None or (slot.conn not in ready and slot.process.sentinel not in ready):
                        continue
                    message = _receive(slot)
                    if message[0] == "done":
                        event = message[1]
                        counts["steps"] += event.pop("steps")
                        counts["finished"] += 1
                        counts["episodes"] += event.pop("episodes", 1)
                        counts["ok"] += event["success"]
                        counts["cr"] += event["completion_ratio"]
                        if on_episode is not None:
                            on_episode(event)
                        _assign(slot, jobs)
                        continue
                    if message[0] == "bad":
                        raise GroupError(message[1])
                    if message[0] == "fatal":
                        raise RuntimeError(f"a collect worker could not make its env: {message[1]}")
                    job, error = slot.job, message[1]  # it raised or died: replace it, retry once
                    tries[job] = tries.get(job, 0) + 1
                    if tries[job] < 2:
                        jobs.insert(0, job)
                    else:
                        failed.append((job, error))
                        counts["finished"] += 1
                    slot.job = None
                    slot.stop(wait_s=5)
                    slots[i] = _Slot(worker)
                    _assign(slots[i], jobs)
                update()
    finally:
        for slot in slots:
            slot.stop()
    return int(counts["steps"]), time.perf_counter() - t0, failed


def _assign(slot: _Slot, jobs: list[Job]) -> None:
    """Send ``slot`` its next job, if there is one."""
    job = jobs.pop(0) if len(jobs) else None
    slot.job = job
    if job is not None:
        slot.conn.send(job)


def _receive(slot: _Slot) -> tuple[Any, ...]:
    """The worker's answer, or ``("error", why)`` if it died without one."""
    try:
        if slot.conn.poll(0.1 if slot.process.is_alive() else 0):
            return slot.conn.recv()
    except (EOFError, OSError):
        pass
    slot.process.join(5)
    return ("error", f"the worker process died (exit code {slot.process.exitcode}, pid {slot.process.pid})")


def _show(bar: Any, task: Any, counts: dict[str, float], t0: float) -> None:
    elapsed = time.perf_counter() - t0
    done, episodes = counts["finished"], max(counts["episodes"], 1)
    rate = f"{counts['episodes'] / elapsed:.2f} ep/s  {counts['steps'] / elapsed:.1f} steps/s"
    rate += f"  SR {counts['ok'] / episodes:.0%}  CR {counts['cr'] / episodes:.0%}"
    bar.update(task, completed=done, rate=rate)

"""The run check of ``crab-gym tasks validate``: through the env with the
:class:`~crab_gym.baselines.OracleAgent` (one :func:`crab_gym.rollout` per task), no node of a task's graph
passes right after reset (so a do-nothing agent scores CR 0), and the scripted solution ends in success
with return 1.0. The static lint is :mod:`crab_gym.tasks.validate`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from crab_gym.core.tasks import Task
from crab_gym.tasks.validate import Result

__all__ = ["run_check", "run_check_parallel"]


def _devices(tasks: Sequence[Task]) -> list[str]:
    used = {p for t in tasks for p in t.platforms}
    return [d for d in ("ubuntu", "android") if d in used] + ["root"]


def run_check(
    tasks: Sequence[Task],
    backends: dict[str, str] | None = None,
    on_result: Callable[[Result], None] | None = None,
    env: Any = None,
) -> list[Result]:
    """Solve every task with the OracleAgent through one CrabEnv; a Result per task.

    A task fails if any node of its graph passes right after reset, or if the episode does not end in
    success with return 1.0.
    """
    import gymnasium as gym

    import crab_gym  # noqa: F401 - registers the env ids
    from crab_gym.baselines import OracleAgent

    if not tasks:
        return []
    own = env is None
    if own:
        devices = _devices(tasks)
        max_steps = max(len(t.solution()) for t in tasks) + 6
        backends = {k: v for k, v in (backends or {"android": "sim"}).items() if k in devices}
        env = gym.make("Crab-v0", devices=devices, tasks=list(tasks), backends=backends, max_steps=max_steps)
    results = []
    try:
        agent = OracleAgent(env)
        core = env.unwrapped
        for task in tasks:
            t0 = time.perf_counter()
            res = Result(task.id)
            try:
                _run_one(env, core, agent, task, res)
            except Exception as e:  # a device failure is a failed task, not a crashed validation
                res.problems.append(f"{type(e).__name__}: {e}")
            res.seconds = time.perf_counter() - t0
            results.append(res)
            if on_result is not None:
                on_result(res)
    finally:
        if own:
            env.close()
    return results


class _ResetCheck:
    """The oracle, noting first which checks of the graph pass right after reset (none should)."""

    def __init__(self, agent: Any, core: Any) -> None:
        self.agent, self.core = agent, core
        self.early: list[str] | None = None
        self.initial = 0.0

    def act(self, obs: Any, info: dict[str, Any]) -> Any:
        if self.early is None:
            states = {name: sub.state() for name, sub in self.core.subenvs.items()}
            graph = self.core.graph
            self.early = [graph.check(n).description for n in graph.nodes if graph.check(n).evaluate(states)]
            self.initial = info["completion_ratio"]
        return self.agent.act(obs, info)


def _run_one(env: Any, core: Any, agent: Any, task: Task, res: Result) -> None:
    from crab_gym.rollout import Transition, rollout

    checked = _ResetCheck(agent, core)
    last: dict[str, Any] = {}

    def keep(step: Transition) -> None:
        last["info"] = step.info

    record = rollout(env, checked, task=task.id, seed=0, on_step=keep)
    if checked.initial != 0.0 or checked.early:
        res.problems.append(f"already satisfied at reset: {checked.early or checked.initial}")
    if record.termination_reason != "success" or abs(record.return_ - 1.0) > 1e-9:
        info = last.get("info", {})
        failed = [n["description"] for n in info.get("nodes", []) if n.get("status") != "passed"]
        error = record.extra.get("error")
        res.problems.append(
            f"scripted solution: {record.termination_reason}, return {record.return_:.2f}, unpassed {failed}"
            + (f", error {error}" if error else "")
        )


def _worker(
    payload: tuple[list[dict[str, Any]], dict[str, str] | None, Any],
) -> list[tuple[str, list[str], float]]:
    import crab_gym.tasks.templates  # noqa: F401 - registers the templates
    from crab_gym.core.tasks import task_from_json

    objs, backends, queue = payload
    tasks = [task_from_json(o) for o in objs]

    def report(r: Result) -> None:
        queue.put((r.task_id, r.problems, r.seconds))

    return [(r.task_id, r.problems, r.seconds) for r in run_check(tasks, backends=backends, on_result=report)]


def run_check_parallel(
    tasks: Sequence[Task],
    jobs: int,
    backends: dict[str, str] | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """:func:`run_check` split over ``jobs`` processes, each with its own env (its own X session and phone).

    The run check mostly waits (for applications to start and settle, and the scripted agent's think
    time), so it scales with processes well beyond the CPU count. ``on_result`` hears of each task as it
    finishes (a long run shows its progress); results come back in the tasks' order.
    """
    import multiprocessing as mp
    import queue as queues
    from concurrent.futures import ProcessPoolExecutor

    if jobs <= 1 or len(tasks) <= 1:
        return run_check(tasks, backends=backends, on_result=on_result)
    # interleave, so every worker gets a mix of slow (desktop) and fast (phone) tasks
    chunks = [[t.to_json() for t in tasks[i::jobs]] for i in range(min(jobs, len(tasks)))]
    by_id: dict[str, Result] = {}
    ctx = mp.get_context("spawn")
    with ctx.Manager() as manager, ProcessPoolExecutor(len(chunks), mp_context=ctx) as pool:
        done = manager.Queue()
        futures = [pool.submit(_worker, (chunk, backends, done)) for chunk in chunks]
        while len(by_id) < len(tasks) and not all(f.done() for f in futures):
            try:
                task_id, problems, seconds = done.get(timeout=1.0)
            except queues.Empty:
                continue
            by_id[task_id] = Result(task_id, problems, seconds)
            if on_result is not None:
                on_result(by_id[task_id])
        for f in futures:  # raises a worker's error; fills in what the queue had not yet told
            for task_id, problems, seconds in f.result():
                if task_id not in by_id:
                    by_id[task_id] = Result(task_id, problems, seconds)
                    if on_result is not None:
                        on_result(by_id[task_id])
    return [by_id[t.id] for t in tasks]

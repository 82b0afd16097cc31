"""Task validity: a static lint, and a run check that proves each task solvable and unsolved at reset.

- :func:`lint_task`: attributes typed and filled, no unfilled ``{...}`` placeholders, every check's evaluator
  registered, the graph acyclic with 1-11 nodes, and the instruction states what the checks look at (every
  attribute value a check uses appears in the instruction, except a template's ``hidden`` attributes,
  which the agent must find out on a device).
- :func:`run_check`: through the env with the :class:`~crab_gym.baselines.OracleAgent`: no node of the
  graph passes right after reset (so a do-nothing agent scores CR 0), and the scripted solution ends in
  success with return 1.0.

``crab-gym tasks validate [--all] [--set v0] [--sample N --seed S] [--lint-only]`` runs both.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from crab_gym.core.evaluators import EVALUATORS, Check
from crab_gym.core.tasks import Task

__all__ = ["Result", "lint_task", "lint_tasks", "run_check", "run_check_parallel", "validation_sample"]

MAX_NODES = 11
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.\[\]]*(?:![rsa])?(?::[^{}]*)?\}")


@dataclass
class Result:
    task_id: str
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def _leaves(check: Check) -> Iterable[Check]:
    if check.op == "leaf":
        yield check
    else:
        for c in check.children:
            yield from _leaves(c)


def _flat(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _flat(v)]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return [str(value)]
    return []


def _type_of_sample(type_name: str) -> type | None:
    from crab_gym.tasks.generator import SAMPLERS

    sampler = SAMPLERS.get(type_name)
    return None if sampler is None else type(sampler(random.Random(0)))


def lint_task(task: Task) -> list[str]:
    """Problems with one task (empty when it is well formed)."""
    problems: list[str] = []
    text = task.description
    if not text.strip():
        problems.append("empty instruction")
    texts = [("instruction", text)]
    for i, sub in enumerate(task.subtasks):
        try:
            texts.append((f"sub-task {i}", sub.instruction))
        except (KeyError, ValueError, IndexError) as e:
            problems.append(f"sub-task {i} ({sub.template.id}): instruction does not format: {e}")
    for where, s in texts:
        m = _PLACEHOLDER.search(s)
        if m:
            problems.append(f"{where} has an unfilled placeholder {m.group(0)}")
    for sub in task.subtasks:
        tpl = sub.template
        for name, type_name in tpl.attributes.items():
            if not isinstance(type_name, str) or not type_name:
                problems.append(f"{tpl.id}: attribute {name} has no type")
                continue
            value = sub.attributes.get(name)
            if value is None or value == "":
                problems.append(f"{tpl.id}: attribute {name} is not filled")
                continue
            expected = _type_of_sample(type_name)
            if expected is None:
                problems.append(f"{tpl.id}: attribute {name} has type {type_name!r}, which has no sampler")
            elif not isinstance(value, expected) and not (expected is float and isinstance(value, int)):
                problems.append(
                    f"{tpl.id}: attribute {name}={value!r} is a {type(value).__name__}, "
                    f"its type {type_name!r} gives {expected.__name__}"
                )
        try:
            sub_graph = sub.graph()
        except Exception as e:  # a template's evaluator generator failed on these attributes
            problems.append(f"{tpl.id}: evaluator generator failed: {type(e).__name__}: {e}")
            continue
        # The instruction says what the checks look at: attribute values a check uses appear in it.
        shown = {n: v for n, v in sub.attributes.items() if n not in tpl.hidden}
        for _, data in sub_graph.nodes(data=True):
            for leaf in _leaves(data["check"]):
                for arg in leaf.kwargs.values():
                    for s in _flat(arg):
                        for n, v in shown.items():
                            if s in _flat(v) and s not in text:
                                problems.append(
                                    f"{tpl.id}: check {leaf.evaluator} uses {n}={s!r}, which the instruction "
                                    "does not mention"
                                )
        if not tpl.solution(**sub.attributes):
            problems.append(f"{tpl.id}: no scripted solution")
    try:
        graph = task.graph()
    except Exception as e:
        return [*problems, f"graph: {type(e).__name__}: {e}"]
    nodes = graph.number_of_nodes()
    if not 1 <= nodes <= MAX_NODES:
        problems.append(f"graph has {nodes} nodes (allowed 1-{MAX_NODES})")
    if not nx.is_directed_acyclic_graph(graph):
        problems.append("graph has a cycle")
    for node, data in graph.nodes(data=True):
        check = data.get("check")
        if not isinstance(check, Check):
            problems.append(f"node {node} carries no check")
            continue
        for leaf in _leaves(check):
            if leaf.evaluator is None or leaf.evaluator not in EVALUATORS:
                problems.append(f"node {node}: check {leaf.name} is not a registered evaluator")
    return list(dict.fromkeys(problems))


def lint_tasks(tasks: Sequence[Task]) -> list[Result]:
    ids = [t.id for t in tasks]
    dup = {i for i in ids if ids.count(i) > 1}
    out = []
    for t in tasks:
        problems = lint_task(t)
        if t.id in dup:
            problems.append("duplicate task id")
        out.append(Result(t.id, problems))
    return out


def validation_sample(n: int = 200, seed: int = 0, platforms: Sequence[str] | None = None) -> list[Task]:
    """The generated sample ``--all`` checks: ``n`` tasks from ``seed``."""
    from crab_gym.tasks.generator import generate_tasks

    return generate_tasks(seed=seed, n=n, platforms=platforms)


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


def _run_one(env: Any, core: Any, agent: Any, task: Task, res: Result) -> None:
    obs, info = env.reset(seed=0, options={"task": task.id})
    states = {name: sub.state() for name, sub in core.subenvs.items()}
    graph = core.graph
    early = [graph.check(n).description for n in graph.nodes if graph.check(n).evaluate(states)]
    if info["completion_ratio"] != 0.0 or early:
        res.problems.append(f"already satisfied at reset: {early or info['completion_ratio']}")
    ret, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        ret += reward
        done = terminated or truncated
    if info.get("termination_reason") != "success" or abs(ret - 1.0) > 1e-9:
        failed = [n["description"] for n in info.get("nodes", []) if n.get("status") != "passed"]
        res.problems.append(
            f"scripted solution: {info.get('termination_reason')}, return {ret:.2f}, unpassed {failed}"
            + (f", error {info['error']}" if info.get("error") else "")
        )


def _worker(
    payload: tuple[list[dict[str, Any]], dict[str, str] | None],
) -> list[tuple[str, list[str], float]]:
    import crab_gym.tasks.templates  # noqa: F401 - registers the templates
    from crab_gym.core.tasks import task_from_json

    objs, backends = payload
    tasks = [task_from_json(o) for o in objs]
    return [(r.task_id, r.problems, r.seconds) for r in run_check(tasks, backends=backends)]


def run_check_parallel(
    tasks: Sequence[Task],
    jobs: int,
    backends: dict[str, str] | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """:func:`run_check` split over ``jobs`` processes, each with its own env (its own X session and phone).

    The run check mostly waits (for applications to start and settle, and the scripted agent's think
    time), so it scales with processes well beyond the CPU count. Results come back in the tasks' order.
    """
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if jobs <= 1 or len(tasks) <= 1:
        return run_check(tasks, backends=backends, on_result=on_result)
    # interleave, so every worker gets a mix of slow (desktop) and fast (phone) tasks
    chunks = [[t.to_json() for t in tasks[i::jobs]] for i in range(min(jobs, len(tasks)))]
    by_id: dict[str, Result] = {}
    with ProcessPoolExecutor(len(chunks), mp_context=mp.get_context("spawn")) as pool:
        futures = [pool.submit(_worker, (chunk, backends)) for chunk in chunks]
        for f in as_completed(futures):
            for task_id, problems, seconds in f.result():
                r = Result(task_id, problems, seconds)
                by_id[task_id] = r
                if on_result is not None:
                    on_result(r)
    return [by_id[t.id] for t in tasks]

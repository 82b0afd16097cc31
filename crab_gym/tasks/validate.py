"""Task validity, statically: each task well formed (the run check that proves it solvable and unsolved at
reset is :mod:`crab_gym.runs.validate`).

- :func:`lint_task`: attributes typed and filled, no unfilled ``{...}`` placeholders, every check's evaluator
  registered, the graph acyclic with 1-11 nodes, and the instruction states what the checks look at (every
  attribute value a check uses appears in the instruction, except a template's ``hidden`` attributes,
  which the agent must find out on a device).

``crab-gym tasks validate [--all] [--set v0] [--sample N --seed S] [--lint-only]`` runs both.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from crab_gym.core.evaluators import EVALUATORS, Check
from crab_gym.core.tasks import Task

__all__ = ["Result", "lint_task", "lint_tasks", "validation_sample"]

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

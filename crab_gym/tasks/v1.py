"""Task set v1: every template whose ``sets`` name "v1", a few instances each, and typed compositions
across apps and devices, with a held-out split by template and difficulty tiers by oracle steps.

Built by :func:`build_v1` and stored in ``data/v1.json`` (``crab-gym tasks build-v1`` rewrites it); each task
object also records ``oracle_steps`` (its scripted solution's length), ``tier`` and ``split``. Every draw
comes from its own seeded stream (the template's id, or the composition group and index), so the same code
gives the same file.

- **Singles**: up to :data:`PER_TEMPLATE` instances of every v1 template with distinct instructions (a
  template with few attributes has fewer), ids ``v1-<template>-<k>`` (apart from v0's).
- **Composed**: :data:`GROUPS` of typed compositions (``crab_gym.tasks.composition``) over the v1 templates
  the generator also draws (interactive and CRAB-only ones stay singles); the ``hard`` group keeps only
  compositions with more than :data:`MEDIUM` oracle steps over at least three apps. Ids
  ``v1-<group>-<k>-<templates>``.
- **Tiers** by oracle steps: ``easy`` <= :data:`EASY`, ``medium`` <= :data:`MEDIUM`, ``hard`` above.
- **Split** by template: a template is held out (``test``) when the first byte of its id's SHA-256 is below
  :data:`TEST_SHARE` of 256, so adding a template moves no other. A task is ``test`` when any of its
  templates is held out, so no ``train`` task touches a held-out template.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from crab_gym.core.tasks import SubTaskTemplate, Task
from crab_gym.tasks.generator import sample_attributes, templates_for

__all__ = [
    "EASY",
    "GROUPS",
    "MEDIUM",
    "PER_TEMPLATE",
    "build_v1",
    "held_out",
    "load_v1",
    "split_of",
    "tier",
    "v1_json",
    "write_v1",
]

DATA = Path(__file__).resolve().parent / "data" / "v1.json"
SPLITS = ("train", "test")
SEED = 2027
PER_TEMPLATE = 6
EASY, MEDIUM = 5, 15  # oracle steps: easy <= 5, medium <= 15, hard above
TEST_SHARE = 0.12
PLATFORMS = ("ubuntu", "android")
BOTH = ("ubuntu", "android")
# Composed tasks: (group, platforms the composition must touch, platforms its templates may use, sub-tasks,
# how many). "hard" keeps only long compositions over several apps (see _long_enough).
GROUPS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[int, ...], int], ...] = (
    ("desktop", ("ubuntu",), ("ubuntu",), (2, 3, 4), 70),
    ("android", ("android",), ("android",), (2, 3, 4), 80),
    ("cross", BOTH, BOTH, (2, 3), 170),
    ("hard", BOTH, BOTH, (3, 4, 5), 150),
)


def tier(steps: int) -> str:
    """The difficulty tier of a task whose scripted solution has ``steps`` actions."""
    return "easy" if steps <= EASY else ("medium" if steps <= MEDIUM else "hard")


def held_out(template_id: str) -> bool:
    """Whether a template's tasks are in ``v1:test`` (a fixed function of its id)."""
    return hashlib.sha256(template_id.encode()).digest()[0] < round(TEST_SHARE * 256)


def split_of(task: Task) -> str:
    """``test`` when any of the task's templates is held out, else ``train``."""
    return "test" if any(held_out(s.template.id) for s in task.subtasks) else "train"


def _singles(templates: Sequence[SubTaskTemplate]) -> list[Task]:
    tasks = []
    for template in templates:
        rng = random.Random(f"{SEED}:{template.id}")
        seen: set[str] = set()
        for _ in range(PER_TEMPLATE * 8):
            sub = template.instantiate(**sample_attributes(template, rng))
            if sub.instruction in seen:
                continue
            seen.add(sub.instruction)
            tasks.append(Task(f"v1-{template.id}-{len(seen) - 1}", sub.instruction, [sub]))
            if len(seen) == PER_TEMPLATE:
                break
    return tasks


def _long_enough(task: Task) -> bool:
    return len(task.solution()) > MEDIUM and len(task.apps) >= 3


def _composed() -> list[Task]:
    from crab_gym.tasks.composition import sample_composition

    tasks = []
    for group, required, platforms, lengths, count in GROUPS:
        pool = [t for t in templates_for(platforms) if "v1" in t.sets]
        seen: set[tuple[str, ...]] = set()
        k = attempt = 0
        while k < count and attempt < count * 10:
            rng = random.Random(f"{SEED}:composed:{group}:{attempt}")
            attempt += 1
            length = lengths[rng.randrange(len(lengths))]
            task = sample_composition(
                rng, pool, f"v1-{group}-{k}", length, sample_attributes,
                require_platforms=required, tries=200, avoid=seen,
            )  # fmt: skip
            if task is None or (group == "hard" and not _long_enough(task)):
                continue
            seen.add(tuple(s.template.id for s in task.subtasks))
            tasks.append(task)
            k += 1
    return tasks


def build_v1() -> list[Task]:
    """The tasks of v1: the singles of every v1 template, then the composed groups."""
    return _singles(templates_for(PLATFORMS, in_set="v1")) + _composed()


def v1_json(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """The stored form: each task's JSON with its oracle steps, tier and split."""
    out = []
    for t in tasks:
        steps = len(t.solution())
        out.append({**t.to_json(), "oracle_steps": steps, "tier": tier(steps), "split": split_of(t)})
    return out


def load_v1(name: str = "v1") -> list[Task]:
    """The stored v1 (``"v1"``), or one split of it (``"v1:train"``, ``"v1:test"``)."""
    from crab_gym.core.tasks import tasks_from_file

    split = name.partition(":")[2]
    if split and split not in SPLITS:
        raise ValueError(f"unknown split {split!r} of v1; splits: v1:train, v1:test")
    tasks = tasks_from_file(DATA)
    return [t for t in tasks if not split or split_of(t) == split]


def write_v1(path: Path = DATA) -> int:
    """Build v1 and write it to ``path`` (the stored set by default); the number of tasks."""
    data = v1_json(build_v1())
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return len(data)

"""Figures of a task set: counts per tier and platform, oracle steps per platform, apps and templates
(``crab-gym tasks stats --set v1``), and a seeded sample of it (``--sample N --seed S --out FILE``)."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Sequence

from crab_gym.core.tasks import Task

__all__ = ["platform_group", "sample", "stats_lines"]


def platform_group(task: Task) -> str:
    """``cross`` for a task on both devices, else its device (``ubuntu``, ``android``)."""
    devices = [p for p in task.platforms if p != "root"]
    return "cross" if {"ubuntu", "android"} <= set(devices) else (devices[0] if devices else "root")


def sample(tasks: Sequence[Task], n: int, seed: int = 0) -> list[Task]:
    """``n`` tasks drawn with ``seed``, in the set's order."""
    picked = sorted(random.Random(seed).sample(range(len(tasks)), min(n, len(tasks))))
    return [tasks[i] for i in picked]


def stats_lines(tasks: Sequence[Task]) -> list[str]:
    """The figures, a line each."""
    from crab_gym.tasks.v1 import held_out, tier

    steps = {t.id: len(t.solution()) for t in tasks}
    groups = Counter(platform_group(t) for t in tasks)
    tiers = Counter(tier(steps[t.id]) for t in tasks)
    by_group_tier = Counter((platform_group(t), tier(steps[t.id])) for t in tasks)
    templates = {s.template.id for t in tasks for s in t.subtasks}
    apps = Counter(a for t in tasks for a in t.apps)
    lines = [
        f"tasks: {len(tasks)}; distinct instructions: {len({t.description for t in tasks})}; "
        f"composed: {sum(1 for t in tasks if len(t.subtasks) > 1)}",
        "tiers (oracle steps; easy <= 5, medium <= 15, hard > 15): "
        + ", ".join(f"{k} {tiers[k]}" for k in ("easy", "medium", "hard")),
        "hard over 3+ apps and 3+ sub-tasks: "
        + str(sum(1 for t in tasks if steps[t.id] > 15 and len(t.apps) >= 3 and len(t.subtasks) >= 3)),
        f"templates: {len(templates)} ({sum(1 for i in templates if held_out(i))} held out for v1:test); "
        f"apps: {len(apps)}",
    ]
    for group in ("ubuntu", "android", "cross"):
        mine = sorted(steps[t.id] for t in tasks if platform_group(t) == group)
        if not mine:
            continue
        per_tier = ", ".join(f"{k} {by_group_tier[group, k]}" for k in ("easy", "medium", "hard"))
        lines.append(
            f"{group}: {groups[group]} tasks ({per_tier}); oracle steps mean {statistics.mean(mine):.1f}, "
            f"median {statistics.median(mine):g}, min {mine[0]}, max {mine[-1]}"
        )
    lines.append("apps (tasks): " + ", ".join(f"{a} {n}" for a, n in sorted(apps.items())))
    return lines

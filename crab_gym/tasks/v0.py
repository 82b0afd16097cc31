"""The v0 set as an env draws from it: its JSON tasks built when first read, the handmade ones at once.

A desktop's ``make`` built all 202 JSON tasks of v0 (each sub-task's instruction, checks and solution:
~22 ms) to draw one per episode. Their ids, platforms and need of the user come from the JSON and the
templates without building; ``load_tasks("v0")`` still builds the whole list (and so checks every task).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from crab_gym.core.events import DeviceEvent
from crab_gym.core.tasks import Task, get_template, task_from_json
from crab_gym.tasks.lazy import LazyTasks

__all__ = ["V0_JSON", "v0_set"]

V0_JSON = Path(__file__).resolve().parent / "data" / "v0.json"

Key = tuple[str, int]  # ("json", index in v0.json) or ("handmade", index in handmade_tasks())


@cache
def _objects() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(V0_JSON.read_bytes().decode("utf-8-sig")))


@cache
def _handmade() -> tuple[Task, ...]:
    from crab_gym.tasks.handmade import handmade_tasks

    return tuple(handmade_tasks())


def _build(key: Key) -> Task:
    kind, i = key
    return _handmade()[i] if kind == "handmade" else task_from_json(_objects()[i], f"{V0_JSON}[{i}]")


def _id(key: Key) -> str:
    kind, i = key
    return _handmade()[i].id if kind == "handmade" else str(_objects()[i]["id"])


def _platforms(key: Key) -> tuple[str, ...]:  # Task.platforms
    kind, i = key
    if kind == "handmade":
        return _handmade()[i].platforms
    obj = _objects()[i]
    used = [p for entry in obj["tasks"] for p in get_template(entry["task"]).platforms]
    used += [DeviceEvent.from_json(e).device for e in obj.get("events", [])]
    return tuple(dict.fromkeys(used))


def _needs_user(key: Key) -> bool:  # Task.needs_user
    kind, i = key
    if kind == "handmade":
        return _handmade()[i].needs_user
    return any(get_template(entry["task"]).user for entry in _objects()[i]["tasks"])


def v0_set() -> LazyTasks[Key]:
    """The v0 tasks in ``load_tasks("v0")``'s order (the JSON's, then the handmade ones), lazily built."""
    keys = [("json", i) for i in range(len(_objects()))] + [("handmade", j) for j in range(len(_handmade()))]
    built = {key: _build(key) for key in keys if key[0] == "handmade"}
    return LazyTasks(keys, _build, _id, _platforms, _needs_user, _built=built)

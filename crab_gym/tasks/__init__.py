"""Task sets: the v0 benchmark, handmade tasks, and task files in the CRAB JSON shape."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import crab_gym.tasks.templates  # noqa: F401 - registers the built-in sub-task templates with the core
from crab_gym.core.tasks import Task, TaskFileError, get_template, task_from_json, tasks_from_file
from crab_gym.tasks.generator import generate_tasks

DATA = Path(__file__).resolve().parent / "data"

__all__ = [
    "Task",
    "TaskFileError",
    "generate_tasks",
    "get_template",
    "load_tasks",
    "resolve_tasks",
    "task_from_json",
    "tasks_from_file",
]


def load_tasks(name: str = "v0") -> list[Task]:
    """Tasks by set name ("v0": the JSON benchmark plus the handmade tasks; "v1", "v1:train", "v1:test":
    the large set and its split by template (tasks/v1.py); "ask-user", "events",
    "interactive": tasks that need the user or react to events; "all": v0 and those; "generated": 100 tasks
    from seed 0), from a JSON file path, or from CRAB's ``crab-benchmark-v0/dataset`` folder (whole, or
    ``"crab-v0:PATH"``: only its files that load today, see ``crab-gym tasks import-crab``)."""
    from crab_gym.tasks.interactive import INTERACTIVE_SETS, interactive_tasks

    if name in ("v0", "all"):  # handmade's networkx graphs: imported only when needed (cold start)
        from crab_gym.tasks.handmade import handmade_tasks
    if name == "v0":
        return tasks_from_file(DATA / "v0.json") + handmade_tasks()
    if name.split(":")[0] == "v1":
        from crab_gym.tasks.v1 import load_v1

        return load_v1(name)
    if name == "all":
        return tasks_from_file(DATA / "v0.json") + handmade_tasks() + interactive_tasks()
    if name in INTERACTIVE_SETS:  # tasks that need ask_user or react to device events (tasks/interactive.py)
        return interactive_tasks(name)
    if name == "generated":
        return generate_tasks(seed=0, n=100)
    if name.split(":")[0] == "rl-phone":  # short phone tasks for training policies (tasks/rl_phone.py)
        from crab_gym.tasks.rl_phone import load_rl_phone

        return load_rl_phone(name)
    if name.startswith("crab-v0:"):  # the files of CRAB's dataset folder that load and run today
        from crab_gym.tasks.crab_v0 import import_report

        return import_report(name.removeprefix("crab-v0:"))[0]
    path = Path(name)
    if (path.suffix == ".json" and path.exists()) or path.is_dir():  # ours, or CRAB's (tasks/crab_v0.py)
        from crab_gym.tasks.crab_v0 import is_crab_dataset, load_crab

        if path.is_dir() and not is_crab_dataset(path):
            raise ValueError(
                f"{name}: a task folder must hold JSON task files in sub-folders, as CRAB's does"
            )
        return load_crab(path)
    raise ValueError(
        f"unknown task set {name!r}: use 'v0', 'v1', 'v1:train', 'v1:test', 'all', 'ask-user', 'events', "
        "'interactive', 'generated', 'rl-phone', 'crab-v0:PATH', a path to a .json task file or CRAB's "
        "crab-benchmark-v0/dataset folder"
    )


def resolve_tasks(tasks: str | Sequence[str | Task], devices: Collection[str]) -> list[Task]:
    """The tasks of a set name (or JSON file), or of a list of ids and Task objects, that fit ``devices``
    (every platform a task touches is among them); ValueError for an unknown id or when none fits."""
    if isinstance(tasks, str):
        chosen = load_tasks(tasks)
    else:
        by_id: dict[str, Task] | None = None
        chosen = []
        for t in tasks:
            if isinstance(t, Task):
                chosen.append(t)
                continue
            if by_id is None:
                by_id = {x.id: x for x in load_tasks("all")}
            if t not in by_id:
                raise ValueError(f"unknown task id {t!r}")
            chosen.append(by_id[t])
    fitting = [t for t in chosen if set(t.platforms) <= set(devices)]
    if not fitting:
        raise ValueError(f"no task fits the devices {sorted(devices)} (of {len(chosen)} given)")
    return fitting

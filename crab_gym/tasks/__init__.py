"""Task sets: the v0 benchmark, handmade tasks, and task files in the CRAB JSON shape."""

from __future__ import annotations

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
    "task_from_json",
    "tasks_from_file",
]


def load_tasks(name: str = "v0") -> list[Task]:
    """Tasks by set name ("v0": the JSON benchmark plus the handmade tasks; "all"; "generated": 100 tasks
    from seed 0) or from a JSON file path."""
    from crab_gym.tasks.handmade import handmade_tasks

    if name in ("v0", "all"):
        return tasks_from_file(DATA / "v0.json") + handmade_tasks()
    if name == "generated":
        return generate_tasks(seed=0, n=100)
    if name.split(":")[0] == "rl-phone":  # short phone tasks for training policies (tasks/rl_phone.py)
        from crab_gym.tasks.rl_phone import load_rl_phone

        return load_rl_phone(name)
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        return tasks_from_file(path)
    raise ValueError(
        f"unknown task set {name!r}: use 'v0', 'all', 'generated', 'rl-phone' or a path to a .json task file"
    )

"""Task sets: the v0 benchmark, handmade tasks, and task files in the CRAB JSON shape.

Importing this package defers the built-in sub-task templates to the first template lookup
(``crab_gym.core.tasks.register_on_lookup``): the rl-phone set is built without the registry, so a phone
trained on it never imports the other platforms' templates.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crab_gym.core.evaluators import EVALUATOR_MODULES
from crab_gym.core.tasks import (
    Task,
    TaskFileError,
    get_template,
    register_on_lookup,
    task_from_json,
    tasks_from_file,
)
from crab_gym.tasks.lazy import LazyTasks

if TYPE_CHECKING:
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
    "task_set",
    "tasks_from_file",
    "tasks_need_user",
]

register_on_lookup(lambda: importlib.import_module("crab_gym.tasks.templates"))
# a check read back from JSON finds the desktop's evaluators by module (they are imported when first used)
EVALUATOR_MODULES["ubuntu"] = ("crab_gym.envs.desktop.evaluators", "crab_gym.envs.desktop.image_evaluators")


def __getattr__(name: str) -> Any:
    """``generate_tasks``, imported when first asked for (the generator's samplers load the web worlds)."""
    if name == "generate_tasks":
        from crab_gym.tasks.generator import generate_tasks

        return generate_tasks
    raise AttributeError(f"module 'crab_gym.tasks' has no attribute {name!r}")


def task_set(name: str) -> Sequence[Task]:
    """:func:`load_tasks`' set, the large rl-phone sets and v0 as a :class:`LazyTasks` (a task built when
    read: an env draws one per episode, so its first observation needs no other); what an env is made with."""
    if name.split(":")[0] == "rl-phone":  # first: it needs no generator, world or template
        from crab_gym.tasks.rl_phone import load_rl_phone

        return load_rl_phone(name)
    if name == "v0":  # its JSON tasks built when drawn (tasks/v0.py)
        from crab_gym.tasks.v0 import v0_set

        return v0_set()
    return load_tasks(name)


def load_tasks(name: str = "v0") -> list[Task]:
    """Tasks by set name ("v0": the JSON benchmark plus the handmade tasks; "v1", "v1:train", "v1:test":
    the large set and its split by template (tasks/v1.py); "ask-user", "events",
    "interactive": tasks that need the user or react to events; "all": v0 and those; "generated": 100 tasks
    from seed 0; "rl-phone", "rl-phone:train", "rl-phone:heldout": short phone tasks for training policies),
    from a JSON file path, or from CRAB's ``crab-benchmark-v0/dataset`` folder (whole, or
    ``"crab-v0:PATH"``: only its files that load today, see ``crab-gym tasks import-crab``)."""
    if name.split(":")[0] == "rl-phone":  # tasks/rl_phone.py (task_set keeps it lazy)
        from crab_gym.tasks.rl_phone import load_rl_phone

        return list(load_rl_phone(name))
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
        from crab_gym.tasks.generator import generate_tasks

        return generate_tasks(seed=0, n=100)
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


def resolve_tasks(tasks: str | Sequence[str | Task], devices: Collection[str]) -> Sequence[Task]:
    """The tasks of a set name (or JSON file), or of a list of ids and Task objects, that fit ``devices``
    (every platform a task touches is among them); ValueError for an unknown id or when none fits. A lazy
    set (:class:`LazyTasks`) stays lazy."""
    chosen: Sequence[Task]
    if isinstance(tasks, str):
        chosen = task_set(tasks)
    else:
        by_id: dict[str, Task] | None = None
        listed: list[Task] = []
        for t in tasks:
            if isinstance(t, Task):
                listed.append(t)
                continue
            if by_id is None:
                by_id = {x.id: x for x in load_tasks("all")}
            if t not in by_id:
                raise ValueError(f"unknown task id {t!r}")
            listed.append(by_id[t])
        chosen = listed
    fitting: Sequence[Task]
    if isinstance(chosen, LazyTasks):
        fitting = chosen.fitting(devices)
    else:
        fitting = [t for t in chosen if set(t.platforms) <= set(devices)]
    if not fitting:
        raise ValueError(f"no task fits the devices {sorted(devices)} (of {len(chosen)} given)")
    return fitting


def tasks_need_user(tasks: Sequence[Task]) -> bool:
    """Whether any of ``tasks`` needs the simulated user (``ask_user``); a lazy set answers unbuilt."""
    return tasks.needs_user() if isinstance(tasks, LazyTasks) else any(t.needs_user for t in tasks)

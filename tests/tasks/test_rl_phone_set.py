"""The rl-phone set is built lazily (a task when first read) and stays the same tasks in the same order."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

import crab_gym.tasks.rl_phone as rl
from crab_gym.core.tasks import Task
from crab_gym.tasks import load_tasks, resolve_tasks, task_set, tasks_need_user
from crab_gym.tasks.lazy import LazyTasks

# sha256 of every task's id, instruction, template, attributes, platforms, apps, need of the user and
# scripted solution, in set order: taken from the eager list the set was before it was built lazily
RL_PHONE_DIGEST = "85da1fb0b4e1657518f78c5d3646e72b2c9933825e4a7f11db4d0d8cb0b1624c"


def _digest(tasks: list[Task]) -> str:
    h = hashlib.sha256()
    for t in tasks:
        sub = t.subtasks[0]
        steps = [[s.env, s.action, s.params] for s in sub.template.solution(**sub.attributes)]
        row = [t.id, t.description, sub.template.id, sub.attributes, t.platforms, t.apps, t.needs_user, steps]
        h.update(json.dumps(row, sort_keys=True, default=str).encode())
    return h.hexdigest()


def test_the_lazy_set_is_the_same_tasks_in_the_same_order():
    tasks = task_set("rl-phone")
    assert isinstance(tasks, LazyTasks) and len(tasks) == 512
    assert list(tasks) == load_tasks("rl-phone")  # as a list, built at once
    assert _digest(list(tasks)) == RL_PHONE_DIGEST
    assert list(tasks) == rl.rl_phone_tasks("train") + rl.rl_phone_tasks("heldout")
    assert tasks.ids == tuple(t.id for t in tasks)  # the ids it tells unbuilt are the built tasks'
    assert load_tasks("rl-phone:heldout") == list(tasks[256:])
    assert [t.id for t in tasks[-2:]] == [f"rl-dial_number-{rl.HELDOUT_SEED + 62}", "rl-dial_number-100063"]


def test_a_task_is_built_when_read_once(monkeypatch):
    built: list[tuple[str, int]] = []
    family_task = rl.family_task

    def counting(family: str, seed: int) -> Task:
        built.append((family, seed))
        return family_task(family, seed)

    monkeypatch.setattr(rl, "family_task", counting)
    tasks = resolve_tasks("rl-phone", {"android", "root"})
    assert isinstance(tasks, LazyTasks)
    assert built == [] and len(tasks) == 512 and not tasks_need_user(tasks)
    first = tasks[300]
    assert built == [("open_app", rl.HELDOUT_SEED + 44)] and first.id == tasks.ids[300]
    assert tasks[300] is first and tasks[-212] is first  # kept, and negative positions are a list's
    assert tasks[300:301][0] is first  # a cut shares what was built
    assert len(built) == 1
    with pytest.raises(IndexError):
        tasks[512]


def test_a_lazy_set_that_fits_no_device_is_refused_unbuilt():
    with pytest.raises(ValueError, match="no task fits"):
        resolve_tasks("rl-phone", {"ubuntu", "root"})
    train = resolve_tasks("rl-phone:train", {"android"})
    assert isinstance(train, LazyTasks) and train.ids == tuple(t.id for t in rl.rl_phone_tasks("train"))


def test_templates_register_at_the_first_lookup():
    # a fresh process: the rl-phone set needs no registry, and a lookup still finds every built-in template
    code = (
        "import sys\n"
        "from crab_gym.tasks import task_set\n"
        "t = task_set('rl-phone')[7]\n"
        "print('crab_gym.tasks.templates' in sys.modules, 'crab_gym.tasks.generator' in sys.modules)\n"
        "from crab_gym.core.tasks import TEMPLATES, get_template\n"
        "print(get_template('contacts_add').id, len(TEMPLATES) > 50)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "False", "contacts_add", "True"]

"""tasks/v0.py: the v0 set an env is made with, its JSON tasks built when read, is load_tasks("v0")."""

from __future__ import annotations

from crab_gym.tasks import load_tasks, resolve_tasks, task_set
from crab_gym.tasks.lazy import LazyTasks


def test_the_lazy_v0_set_is_the_built_one_and_answers_without_building():
    lazy = task_set("v0")
    assert isinstance(lazy, LazyTasks)
    handmade = len(lazy._built)  # built at once
    ids, need = lazy.ids, lazy.needs_user()  # none of the JSON tasks built for these
    desktop = lazy.fitting({"ubuntu", "root"})
    assert len(lazy._built) == handmade
    built = load_tasks("v0")
    assert list(ids) == [t.id for t in built]
    assert need == any(t.needs_user for t in built)
    assert [t.id for t in desktop] == [t.id for t in built if set(t.platforms) <= {"ubuntu", "root"}]
    for key, task in zip(lazy._keys, built, strict=True):  # what it answers is the built task's
        assert (lazy._platforms_of(key), lazy._needs_user_of(key)) == (task.platforms, task.needs_user)
    assert lazy == built


def test_an_env_made_with_v0_resolves_the_same_tasks_lazily():
    fitting = resolve_tasks("v0", {"android", "root"})
    assert isinstance(fitting, LazyTasks)
    assert [t.id for t in fitting] == [
        t.id for t in load_tasks("v0") if set(t.platforms) <= {"android", "root"}
    ]

"""Phone web templates (Chrome on the offline web): unsolved after setup, solved by their scripted solution
on the in-process phone."""

from __future__ import annotations

import pytest

from crab_gym.core.tasks import Task, get_template
from crab_gym.envs.android import AndroidEnv
from crab_gym.tasks.templates.android import WEB_TEMPLATES

ATTRS: dict[str, dict] = {"chrome_search": {"place": "Eiffel Tower"}}


@pytest.fixture(scope="module")
def phone():
    env = AndroidEnv("sim")
    yield env
    env.close()


@pytest.mark.parametrize("template_id", [t.id for t in WEB_TEMPLATES])
def test_web_template_oracle_solves_and_nothing_does_not(phone: AndroidEnv, template_id: str) -> None:
    sub = get_template(template_id).instantiate(**ATTRS[template_id])
    task = Task(f"test-{template_id}", sub.instruction, [sub])
    phone.reset(seed=0)
    task.setup({"android": phone})
    phone.settle()
    phone.invalidate_state()
    graph = task.evaluator()
    graph.update({"android": phone.state()})
    assert graph.completion_ratio == 0.0, "a check already passes after setup"
    for s in task.solution():
        phone.execute(phone.action(s.action), dict(s.params))
        phone.settle()
    graph.update({"android": phone.state()})
    assert graph.completion_ratio == 1.0

"""Phone web templates (Chrome on the offline web): unsolved after setup, solved by their scripted solution
on the in-process phone."""

from __future__ import annotations

import pytest

from crab_gym.core.tasks import Task, get_template
from crab_gym.envs.android import AndroidEnv
from crab_gym.tasks.templates.android import CHROME_TEMPLATES

CASES = [
    ("chrome_search", {"place": "Eiffel Tower"}),
    *(
        ("chrome_open_site", {"host": h})
        for h in ("github.com", "en.wikipedia.org", "pytorch.org", "arxiv.org")
    ),
]


@pytest.fixture(scope="module")
def phone():
    env = AndroidEnv("sim")
    yield env
    env.close()


def test_every_web_template_has_a_case() -> None:
    assert {t.id for t in CHROME_TEMPLATES} == {c[0] for c in CASES}


@pytest.mark.parametrize(("template_id", "attrs"), CASES)
def test_web_template_oracle_solves_and_nothing_does_not(
    phone: AndroidEnv, template_id: str, attrs: dict
) -> None:
    sub = get_template(template_id).instantiate(**attrs)
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


def test_web_host_sampler_is_deterministic_and_a_served_host() -> None:
    import random

    from crab_gym.tasks.generator import SAMPLERS
    from crab_gym.web.app import HOSTS

    drawn = [SAMPLERS["web_host"](random.Random(3)) for _ in range(2)]
    assert drawn[0] == drawn[1] and drawn[0] in HOSTS

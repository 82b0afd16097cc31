"""Cross-device web templates on a real desktop session and the in-process phone: unsolved after setup, solved
by their scripted solution, one check per device."""

from __future__ import annotations

import time

import pytest

from crab_gym.core.tasks import Task, get_template
from crab_gym.tasks.templates.cross_web import CROSS_WEB_TEMPLATES

ATTRS: dict[str, dict] = {
    "cross_phone_web_capital_to_file": {"country": "Norway", "path": "~/Documents/capital.txt"},
    "cross_desktop_web_currency_to_note": {"country": "Kenya", "title": "Safari 'cash'"},
}
IDS = [t.id for t in CROSS_WEB_TEMPLATES]


def make_task(template_id: str) -> Task:
    sub = get_template(template_id).instantiate(**ATTRS[template_id])
    return Task(f"test-{template_id}", sub.instruction, [sub])


def test_every_template_has_attributes_and_both_devices() -> None:
    assert set(IDS) == set(ATTRS)
    for tid in IDS:
        task = make_task(tid)
        assert {s.env for s in task.solution()} == {"ubuntu", "android"}


@pytest.fixture(scope="module")
def envs():
    from crab_gym.envs.android import AndroidEnv
    from crab_gym.envs.desktop import DesktopEnv

    desk, phone = DesktopEnv(), AndroidEnv("sim")
    yield {"ubuntu": desk, "android": phone}
    desk.close()
    phone.close()


def _update(graph, envs) -> None:
    for env in envs.values():
        env.invalidate_state()
    graph.update({k: e.state() for k, e in envs.items()})


@pytest.mark.slow
@pytest.mark.parametrize("template_id", IDS)
def test_do_nothing_then_scripted_solution(envs, template_id: str) -> None:
    task = make_task(template_id)
    for env in envs.values():
        env.reset()
    task.setup(envs)
    graph = task.evaluator()
    _update(graph, envs)
    assert graph.completion_ratio == 0.0, graph.node_states()
    for step in task.solution():
        env = envs[step.env]
        env.execute(env.action(step.action), dict(step.params))
        if step.env == "ubuntu":
            env.settle(quiet=1.0 if step.action == "search_application" else 0.3, timeout=5)
        else:
            env.settle()
        _update(graph, envs)
    deadline = time.monotonic() + 10
    while not graph.success and time.monotonic() < deadline:
        time.sleep(0.1)
        _update(graph, envs)
    assert graph.completion_ratio == 1.0, graph.node_states()

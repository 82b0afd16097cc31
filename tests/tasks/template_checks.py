"""Static checks every single-device sub-task template passes, shared by the desktop and phone tests."""

from __future__ import annotations

import json
import string
from collections.abc import Mapping

from crab_gym.core.actions import ActionSpec
from crab_gym.core.evaluators import check_from_json
from crab_gym.core.tasks import Task


def assert_single_device_task(task: Task, device: str, specs: Mapping[str, ActionSpec]) -> None:
    """The instruction is fully formatted; the graph has 1-4 checks, all on ``device`` and surviving a JSON
    round trip; the scripted solution acts on ``device`` only, each step valid for its action; a typed
    template gives an output."""
    sub = task.subtasks[0]
    text = sub.instruction
    assert not [f for _, f, _, _ in string.Formatter().parse(text) if f], text
    graph = task.graph()
    assert 1 <= graph.number_of_nodes() <= 4
    for _, data in graph.nodes(data=True):
        check = data["check"]
        assert check.envs == {device}
        assert check_from_json(json.loads(json.dumps(check.to_json()))) == check
    steps = task.solution()
    assert steps
    for step in steps:
        assert step.env == device and step.action in specs, step
        specs[step.action].validate(step.params)
    if sub.template.output_type is not None:
        assert sub.output() is not None

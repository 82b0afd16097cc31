"""Tasks: composition of sub-task graphs, the CRAB JSON shape, and one-line errors for bad task files."""

from __future__ import annotations

import json

import pytest

from crab_gym.core.evaluators import evaluator
from crab_gym.core.tasks import (
    Step,
    SubTaskTemplate,
    Task,
    TaskFileError,
    register,
    task_from_json,
    tasks_from_file,
)


@evaluator(env="testdev")
def has(state: set, item: str) -> bool:
    """the device has {item}"""
    return item in state


FETCH = register(
    SubTaskTemplate(
        id="test_fetch",
        description="Fetch {item}.",
        attributes={"item": "word"},
        evaluator=lambda item: [has(item=f"{item}:found"), has(item=f"{item}:held")],
        solution=lambda item: [Step("testdev", "fetch", {"item": item})],
        platforms=("testdev",),
        output_type="word",
        output=lambda item: item,
    )
)
USE = register(
    SubTaskTemplate(
        id="test_use",
        description="Use {item}.",
        attributes={"item": "word"},
        evaluator=lambda item: [has(item=f"{item}:used")],
        solution=lambda item: [Step("testdev", "use", {"item": item})],
        platforms=("testdev",),
    )
)


def test_composed_graph_links_sinks_to_sources():
    t = Task(
        "t",
        "Fetch a key, then use it.",
        [FETCH.instantiate(item="key"), USE.instantiate(item="key")],
        [(0, 1)],
    )
    g = t.graph()
    assert g.number_of_nodes() == 3 and g.number_of_edges() == 2
    ev = t.evaluator()
    ev.update({"testdev": {"key:used"}})
    assert ev.completion_ratio == 0.0, "the successor's source is not active before the predecessor's sink"
    ev.update({"testdev": {"key:found", "key:held", "key:used"}})
    assert ev.success and ev.completion_ratio == 1.0
    assert [s.action for s in t.solution()] == ["fetch", "use"]


def test_json_round_trip():
    t = Task("t", "Fetch and use.", [FETCH.instantiate(item="pen"), USE.instantiate(item="pen")], [(0, 1)])
    data = t.to_json()
    assert data["tasks"][0] == {"task": "test_fetch", "attribute": {"item": "pen"}, "output": "pen"}
    assert data["adjlist"] == {"0": [1], "1": []}
    back = task_from_json(json.loads(json.dumps(data)))
    assert back.to_json() == data and back.node_count == 3


def test_instruction_with_undeclared_attribute_is_rejected():
    with pytest.raises(ValueError, match="undeclared attributes"):
        SubTaskTemplate("x", "Do {thing}.", {}, evaluator=lambda: [], solution=lambda: [])


@pytest.mark.parametrize(
    "payload, field",
    [
        ([1], "(top level)"),
        ({"id": 3, "description": "d", "tasks": []}, "id"),
        ({"id": "a", "description": "d", "tasks": [{"task": "nope"}]}, "tasks[0].task"),
        (
            {"id": "a", "description": "d", "tasks": [{"task": "test_use", "attribute": {}}]},
            "tasks[0].attribute",
        ),
        (
            {
                "id": "a",
                "description": "d",
                "tasks": [{"task": "test_use", "attribute": {"item": "x"}}],
                "adjlist": {"0": [5]},
            },
            "adjlist",
        ),
        (
            {
                "id": "a",
                "description": "d",
                "tasks": [{"task": "test_use", "attribute": {"item": "x"}}] * 2,
                "adjlist": {"0": [1], "1": [0]},
            },
            "adjlist",
        ),
    ],
)
def test_bad_task_file_is_a_one_line_error_naming_file_and_field(tmp_path, payload, field):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(payload if isinstance(payload, list) else [payload]))
    with pytest.raises(TaskFileError) as info:
        tasks_from_file(path)
    msg = str(info.value)
    assert str(path) in msg and field in msg and "\n" not in msg


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"id": "a",\n  "description": }')
    with pytest.raises(TaskFileError, match=r"broken\.json: not valid JSON \(line 2"):
        tasks_from_file(path)

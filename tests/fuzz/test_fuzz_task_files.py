"""Task files, mutated: every load either gives usable tasks or one TaskFileError line naming file and field.

Starting from real v0 tasks in the CRAB JSON shape, hypothesis replaces, deletes or adds a value anywhere in
the document (wrong types, NaN, huge numbers, odd strings, deep nesting), or writes bytes that are not JSON
at all. A task that loads must also build its graph, instruction, solution, JSON and lint report.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fuzz_support import budget
from hypothesis import given
from hypothesis import strategies as st

from crab_gym.core.tasks import TaskFileError, tasks_from_file
from crab_gym.tasks import load_tasks
from crab_gym.tasks.validate import lint_task

pytestmark = pytest.mark.fuzz

FIELD = re.compile(
    r"(\(top level\)|\bid\b|description|tasks(\[\d+\](\.task|\.attribute(\.\w+)?)?)?|adjlist|JSON)"
)
_counter = itertools.count()


def _base_documents() -> list[dict[str, Any]]:
    tasks = load_tasks("v0")
    single = next(t for t in tasks if len(t.subtasks) == 1)
    composed = sorted((t for t in tasks if len(t.subtasks) > 1), key=lambda t: -len(t.subtasks))
    return [t.to_json() for t in [single, *composed[:2], composed[-1]]]


BASES = _base_documents()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(
        ["", "0", "²", "١", "-1", "1e3", " 1", "{name}", "{0}", "\n", "contacts_add", "sms_send"]
    ),
)
json_values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=12,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    doc = json.loads(json.dumps(draw(st.sampled_from(BASES))))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(doc)))
        how = draw(st.sampled_from(["replace", "delete", "add"]))
        if not path:
            if how == "replace":
                doc = draw(json_values)
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        if how == "replace":
            parent[key] = draw(json_values)
        elif how == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(json_values)
        else:
            parent.insert(key, draw(json_values))
    return draw(st.sampled_from([doc, [doc], [doc, doc]]))


def _write(tmp: Path, data: bytes) -> Path:
    path = tmp / f"task{next(_counter)}.json"
    path.write_bytes(data)
    return path


def _check_load(path: Path) -> None:
    try:
        tasks = tasks_from_file(path)
    except TaskFileError as e:
        msg = str(e)
        assert "\n" not in msg and "\r" not in msg, msg
        assert msg.startswith(str(path)), msg
        assert FIELD.search(msg[len(str(path)) :]), f"no field named in: {msg}"
        return
    for task in tasks:  # loaded: everything downstream of loading works
        assert task.graph().number_of_nodes() >= 1
        assert isinstance(task.description, str)
        assert all(isinstance(s.instruction, str) for s in task.subtasks)
        task.solution()
        json.dumps(task.to_json(), allow_nan=True)
        assert isinstance(lint_task(task), list)


@budget(ci=400, long=20_000)
@given(doc=mutated_documents())
def test_mutated_task_files_load_or_fail_in_one_line(fuzz_profile, tmp_path_factory, doc):
    tmp = tmp_path_factory.getbasetemp()
    _check_load(_write(tmp, json.dumps(doc, allow_nan=True).encode()))


@budget(ci=150, long=5_000)
@given(
    data=st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
        st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
        st.integers(1, 3000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
        st.sampled_from([b"", b"\xff\xfe{}", b"NaN", b"[]", b"{}", b"[{}]", b'"x"', b"\xef\xbb\xbf{}"]),
    )
)
def test_files_that_are_not_task_json_fail_in_one_line(fuzz_profile, tmp_path_factory, data):
    _check_load(_write(tmp_path_factory.getbasetemp(), data))


def test_known_malformed_fields_are_named(tmp_path):
    """Cases fuzzing found, pinned: each names its field."""
    base = BASES[1]
    calc = next(t.to_json() for t in load_tasks("v0") if t.subtasks[0].template.id == "calc_sum_column")
    calc["tasks"][0]["attribute"]["a"] = None  # the template adds the numbers up: None breaks its checks
    cases = {
        "tasks": {**base, "tasks": []},
        "adjlist['²']": {**base, "adjlist": {"²": [1]}},
        "adjlist['0']": {**base, "adjlist": {"0": [True]}},
        "tasks[0].attribute": calc,
    }
    for field, doc in cases.items():
        path = _write(tmp_path, json.dumps(doc).encode())
        with pytest.raises(TaskFileError) as err:
            tasks_from_file(path)
        assert str(err.value).startswith(f"{path}: {field}"), str(err.value)

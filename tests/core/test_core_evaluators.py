"""Checks: naming, descriptions, registry, JSON round trip, combinators, errors, lazy states."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from crab_gym.core import (
    EVALUATORS,
    Check,
    CheckResult,
    EvaluatorFactory,
    check_from_json,
    evaluator,
    get_evaluator,
)

ENV = "coretest"  # a sub-env name no real sub-env uses


@evaluator(env=ENV)
def file_contains(state: dict[str, Any], path: str, text: str) -> bool:
    """the file {path} contains {text!r}"""
    return text in state["files"].get(path, "")


@evaluator(env=ENV)
def has_items(state: dict[str, Any], items: list[str], exact: bool = False) -> bool:
    """the list holds {items}"""
    have = state["items"]
    return have == items if exact else all(i in have for i in items)


@evaluator(env="coretest_phone")
def app_open(state: dict[str, Any], app: str) -> bool:
    """the app {app} is open"""
    return bool(state["app"] == app)


@evaluator(env=ENV)
def explodes(state: dict[str, Any]) -> bool:
    """nothing goes wrong"""
    raise RuntimeError("boom")


class CountingStates(Mapping[str, Any]):
    """A lazy states mapping that counts how often each sub-env's state is fetched."""

    def __init__(self, states: dict[str, Any]) -> None:
        self.states = states
        self.fetches: dict[str, int] = {}

    def __getitem__(self, env: str) -> Any:
        self.fetches[env] = self.fetches.get(env, 0) + 1
        return self.states[env]

    def __iter__(self) -> Iterator[str]:
        return iter(self.states)

    def __len__(self) -> int:
        return len(self.states)


STATES = {
    ENV: {"files": {"~/a.txt": "hi there"}, "items": ["x", "y"]},
    "coretest_phone": {"app": "Calendar"},
}


def test_factory_name_and_description() -> None:
    assert isinstance(file_contains, EvaluatorFactory)
    check = file_contains(path="~/a.txt", text="hi")
    assert check.name == "file_contains(path='~/a.txt', text='hi')"
    assert check.description == "the file ~/a.txt contains 'hi'"
    assert check.env == ENV and check.envs == frozenset({ENV})
    assert check.evaluator == "coretest.file_contains"
    assert check.kwargs == {"path": "~/a.txt", "text": "hi"}


def test_defaults_are_bound_into_the_check() -> None:
    check = has_items(items=["x"])
    assert check.kwargs == {"items": ["x"], "exact": False}
    assert check.name == "has_items(items=['x'], exact=False)"


def test_bad_kwargs_raise_type_error_naming_evaluator() -> None:
    with pytest.raises(TypeError, match="coretest.file_contains"):
        file_contains(path="~/a.txt")
    with pytest.raises(TypeError, match="coretest.file_contains"):
        file_contains(path="~/a.txt", text="x", colour="red")


def test_docstring_field_must_be_a_parameter() -> None:
    with pytest.raises(TypeError, match=r"\{name\}"):

        @evaluator(env=ENV)
        def bad_template(state: Any, path: str) -> bool:
            """the file {name} exists"""
            return True


def test_evaluate() -> None:
    assert file_contains(path="~/a.txt", text="hi").evaluate(STATES)
    assert not file_contains(path="~/a.txt", text="bye").evaluate(STATES)
    assert not file_contains(path="~/b.txt", text="hi").evaluate(STATES)


def test_registry() -> None:
    assert get_evaluator("coretest.file_contains") is file_contains
    assert EVALUATORS["coretest_phone.app_open"] is app_open
    with pytest.raises(KeyError, match="coretest.nope"):
        get_evaluator("coretest.nope")


def test_duplicate_registration_with_other_function_is_an_error() -> None:
    def file_contains(state: Any, path: str, text: str) -> bool:  # same name, different function
        """another"""
        return False

    with pytest.raises(ValueError, match="coretest.file_contains"):
        evaluator(file_contains, env=ENV)
    assert get_evaluator("coretest.file_contains").fn is not file_contains


def test_reregistering_the_same_function_is_fine() -> None:
    again = evaluator(file_contains.fn, env=ENV)
    assert again is file_contains and get_evaluator("coretest.file_contains") is file_contains


def test_checks_hash_and_compare_by_content() -> None:
    a1 = has_items(items=["x", "y"])
    a2 = has_items(items=["x", "y"])
    b = has_items(items=["y", "x"])
    assert a1 == a2 and hash(a1) == hash(a2)
    assert a1 != b
    assert len({a1, a2, b}) == 2
    assert (a1 & b) == (a2 & b)
    assert (a1 & b) != (b & a1)


def test_combinators_names_descriptions_and_truth() -> None:
    hi = file_contains(path="~/a.txt", text="hi")
    bye = file_contains(path="~/a.txt", text="bye")
    cal = app_open(app="Calendar")
    both = hi & cal
    assert both.name == f"({hi.name} & {cal.name})"
    assert both.description == "the file ~/a.txt contains 'hi' and the app Calendar is open"
    assert both.envs == frozenset({ENV, "coretest_phone"})
    assert both.evaluate(STATES)
    assert not (hi & bye).evaluate(STATES)
    assert (bye | hi).evaluate(STATES)
    assert not (bye | bye).evaluate(STATES)
    neg = ~bye
    assert neg.name == f"~{bye.name}" and neg.description == "not the file ~/a.txt contains 'bye'"
    assert neg.evaluate(STATES) and not (~hi).evaluate(STATES)
    chain = hi & cal & ~bye
    assert chain.name.count("(") == 4  # flattened: "(a & b & ~c)" plus the kwargs' parentheses
    assert len(chain.children) == 3
    mixed = ~(hi | bye)
    assert mixed.description == "not (the file ~/a.txt contains 'hi' or the file ~/a.txt contains 'bye')"


def test_short_circuit_reads_only_needed_states() -> None:
    states = CountingStates(STATES)
    hi = file_contains(path="~/a.txt", text="hi")
    bye = file_contains(path="~/a.txt", text="bye")
    assert (hi | app_open(app="Calendar")).evaluate(states)
    assert "coretest_phone" not in states.fetches
    assert not (bye & app_open(app="Calendar")).evaluate(states)
    assert "coretest_phone" not in states.fetches


def test_each_state_fetched_once_per_evaluation() -> None:
    states = CountingStates(STATES)
    combo = file_contains(path="~/a.txt", text="hi") & has_items(items=["x"]) & app_open(app="Calendar")
    assert combo.evaluate(states)
    assert states.fetches == {ENV: 1, "coretest_phone": 1}


def test_exception_is_not_passed_but_reported() -> None:
    check = explodes()
    assert check.evaluate(STATES) is False
    result = check.evaluate_verbose(STATES)
    assert result == CheckResult(False, "explodes() raised RuntimeError: boom")
    assert not (~check).evaluate(STATES), "an errored check is unknown; its negation must not pass"
    assert (~check).evaluate_verbose(STATES).error == result.error
    hi = file_contains(path="~/a.txt", text="hi")
    assert (check | hi).evaluate_verbose(STATES) == CheckResult(True)
    assert (hi & check).evaluate_verbose(STATES).error == result.error


def test_missing_env_state_raises_key_error() -> None:
    with pytest.raises(KeyError, match="coretest_phone"):
        app_open(app="Calendar").evaluate({ENV: {}})


def test_json_round_trip_including_combinators() -> None:
    check = (file_contains(path="~/a.txt", text="hi") & ~has_items(items=["z"], exact=True)) | app_open(
        app="Clock"
    )
    data = json.loads(json.dumps(check.to_json()))
    assert data["or"][1] == {"evaluator": "coretest_phone.app_open", "kwargs": {"app": "Clock"}}
    rebuilt = check_from_json(data)
    assert rebuilt == check
    assert rebuilt.name == check.name and rebuilt.description == check.description
    assert rebuilt.evaluate(STATES) == check.evaluate(STATES)


def test_from_json_errors() -> None:
    with pytest.raises(KeyError, match="coretest.unknown"):
        check_from_json({"evaluator": "coretest.unknown", "kwargs": {}})
    with pytest.raises(ValueError, match="not a serialised check"):
        check_from_json({"xor": []})
    with pytest.raises(ValueError, match="at least 2"):
        check_from_json({"and": [{"evaluator": "coretest.explodes", "kwargs": {}}]})


def test_ad_hoc_check_is_not_serialisable() -> None:
    check = Check(name="always", description="always true", env=ENV, fn=lambda state: True)
    assert check.evaluate(STATES)
    with pytest.raises(ValueError, match="always"):
        check.to_json()


def test_pickle_round_trip() -> None:
    check = (file_contains(path="~/a.txt", text="hi") & ~has_items(items=["z"])) | app_open(app="Clock")
    again = pickle.loads(pickle.dumps(check))
    assert again == check and hash(again) == hash(check)
    assert again.evaluate(STATES) == check.evaluate(STATES)
    assert pickle.loads(pickle.dumps(file_contains)) is file_contains


def test_unpickled_check_hashes_like_a_fresh_one_in_another_process(tmp_path: Path) -> None:
    # String hashes differ between processes; a stale stored hash would break the graph's per-update cache.
    check = file_contains(path="~/a.txt", text="hi") & app_open(app="Clock")
    blob = tmp_path / "check.pkl"
    blob.write_bytes(pickle.dumps(check))
    code = (
        "import pickle, sys; from test_core_evaluators import file_contains, app_open;"
        f"c = pickle.loads(open({str(blob)!r}, 'rb').read());"
        "fresh = file_contains(path='~/a.txt', text='hi') & app_open(app='Clock');"
        "assert c == fresh and {c: 1}.get(fresh) == 1, 'stale hash'; print('ok')"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(Path(__file__).parent)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr

"""ActionSpec: built from docstrings, validates like an LLM needs, renders as an OpenAI tool."""

from __future__ import annotations

import json
import pickle
from typing import Any, Literal

import numpy as np
import pytest

from crab_gym.core import REQUIRED, ActionSpec, Direction, Distance, InvalidAction, Point, action


class Device:
    """Records what it was asked to do."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []


@action
def click(dev: Device, point: Point, button: Literal["left", "right"] = "left", clicks: int = 1) -> None:
    """Click a point on the screen.

    Moves the pointer first, then presses.

    Args:
        point: Where to click, as (x, y) fractions of the screen.
        button: Which mouse button.
        clicks: How many clicks.
    """
    dev.calls.append(("click", {"point": point, "button": button, "clicks": clicks}))


@action(name="swipe")
def _swipe_impl(dev: Device, direction: Direction, distance: Distance = "medium") -> None:
    """Swipe across the screen.

    Args:
        direction: Which way the finger moves.
        distance: How far it moves.
    """
    dev.calls.append(("swipe", {"direction": direction, "distance": distance}))


@action
def type_text(dev: Device, text: str) -> None:
    """Type text into the focused field.

    Args:
        text: What to type.
    """
    dev.calls.append(("type_text", {"text": text}))


def test_spec_from_docstring() -> None:
    assert isinstance(click, ActionSpec)
    assert click.name == "click"
    assert click.description == "Click a point on the screen.\n\nMoves the pointer first, then presses."
    assert click.param_names == ("point", "button", "clicks")
    point, button, clicks = click.params
    assert point.description == "Where to click, as (x, y) fractions of the screen."
    assert point.required and point.default is REQUIRED and point.annotation is Point
    assert not button.required and button.default == "left"
    assert clicks.default == 1 and clicks.annotation is int


def test_name_override() -> None:
    assert _swipe_impl.name == "swipe"
    assert _swipe_impl.tool_schema()["function"]["name"] == "swipe"


def test_undocumented_parameter_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"'broken'.*'y'.*Args"):

        @action
        def broken(dev: Device, x: int, y: int) -> None:
            """Do something.

            Args:
                x: Documented.
            """


def test_missing_type_hint_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"'nohint'.*'x'.*type hint"):

        @action
        def nohint(dev, x):  # type: ignore[no-untyped-def]
            """Do something.

            Args:
                x: Documented.
            """


def test_missing_docstring_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="docstring"):

        @action
        def nodoc(dev: Device, x: int) -> None:
            pass


def test_call_validates_and_runs() -> None:
    dev = Device()
    click(dev, point=[0.25, 0.75], button="right")
    assert dev.calls == [("click", {"point": (0.25, 0.75), "button": "right", "clicks": 1})]
    with pytest.raises(InvalidAction):
        click(dev, point=[2, 0])
    assert len(dev.calls) == 1, "an invalid call must not reach the device"


def test_validate_fills_defaults_and_returns_tuples() -> None:
    assert click.validate({"point": [0, 1]}) == {"point": (0.0, 1.0), "button": "left", "clicks": 1}
    assert click.validate({"point": np.array([0.5, 0.5], dtype=np.float32)})["point"] == (0.5, 0.5)


def test_out_of_range_point_message() -> None:
    with pytest.raises(InvalidAction) as info:
        click.validate({"point": [1.5, 0.2]})
    msg = str(info.value)
    assert msg.startswith("click: parameter 'point' must be 2 numbers in [0, 1]; got [1.5, 0.2]")
    assert "InvalidAction" not in msg and "pydantic" not in msg


def test_wrong_type_message() -> None:
    with pytest.raises(InvalidAction, match=r"^click: parameter 'clicks' must be an integer; got 'many'"):
        click.validate({"point": [0.1, 0.1], "clicks": "many"})
    with pytest.raises(InvalidAction, match=r"^type_text: parameter 'text' must be a string; got 5"):
        type_text.validate({"text": 5})


def test_bad_literal_lists_choices() -> None:
    with pytest.raises(InvalidAction) as info:
        _swipe_impl.validate({"direction": "north"})
    msg = str(info.value)
    assert "swipe: parameter 'direction'" in msg
    assert "'up', 'down', 'left', 'right'" in msg and "'north'" in msg


def test_missing_parameter_message() -> None:
    with pytest.raises(InvalidAction, match=r"^click: parameter 'point' is required: 2 numbers in \[0, 1\]"):
        click.validate({})


def test_short_point_is_not_reported_as_missing() -> None:
    with pytest.raises(InvalidAction, match=r"^click: parameter 'point' must be 2 numbers.*got \[0.1\]"):
        click.validate({"point": [0.1]})


def test_extra_parameter_message_and_ignore_extra() -> None:
    with pytest.raises(InvalidAction) as info:
        click.validate({"point": [0.1, 0.1], "element": 3})
    msg = str(info.value)
    assert msg.startswith("click: unknown parameter 'element'")
    assert "point" in msg and "button (optional)" in msg
    assert click.validate({"point": [0.1, 0.1], "element": 3}, ignore_extra=True)["point"] == (0.1, 0.1)


def test_several_faults_are_all_named() -> None:
    with pytest.raises(InvalidAction) as info:
        click.validate({"point": [3, 0], "button": "middle"})
    assert "'point'" in str(info.value) and "'button'" in str(info.value)


def test_non_mapping_is_invalid_action() -> None:
    with pytest.raises(InvalidAction, match=r"^click: parameters must be a mapping"):
        click.validate([0.1, 0.2])  # type: ignore[arg-type]


# -- tool schema ------------------------------------------------------------------------------------------


def _walk(node: Any) -> Any:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_tool_schema_shape() -> None:
    tool = click.tool_schema()
    assert tool["type"] == "function"
    fn = tool["function"]
    assert set(fn) == {"name", "description", "parameters"}
    assert fn["name"] == "click" and fn["description"] == click.description
    params = fn["parameters"]
    assert params["type"] == "object"
    assert params["required"] == ["point"]
    assert params["additionalProperties"] is False
    assert set(params["properties"]) == {"point", "button", "clicks"}
    for prop in params["properties"].values():
        assert prop["description"]
    assert params["properties"]["point"] == {
        "type": "array",
        "items": {"type": "number", "minimum": 0, "maximum": 1},
        "minItems": 2,
        "maxItems": 2,
        "description": "Where to click, as (x, y) fractions of the screen.",
    }
    assert params["properties"]["button"]["enum"] == ["left", "right"]
    assert params["properties"]["button"]["default"] == "left"
    json.dumps(tool)  # plain JSON


def test_tool_schema_has_no_titles_or_refs() -> None:
    for spec in (click, _swipe_impl, type_text):
        for node in _walk(spec.tool_schema()["function"]["parameters"]):
            assert "title" not in node and "$ref" not in node and "$defs" not in node


def test_parameter_named_title_survives_cleaning() -> None:
    @action
    def focus(dev: Device, title: str) -> None:
        """Focus a window.

        Args:
            title: The window's title.
        """

    params = focus.tool_schema()["function"]["parameters"]
    assert params["properties"] == {"title": {"type": "string", "description": "The window's title."}}
    assert params["required"] == ["title"]


def test_tool_schema_is_valid_json_schema_and_matches_validate() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = click.tool_schema()["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"point": [0.1, 0.2]})
    assert not validator.is_valid({"point": [1.1, 0.2]})
    assert not validator.is_valid({"point": [0.1, 0.2], "x": 1})


def test_spec_pickles_by_reference() -> None:
    assert pickle.loads(pickle.dumps(click)) is click
    assert pickle.loads(pickle.dumps(_swipe_impl)) is _swipe_impl


def test_local_spec_refuses_to_pickle_with_a_reason() -> None:
    @action
    def local(dev: Device) -> None:
        """Do nothing."""

    with pytest.raises(pickle.PicklingError, match="'local'"):
        pickle.dumps(local)

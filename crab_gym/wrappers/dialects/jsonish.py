"""Reading JSON actions from what a model sends: a dict, a list, or text holding a JSON value."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from crab_gym.core.actions import InvalidAction

MAX_JSON_CHARS = 65_536
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)


def json_value(action: Any, hint: str) -> Any:
    """The JSON value of an action: a dict or list as given; text parsed whole, else its first ```json
    block, else its first ``{...}`` object. ``hint`` ends every error (the expected shape)."""
    if isinstance(action, (Mapping, list)):
        return action
    if isinstance(action, (bytes, bytearray)):
        action = bytes(action).decode("utf-8", "replace")
    if not isinstance(action, str):
        raise InvalidAction(f"an action is JSON text; got {type(action).__name__}. {hint}")
    if len(action) > MAX_JSON_CHARS:
        raise InvalidAction(f"the action is {len(action)} characters long; the limit is {MAX_JSON_CHARS}")
    if not action.strip():
        raise InvalidAction(f"the action is empty. {hint}")
    try:
        return json.loads(action)
    except (json.JSONDecodeError, RecursionError):
        pass
    for m in _FENCE.finditer(action):
        try:
            return json.loads(m.group(1))
        except (json.JSONDecodeError, RecursionError):
            continue
    decoder = json.JSONDecoder()
    for i, m in enumerate(re.finditer(r"\{", action)):
        if i >= 64:
            break
        try:
            value, _ = decoder.raw_decode(action, m.start())
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise InvalidAction(f"no JSON action found. {hint}")


def items(value: Any, hint: str, limit: int) -> list[Mapping[str, Any]]:
    """A JSON object, or a list of them (several actions in one step), as a list of objects."""
    found = value if isinstance(value, list) else [value]
    if not found:
        raise InvalidAction(f"an empty list of actions. {hint}")
    if len(found) > limit:
        raise InvalidAction(f"{len(found)} actions in one step; at most {limit}")
    for v in found:
        if not isinstance(v, Mapping):
            raise InvalidAction(f"an action is a JSON object; got {type(v).__name__}. {hint}")
    return found


def field_of(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """A required field of the given type, or InvalidAction naming it."""
    if key not in obj:
        raise InvalidAction(f"{what}: {key!r} is required")
    value = obj[key]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise InvalidAction(f"{what}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def pair(value: Any, what: str) -> tuple[Any, Any]:
    """[x, y] as a pair, or InvalidAction."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise InvalidAction(f"{what} must be [x, y]; got {str(value)[:40]}")
    return value[0], value[1]

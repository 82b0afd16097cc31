"""The JSON schema of an action's parameters: cleaned for a tool description, and worded for the messages of
an invalid action ("must be a number in [0, 1]")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_LISTS = ("prefixItems", "anyOf", "allOf", "oneOf")
_ONE = ("items", "additionalProperties", "not", "contains")


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$ref``s, drop ``title`` keywords, and turn uniform ``prefixItems`` into ``items``."""
    defs = {**schema.get("$defs", {}), **schema.get("definitions", {})}

    def clean(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("title", "$defs", "definitions"):
                continue
            if key in _MAPS and isinstance(value, dict):
                out[key] = {k: clean(v) for k, v in value.items()}
            elif key in _LISTS and isinstance(value, list):
                out[key] = [clean(v) for v in value]
            elif key in _ONE:
                out[key] = clean(value)
            else:
                out[key] = value
        prefix = out.get("prefixItems")
        if prefix and "items" not in out and all(item == prefix[0] for item in prefix):
            out["items"] = out.pop("prefixItems")[0]
        return out

    result: dict[str, Any] = clean(schema)
    return result


_NOUNS = {"number": "number", "integer": "integer", "string": "string", "boolean": "boolean", "null": "null"}


def _noun(schema: Mapping[str, Any], plural: bool = False) -> str:
    """A noun phrase for a JSON schema: 'number in [0, 1]', 'strings', "one of 'up', 'down'"."""
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    if "const" in schema:
        return f"exactly {schema['const']!r}"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_noun(s, plural) for s in schema[key])
    kind = schema.get("type")
    if kind == "array":
        item = schema.get("items") or {}
        n_min, n_max = schema.get("minItems"), schema.get("maxItems")
        count = f"{n_min} " if n_min is not None and n_min == n_max else ""
        lists = "lists" if plural else "list"
        return f"{lists} of {count}{_noun(item, plural=True)}" if item else lists
    if kind == "object":
        return "objects" if plural else "object"
    base = _NOUNS.get(str(kind), "value")
    if plural:
        base += "s"
    if kind == "string" and schema.get("minLength"):
        base = "non-empty " + base
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    if lo is not None and hi is not None:
        left = "(" if "exclusiveMinimum" in schema else "["
        right = ")" if "exclusiveMaximum" in schema else "]"
        base += f" in {left}{lo}, {hi}{right}"
    elif lo is not None:
        base += f" {'>' if 'exclusiveMinimum' in schema else '>='} {lo}"
    elif hi is not None:
        base += f" {'<' if 'exclusiveMaximum' in schema else '<='} {hi}"
    return base


def expected(schema: Mapping[str, Any]) -> str:
    """What a valid value looks like, as the object of 'must be ...'."""
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(expected(s) for s in schema[key])
    if schema.get("type") == "null":
        return "null"
    if schema.get("type") == "array":
        item = schema.get("items") or {}
        n_min, n_max = schema.get("minItems"), schema.get("maxItems")
        if item and n_min is not None and n_min == n_max:
            return f"{n_min} {_noun(item, plural=True)}"
    phrase = _noun(schema)
    if phrase.startswith(("one of", "exactly")):
        return phrase
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

"""The tools an LLM sees and how its calls are read: one tool per action name, a required ``device`` enum.

``ToolTable`` turns the devices' ActionSpecs into OpenAI tool schemas (or a plain-text prompt for models
without tool calling), and parses what a model sends -- a dict, an OpenAI tool call, or text with a JSON
block -- into a checked ``ParsedCall``, or raises InvalidAction with a reason the model can act on.
``ToolCallSpace`` is the action space of tool-call text.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from crab_gym.core.actions import ActionSpec, InvalidAction
from crab_gym.spaces import CHARSET

__all__ = ["FORMAT_HINT", "MAX_CALL_CHARS", "ParsedCall", "ToolCallSpace", "ToolTable"]

MAX_CALL_CHARS = 65536
"""Longest tool call (text or JSON arguments) read; longer ones are invalid actions."""

FORMAT_HINT = 'Answer with one JSON object: {"name": "<tool>", "arguments": {"device": "<device>", ...}}.'
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
_MAX_BRACES = 64  # '{' positions tried when looking for a bare JSON object in a text


@dataclass(frozen=True)
class Tool:
    """One tool: an action name and the spec of that action on each device that has it (env order)."""

    name: str
    specs: Mapping[str, ActionSpec]
    schema: dict[str, Any]


@dataclass(frozen=True)
class ParsedCall:
    """A tool call that names a real action on a real device, with validated python parameters."""

    device: str
    name: str
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The call as ``{"name", "arguments"}`` with JSON-ready values (the shape a model sends)."""
        return {"name": self.name, "arguments": {"device": self.device, **_jsonable(self.params)}}


class ToolTable:
    """Tools built from devices' action specs: schemas, a JSON-mode prompt, parsing and sampling of calls.

    ``devices`` is a sequence of (device name, device description, action specs), in env order.
    """

    def __init__(self, devices: Sequence[tuple[str, str, Sequence[ActionSpec]]]) -> None:
        self.devices = {name: description for name, description, _ in devices}
        grouped: dict[str, dict[str, ActionSpec]] = {}
        for dev, _, specs in devices:
            for spec in specs:
                if "device" in spec.param_names:
                    raise TypeError(f"{dev}.{spec.name}: a parameter named 'device' clashes with the tool's")
                grouped.setdefault(spec.name, {})[dev] = spec
        self.tools = {name: Tool(name, specs, self._schema(name, specs)) for name, specs in grouped.items()}

    # ---- schemas and prompts ------------------------------------------------------------------
    def _schema(self, name: str, specs: Mapping[str, ActionSpec], compact: bool = False) -> dict[str, Any]:
        devs = list(specs)
        descriptions = {d: s.description for d, s in specs.items()}
        if len(set(descriptions.values())) == 1:
            description = next(iter(descriptions.values()))
        else:
            description = "\n".join(f"On {d}: {text}" for d, text in descriptions.items())

        def about(d: str) -> str:
            text = self.devices[d]
            return text.split(". ", 1)[0].rstrip(".") + "." if compact else text

        props: dict[str, Any] = {
            "device": {
                "type": "string",
                "enum": devs,
                "description": "The device that performs the action: "
                + "; ".join(f"'{d}' = {about(d)}" for d in devs),
            }
        }
        holders: dict[str, list[str]] = {}
        texts: dict[str, dict[str, str]] = {}
        for d, spec in specs.items():
            for pname, pschema in spec.parameters_schema()["properties"].items():
                holders.setdefault(pname, []).append(d)
                texts.setdefault(pname, {})[d] = pschema.get("description", "")
                props.setdefault(pname, dict(pschema))
        required = ["device"]
        for pname, ds in holders.items():
            parts = dict.fromkeys(texts[pname].values())
            text = (
                next(iter(parts))
                if len(parts) == 1
                else " ".join(f"On {d}: {t}" for d, t in texts[pname].items())
            )
            req = [d for d in ds if any(p.name == pname and p.required for p in specs[d].params)]
            if len(ds) < len(devs):
                text = f"(only for device {', '.join(repr(d) for d in ds)}) {text}"
            if req == devs:
                required.append(pname)
            elif req:
                text += f" Required for device {', '.join(repr(d) for d in req)}."
            props[pname]["description"] = text
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": props,
                    "required": required,
                    "additionalProperties": False,
                },
            },
        }

    def openai_tools(self, compact: bool = False) -> list[dict[str, Any]]:
        """The OpenAI ``tools=[...]`` list (``compact``: device descriptions cut to one sentence)."""
        if compact:
            return [self._schema(t.name, t.specs, compact=True) for t in self.tools.values()]
        return [json.loads(json.dumps(t.schema)) for t in self.tools.values()]

    def json_mode_prompt(self) -> str:
        """The same tools as text, for models without tool calling, and the exact answer format."""
        example = next(
            (
                {"name": t.name, "arguments": {"device": d, "point": [0.5, 0.25]}}
                for t in self.tools.values()
                for d, s in t.specs.items()
                if s.param_names == ("point",)
            ),
            {"name": "wait", "arguments": {"device": "root", "seconds": 1}},
        )
        lines = ["You control these devices:"]
        lines += [f"- {name}: {text}" for name, text in self.devices.items()]
        lines += [
            "",
            "Act by calling exactly one tool per reply. Reply with one JSON object in a ```json block:",
            "```json",
            '{"name": "<tool name>", "arguments": {"device": "<device>", "<parameter>": <value>, ...}}',
            "```",
            '"name" is one of the tools below; "arguments" holds its parameters and always "device", one',
            "of the devices that tool lists. Points are [x, y] fractions of the screen's width and height,",
            "from the top left corner. Example:",
            "```json",
            json.dumps(example, ensure_ascii=False),
            "```",
            "",
            "Tools:",
        ]
        for t in self.tools.values():
            fn = t.schema["function"]
            params = fn["parameters"]
            sig = ", ".join(p if p in params["required"] else f"{p}?" for p in params["properties"])
            lines.append(f"## {t.name}({sig})")
            lines.append(fn["description"])
            lines.append(f"devices: {', '.join(t.specs)}")
            lines.append("arguments (JSON schema): " + json.dumps(params, ensure_ascii=False))
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"

    # ---- parsing ------------------------------------------------------------------------------
    def parse(self, call: Any) -> ParsedCall:
        """The call as (device, action name, validated params), or :class:`InvalidAction` saying why not."""
        name, args, device = _extract(call, self)
        tool = self.tools.get(name)
        if tool is None:
            close = difflib.get_close_matches(name, list(self.tools), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise InvalidAction(f"unknown tool {_short(name)}.{hint} Tools: {', '.join(self.tools)}.")
        if "device" in args:
            device = args.pop("device")
        where = f"{name}: parameter 'device'"
        if device is None:
            if len(tool.specs) > 1:
                raise InvalidAction(f"{where} is required: one of {', '.join(map(repr, tool.specs))}.")
            device = next(iter(tool.specs))
        if not isinstance(device, str) or device not in tool.specs:
            devices = ", ".join(map(repr, tool.specs))
            if isinstance(device, str) and device in self.devices:
                others = [t.name for t in self.tools.values() if device in t.specs]
                raise InvalidAction(
                    f"{where}: device {device!r} has no action {name!r}; {name} runs on {devices}. "
                    f"{device}'s tools: {', '.join(others)}."
                )
            raise InvalidAction(f"{where} must be one of {devices}; got {_short(device)}.")
        spec = tool.specs[device]
        props = spec.parameters_schema()["properties"]
        for key, value in args.items():
            if key in props and _bool_for_number(value, props[key]):
                raise InvalidAction(
                    f"{name}: parameter {key!r} takes numbers, not true/false; got {_short(value)}."
                )
        return ParsedCall(device, name, spec.validate(args))

    def is_valid(self, call: Any) -> bool:
        try:
            self.parse(call)
        except InvalidAction:
            return False
        return True

    # ---- sampling -----------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator) -> str:
        """A random valid call as a JSON string (random tool, device and in-range arguments)."""
        names = sorted(self.tools)
        for _ in range(100):
            tool = self.tools[names[int(rng.integers(len(names)))]]
            devs = list(tool.specs)
            device = devs[int(rng.integers(len(devs)))]
            schema = tool.specs[device].parameters_schema()
            args = {
                p: _sample_schema(s, rng)
                for p, s in schema["properties"].items()
                if p in schema["required"] or rng.random() < 0.5
            }
            text = json.dumps(
                {"name": tool.name, "arguments": {"device": device, **args}}, ensure_ascii=False
            )
            if self.is_valid(text):
                return text
        return json.dumps({"name": names[0], "arguments": {"device": next(iter(self.tools[names[0]].specs))}})


class ToolCallSpace(spaces.Text):
    """Tool calls as JSON text: ``contains`` accepts any call ``FunctionCalls.step`` would carry out
    (strings, dicts and tool-call objects alike) and ``sample`` draws random valid calls."""

    def __init__(self, table: ToolTable, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(MAX_CALL_CHARS, min_length=2, charset=CHARSET, seed=seed)
        self.table = table

    def contains(self, x: Any) -> bool:
        return self.table.is_valid(x)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return self.table.sample(self.np_random)

    def __repr__(self) -> str:
        return f"ToolCallSpace(tools={list(self.table.tools)})"

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolCallSpace:
        # The table holds action specs built at run time (Set-of-Marks' element specs), which cannot be
        # copied; it never changes, so copies share it (vector envs batch the space by deep copies).
        import copy

        return ToolCallSpace(self.table, seed=copy.deepcopy(self.np_random, memo))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ToolCallSpace) and other.table.tools.keys() == self.table.tools.keys()


def _extract(call: Any, table: ToolTable) -> tuple[str, dict[str, Any], Any]:
    try:
        return _extract_unchecked(call, table)
    except InvalidAction:
        raise
    except (RecursionError, MemoryError):
        raise InvalidAction("the tool call is nested too deeply to read. " + FORMAT_HINT) from None
    except Exception as e:  # a foreign object whose attributes fail: still a reason, never a crash
        raise InvalidAction(
            f"could not read the tool call ({type(e).__name__}: {e}). {FORMAT_HINT}"
        ) from None


def _extract_unchecked(call: Any, table: ToolTable) -> tuple[str, dict[str, Any], Any]:
    tools = ", ".join(table.tools)
    if call is None:
        raise InvalidAction(f"no tool call (got None). {FORMAT_HINT} Tools: {tools}.")
    if isinstance(call, (bytes, bytearray, memoryview)):
        try:
            call = bytes(call).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidAction(f"the tool call is not UTF-8 text. {FORMAT_HINT}") from None
    if isinstance(call, str):
        call = _json_in_text(call)
    if isinstance(call, (list, tuple)):
        if len(call) != 1:
            raise InvalidAction(f"one tool call per step; got a list of {len(call)} items. {FORMAT_HINT}")
        call = call[0]
    if not isinstance(call, Mapping):
        fn = getattr(call, "function", None)
        if fn is not None and hasattr(fn, "name"):
            call = {"function": {"name": fn.name, "arguments": getattr(fn, "arguments", None)}}
        elif hasattr(call, "name") and hasattr(call, "arguments"):
            call = {"name": call.name, "arguments": call.arguments}
        else:
            raise InvalidAction(f"a tool call is a JSON object; got {_kind(call)}. {FORMAT_HINT}")
    inner = call["function"] if isinstance(call.get("function"), Mapping) else call
    name = inner.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidAction(
            f'the tool call needs "name", a string naming one of the tools: {tools}. {FORMAT_HINT}'
        )
    name = name.strip()
    args = inner.get("arguments", inner.get("parameters"))
    if isinstance(args, (bytes, bytearray)):
        args = bytes(args).decode("utf-8", "replace")
    if args is None or (isinstance(args, str) and not args.strip()):
        args = {}
    if isinstance(args, str):
        if len(args) > MAX_CALL_CHARS:
            raise InvalidAction(
                f"{name}: the arguments are {len(args)} characters; the limit is {MAX_CALL_CHARS}."
            )
        try:
            args = json.loads(args)
        except json.JSONDecodeError as e:
            raise InvalidAction(
                f"{name}: the arguments are not valid JSON ({e.msg} at line {e.lineno}, column {e.colno}); "
                'give a JSON object such as {"device": "...", ...}.'
            ) from None
    if not isinstance(args, Mapping):
        raise InvalidAction(f'{name}: "arguments" must be a JSON object of parameters; got {_kind(args)}.')
    if not all(isinstance(k, str) for k in args):
        raise InvalidAction(f"{name}: argument names must be strings.")
    device = call.get("device", call.get("env"))
    return name, dict(args), device


def _json_in_text(text: str) -> Any:
    """The JSON value of a whole reply, else of its first ```json fence, else its first bare object."""
    if len(text) > MAX_CALL_CHARS:
        raise InvalidAction(f"the reply is {len(text)} characters long; the limit is {MAX_CALL_CHARS}.")
    if not text.strip():
        raise InvalidAction(f"the reply is empty. {FORMAT_HINT}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        error = f"{e.msg} at line {e.lineno}, column {e.colno}"
    for m in _FENCE.finditer(text):
        try:
            return json.loads(m.group(1))
        except json.JSONDecodeError as e:
            error = f"the ```json block is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"
    decoder = json.JSONDecoder()
    for i, m in enumerate(re.finditer(r"\{", text)):
        if i >= _MAX_BRACES:
            break
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise InvalidAction(f"no JSON tool call found in the reply ({error}). {FORMAT_HINT}")


def _sample_schema(schema: Mapping[str, Any], rng: np.random.Generator) -> Any:
    if "enum" in schema:
        return schema["enum"][int(rng.integers(len(schema["enum"])))]
    kind = schema.get("type")
    if kind == "array":
        lo, hi = schema.get("minItems", 1), schema.get("maxItems", schema.get("minItems", 1))
        return [_sample_schema(schema.get("items", {}), rng) for _ in range(int(rng.integers(lo, hi + 1)))]
    if kind == "number":
        return round(float(rng.uniform(schema.get("minimum", 0.0), schema.get("maximum", 1.0))), 4)
    if kind == "integer":
        return int(rng.integers(schema.get("minimum", 0), schema.get("maximum", 9) + 1))
    if kind == "boolean":
        return bool(rng.integers(2))
    words = ("hello", "crab", "notes", "42", "terminal", "Zoë")
    n = int(rng.integers(1, 4))
    return " ".join(words[int(rng.integers(len(words)))] for _ in range(n))[: schema.get("maxLength", 64)]


def _bool_for_number(value: Any, schema: Mapping[str, Any]) -> bool:
    """A JSON true/false where the schema wants a number (pydantic would read it as 1/0)."""
    if isinstance(value, bool):
        return schema.get("type") in ("number", "integer")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return any(_bool_for_number(v, schema["items"]) for v in value)
    return False


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _kind(value: Any) -> str:
    names = {list: "a JSON list", str: "a JSON string", int: "a number", float: "a number", bool: "a boolean"}
    return names.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

"""OpenAI's computer-use actions (``computer_use_preview``): the ``action`` of a ``computer_call`` as JSON.

``{"type": "click", "button": "left", "x": 640, "y": 400}``; a whole ``computer_call`` item
(``{"type": "computer_call", "action": {...}}``) or a list of items is read too. Coordinates are pixels of
the frame the agent was shown; ``keypress`` keys use the CUA names (``["CTRL", "S"]``, ``"ENTER"``,
``"ARROWLEFT"``); a scroll's ``scroll_y`` of 100 px is one wheel click (positive: down). On a
multi-device env the action names its device with ``"device"``. A ``message`` item (no computer call)
ends the episode: its text is the answer (``submit``), none is ``complete``. On the phone a scroll is a
swipe, ENTER/ESC/HOME are its buttons, and a ``drag`` whose path stays on one point is a long press.
The ``wheel`` button is a middle click; refused: the back and forward buttons. A ``function_call`` item of
the ``ask_user`` function (offered when the env has ``ask_user``) asks the task's user. No triple click: the
translator writes a click and CTRL+A.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers.dialects.base import MAX_CALLS, Act, Context, Dialect, display
from crab_gym.wrappers.dialects.jsonish import field_of, items, json_value

HINT = 'Send the computer_call action as JSON, e.g. {"type": "click", "button": "left", "x": 100, "y": 200}.'
ACTIONS = ("click", "double_click", "drag", "move", "scroll", "type", "keypress", "wait", "screenshot")
WHEEL_PX = 100
QUESTION = {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}


class OpenAI(Dialect):
    name = "openai"
    triple_clicks = False
    naming = 'a "device" field in the action: {"type": "click", ..., "device": "android"}'

    def parse(self, action: Any, ctx: Context) -> list[Act]:
        value = json_value(action, HINT)
        if isinstance(value, Mapping) and isinstance(value.get("output"), list):
            value = value["output"]  # a whole response
        found = items(value, HINT, MAX_CALLS)
        calls = [v for v in found if v.get("type") not in ("message", "reasoning")]
        if not calls:
            said = " ".join(_text(v) for v in found).strip()
            return [Act("answer", text=said[:256])] if said else [Act("complete")]
        acts: list[Act] = []
        for item in calls:
            if item.get("type") == "function_call":
                acts.append(_function_call(item))
            elif item.get("type") == "computer_call":
                inner = item.get("actions", item.get("action"))
                for a in inner if isinstance(inner, list) else [inner]:
                    if not isinstance(a, Mapping):
                        raise InvalidAction(f'a computer_call needs an "action" object. {HINT}')
                    acts.append(self._one(a, ctx))
            else:
                acts.append(self._one(item, ctx))
        return acts

    def _one(self, a: Mapping[str, Any], ctx: Context) -> Act:
        kind = a.get("type")
        if kind not in ACTIONS:
            raise InvalidAction(
                f"unknown action type {str(kind)[:40]!r}; types: {', '.join(ACTIONS)}. {HINT}"
            )
        if kind == "screenshot":
            return Act("observe")
        if kind == "wait":
            return Act("wait", seconds=2.0)  # OpenAI's wait has no duration; its samples sleep 2 s
        device = ctx.device(a.get("device"), f"name one with {self.naming}")
        if kind == "type":
            return Act("type", device, text=field_of(a, "text", str, "type"))
        if kind == "keypress":
            keys = field_of(a, "keys", list, "keypress")
            if not keys or not all(isinstance(k, str) for k in keys):
                raise InvalidAction("keypress: 'keys' must be a non-empty list of key names")
            return Act("key", device, keys=tuple(k.lower() for k in keys))  # CUA writes "A" for the a key
        if kind == "drag":
            path = field_of(a, "path", list, "drag")
            if len(path) < 2 or not all(isinstance(p, Mapping) for p in path):
                raise InvalidAction('drag: "path" must be at least 2 points {"x": .., "y": ..}')
            start, end = self._xy(path[0], device, ctx), self._xy(path[-1], device, ctx)
            ctx.cursor[device] = end
            return Act("drag", device, start, end)
        point = ctx.point_at(device, self._xy(a, device, ctx), kind)
        if kind == "click":
            button = a.get("button", "left")
            kind = {"left": "click", "right": "right_click", "wheel": "middle_click"}.get(button, "")
            if not kind:
                return Act(
                    "unsupported", text=f"click with button {button!r} is not supported (left, right, wheel)"
                )
            return Act(kind, device, point)
        if kind in ("double_click", "move"):
            return Act(kind, device, point)
        sx, sy = a.get("scroll_x", 0), a.get("scroll_y", 0)
        for v in (sx, sy):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InvalidAction(f"scroll: scroll_x and scroll_y are numbers of pixels; got {v!r}")
        if abs(sy) >= abs(sx):
            direction, px = ("down" if sy > 0 else "up"), abs(sy)
        else:
            direction, px = ("right" if sx > 0 else "left"), abs(sx)
        if px == 0:
            raise InvalidAction("scroll: scroll_x and scroll_y are both 0")
        return Act("scroll", device, point, direction=direction, amount=max(1, round(px / WHEEL_PX)))

    @staticmethod
    def _xy(a: Mapping[str, Any], device: str, ctx: Context) -> tuple[float, float]:
        if "x" not in a or "y" not in a:
            raise InvalidAction('the action needs "x" and "y" (pixels of the screenshot)')
        return ctx.from_pixels(device, a["x"], a["y"])

    def render_one(self, act: Act, ctx: Context) -> str:
        out: dict[str, Any]
        if act.kind == "ask":
            arguments = json.dumps({"question": act.text}, ensure_ascii=False)
            return json.dumps({"type": "function_call", "name": "ask_user", "arguments": arguments})
        if act.kind in ("complete", "answer"):
            content = [{"type": "output_text", "text": act.text}] if act.kind == "answer" else []
            return json.dumps({"type": "message", "role": "assistant", "content": content})
        if act.kind == "observe":
            out = {"type": "screenshot"}
        elif act.kind == "wait":
            out = {"type": "wait"}
        elif act.kind in ("home", "back"):
            out = {"type": "keypress", "keys": [{"home": "HOME", "back": "ESC"}[act.kind]]}
        elif act.kind == "type":
            out = {"type": "type", "text": act.text}
        elif act.kind == "key":
            out = {"type": "keypress", "keys": [k.upper() for k in act.keys]}
        elif act.kind in ("drag", "long_press"):
            start, end = act.point, act.end if act.kind == "drag" else act.point
            assert start is not None and end is not None
            path = [ctx.to_pixels(act.device, p) for p in (start, end)]
            out = {"type": "drag", "path": [{"x": x, "y": y} for x, y in path]}
        else:
            x, y = ctx.to_pixels(act.device, act.point or (0.5, 0.5))
            if act.kind == "triple_click":
                raise InvalidAction("OpenAI's computer use has no triple click")
            kind = {"click": "click", "right_click": "click", "middle_click": "click"}.get(act.kind, act.kind)
            out = {"type": kind, "x": x, "y": y}
            if kind == "click":
                out["button"] = {"right_click": "right", "middle_click": "wheel"}.get(act.kind, "left")
            if kind == "scroll":
                dy = {"down": 1, "up": -1}.get(act.direction, 0) * act.amount * WHEEL_PX
                dx = {"right": 1, "left": -1}.get(act.direction, 0) * act.amount * WHEEL_PX
                out.update(scroll_x=dx, scroll_y=dy)
        if act.device != "root" and ctx.default_device is None:
            out["device"] = act.device
        return json.dumps(out, ensure_ascii=False)

    def tool_spec(self, ctx: Context) -> dict[str, Any]:
        w, h = display(ctx)
        tool = {
            "type": "computer_use_preview",
            "display_width": w,
            "display_height": h,
            "environment": "linux",
        }
        spec: dict[str, Any] = {"tools": [tool]}
        if ctx.asks:
            spec["tools"].append({"type": "function", "name": "ask_user", "parameters": QUESTION,
                                  "description": "Ask the user for a fact the task leaves out."})  # fmt: skip
        if ctx.default_device is None:
            sizes = "; ".join(f"'{n}' is {s.shown[0]}x{s.shown[1]} px" for n, s in ctx.screens.items())
            spec["instructions"] = (
                f"You control several devices ({sizes}). Every action that touches a screen names its device "
                f"with {self.naming}. On the phone, ENTER/ESC/HOME are its enter/back/home buttons, a scroll "
                "is a swipe, and a drag whose path stays on one point is a long press."
            )
        return spec


def _function_call(item: Mapping[str, Any]) -> Act:
    """A ``function_call`` item: the ``ask_user`` function (its ``arguments`` a JSON string)."""
    if item.get("name") != "ask_user":
        raise InvalidAction(f"unknown function {str(item.get('name'))[:40]!r}; the function is 'ask_user'")
    raw = item.get("arguments", "{}")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        raise InvalidAction("ask_user: 'arguments' is a JSON object in a string") from None
    if not isinstance(arguments, Mapping):
        raise InvalidAction("ask_user: 'arguments' is a JSON object in a string")
    return Act("ask", text=field_of(arguments, "question", str, "ask_user")[:512])


def _text(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return " ".join(str(c.get("text", "")) for c in content if isinstance(c, Mapping))
    return str(content or "")

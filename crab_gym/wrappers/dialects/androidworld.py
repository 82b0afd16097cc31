"""AndroidWorld's JSONAction: ``{"action_type": "click", "index": 3}`` or ``{"action_type": "click",
"x": 540, "y": 1200}``; an agent's ``Reason: ... Action: {...}`` reply is read too.

Action types: click, double_tap (refused: no double tap), long_press (index or x, y), input_text (text;
with an index the element is tapped first), keyboard_enter, navigate_home, navigate_back, scroll
(direction the content moves; index ignored: our phone swipes from the centre), swipe (the finger's
direction), open_app (app_name: opened from the app drawer), wait, status (goal_status "complete" or
"infeasible": both end the episode), answer (text), ask_user (text: a question for the user, as in
MobileWorld; when the env has ``ask_user``). Element indices are the order of the phone's
interactive elements now (``ActionDialect.elements("android")``); x, y are pixels of the frame the agent
was shown. AndroidWorld drives the phone only: on Crab-v0 an action may name ``"device": "android"``, and
needs no device.
"""

from __future__ import annotations

import json
from typing import Any

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers.dialects.base import OPPOSITE, PHONE, Act, Context, Dialect
from crab_gym.wrappers.dialects.jsonish import field_of, items, json_value

HINT = 'Send one JSONAction, e.g. {"action_type": "click", "index": 3}.'
ACTIONS = ("click", "double_tap", "long_press", "input_text", "keyboard_enter", "navigate_home",
           "navigate_back", "scroll", "swipe", "open_app", "wait", "status", "answer",
           "ask_user")  # fmt: skip
PROMPT = """Answer with one JSON action (AndroidWorld's JSONAction):
{"action_type": "click", "index": <element>} or {"action_type": "click", "x": <x>, "y": <y>}: tap
{"action_type": "long_press", "index": <element>} (or "x", "y"): touch and hold
{"action_type": "input_text", "text": "<text>", "index": <element>}: tap the field, then type (no Enter)
{"action_type": "keyboard_enter"}: press Enter
{"action_type": "navigate_home"} / {"action_type": "navigate_back"}: the home / back buttons
{"action_type": "scroll", "direction": "up|down|left|right"}: scroll the content that way
{"action_type": "open_app", "app_name": "<name>"}: open an app by its name
{"action_type": "wait"}: let the screen update
{"action_type": "answer", "text": "<answer>"}: answer the question asked (ends the task)
{"action_type": "status", "goal_status": "complete"}: the task is done ("infeasible": it cannot be)
{"action_type": "ask_user", "text": "<question>"}: ask the user for a fact the task leaves out"""


class AndroidWorld(Dialect):
    name = "androidworld"
    devices = frozenset({PHONE})
    naming = 'none needed (the phone); "device": "android" is accepted'
    opens_apps = True

    def parse(self, action: Any, ctx: Context) -> list[Act]:
        if isinstance(action, str) and "Action:" in action:
            action = action.rsplit("Action:", 1)[1]
        return [self._one(a, ctx) for a in items(json_value(action, HINT), HINT, 1)]

    def _one(self, a: Any, ctx: Context) -> Act:
        kind = a.get("action_type")
        if isinstance(kind, str):
            kind = kind.lower()
        if kind not in ACTIONS:
            raise InvalidAction(
                f"unknown action_type {str(kind)[:40]!r}; types: {', '.join(ACTIONS)}. {HINT}"
            )
        if kind == "wait":
            return Act("wait", seconds=1.0)
        if kind == "status":
            status = a.get("goal_status")
            if status not in ("complete", "infeasible"):
                raise InvalidAction(f"status: goal_status is 'complete' or 'infeasible'; got {status!r}")
            return Act("complete")
        if kind == "answer":
            return Act("answer", text=field_of(a, "text", str, "answer")[:256])
        if kind == "ask_user":
            return Act("ask", text=field_of(a, "text", str, "ask_user")[:512])
        device = ctx.device(a.get("device", PHONE), 'name it with "device": "android"')
        if kind == "navigate_home":
            return Act("home", device)
        if kind == "navigate_back":
            return Act("back", device)
        if kind == "keyboard_enter":
            return Act("key", device, keys=("enter",))
        if kind == "open_app":
            return Act("open_app", device, text=field_of(a, "app_name", str, "open_app"))
        if kind in ("scroll", "swipe"):
            direction = a.get("direction")
            if direction not in OPPOSITE:
                raise InvalidAction(f"{kind}: direction is up, down, left or right; got {direction!r}")
            content = direction if kind == "scroll" else OPPOSITE[direction]
            return Act("scroll", device, (0.5, 0.5), direction=content, amount=5)
        if kind == "double_tap":
            return Act("unsupported", text="double_tap is not supported: the phone has no double tap")
        if kind == "input_text":
            text = field_of(a, "text", str, "input_text")
            if a.get("index") is None and a.get("x") is None:
                return Act("type", device, text=text)
            return Act("type", device, self._target(a, device, ctx, kind), text=text)
        return Act("click" if kind == "click" else "long_press", device, self._target(a, device, ctx, kind))

    @staticmethod
    def _target(a: Any, device: str, ctx: Context, what: str) -> tuple[float, float]:
        if a.get("index") is not None:
            return ctx.element(device, a["index"])
        if a.get("x") is None or a.get("y") is None:
            raise InvalidAction(f'{what}: give an element "index", or "x" and "y"')
        return ctx.from_pixels(device, a["x"], a["y"])

    def render_one(self, act: Act, ctx: Context) -> str:
        k = act.kind
        out: dict[str, Any]
        if k in ("wait", "observe"):
            out = {"action_type": "wait"}
        elif k == "complete":
            out = {"action_type": "status", "goal_status": "complete"}
        elif k == "answer":
            out = {"action_type": "answer", "text": act.text}
        elif k == "ask":
            out = {"action_type": "ask_user", "text": act.text}
        elif k in ("home", "back"):
            out = {"action_type": f"navigate_{k}"}
        elif k == "key" and act.keys in (("enter",), ("Return",)):
            out = {"action_type": "keyboard_enter"}
        elif k == "type":
            out = {"action_type": "input_text", "text": act.text}
        elif k == "open_app":
            out = {"action_type": "open_app", "app_name": act.text}
        elif k == "scroll":
            out = {"action_type": "scroll", "direction": act.direction}
        elif k in ("click", "long_press") and act.point is not None:
            x, y = ctx.to_pixels(act.device, act.point)
            out = {"action_type": k, "x": x, "y": y}
        else:
            raise InvalidAction(f"AndroidWorld has no {k} action ({', '.join(act.keys)})")
        return json.dumps(out, ensure_ascii=False)

    def tool_spec(self, ctx: Context) -> dict[str, Any]:
        w, h = ctx.screens[PHONE].shown
        return {"prompt": PROMPT, "screen": (w, h)}

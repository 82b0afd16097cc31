"""The Anthropic computer-use tool (``computer_20250124``): its tool input as JSON.

``{"action": "left_click", "coordinate": [640, 400]}``; a ``tool_use`` block (``{"type": "tool_use",
"name": "computer", "input": {...}}``) or a list of them (several actions in one step) is read too.
Coordinates are pixels of the frame the agent was shown. Keys use xdotool's syntax (``"ctrl+s"``,
``"Return"``; ``"ctrl+a BackSpace"`` is two presses, one env step each). On a multi-device env the input
names its device with ``"device"``:
``{"action": "left_click", "coordinate": [540, 1200], "device": "android"}``.
A ``tool_use`` of the ``ask_user`` tool (``{"type": "tool_use", "name": "ask_user", "input": {"question":
"..."}}``, offered when the env has ``ask_user``) asks the task's user.
A turn without tool use (a whole message, ``{"content": [{"type": "text", "text": "42"}], ...}``)
ends the episode: its text is the answer (``submit``), no text is ``complete``.
On the phone, Return/Escape/Home are its enter/back/home buttons, a scroll is a swipe, and a
``left_click_drag`` that ends where it starts is a long press. ``left_mouse_down`` / ``left_mouse_up``
within one step (a list) are a drag; in different steps the button stays down between them, where the
pointer is (a ``mouse_move`` meanwhile drags). ``hold_key`` presses its keys, waits ``duration`` seconds
(whole seconds, at most 10) and releases them, as several env steps; a click or scroll with ``text``
(``"shift"``) holds those keys around it (key_down, the click, key_up). Holding keys or the button is for
the desktop: the phone refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers.dialects.base import DESKTOP, MAX_CALLS, Act, Context, Dialect, display
from crab_gym.wrappers.dialects.jsonish import field_of, items, json_value, pair

HOLD_MAX = 10
ASK = "Ask the user for a fact the task leaves out; the reply comes back as the tool's result."
QUESTION = {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}
"""Most seconds a hold_key holds."""
HINT = 'Send the computer tool\'s input as JSON, e.g. {"action": "left_click", "coordinate": [100, 200]}.'
CLICKS = {"left_click": "click", "right_click": "right_click", "double_click": "double_click",
          "middle_click": "middle_click", "triple_click": "triple_click", "mouse_move": "move"}  # fmt: skip
ACTIONS = (*CLICKS, "key", "hold_key", "type", "cursor_position", "left_mouse_down", "left_mouse_up",
           "left_click_drag", "scroll", "wait", "screenshot")  # fmt: skip


class Anthropic(Dialect):
    name = "anthropic"
    naming = 'a "device" field beside "action": {"action": "left_click", ..., "device": "android"}'

    def parse(self, action: Any, ctx: Context) -> list[Act]:
        value = json_value(action, HINT)
        if isinstance(value, Mapping) and isinstance(value.get("content"), list):
            value = value["content"]  # a whole assistant message
            if not value:
                return [Act("complete")]  # it ended its turn with nothing to say
        found = items(value, HINT, MAX_CALLS)
        calls = [b for b in found if b.get("type") != "text"]
        if not calls:  # a turn without tool use: the agent is done; its words are its answer
            said = " ".join(str(b.get("text", "")) for b in found).strip()
            return [Act("answer", text=said[:256])] if said else [Act("complete")]
        found = calls
        acts: list[Act] = []
        down: tuple[str, Any, int] | None = None  # device, where, the index of its Act if it stays held
        for obj in found:
            inner = obj.get("input") if obj.get("type") == "tool_use" else obj
            if not isinstance(inner, Mapping):
                raise InvalidAction(f'a tool_use block needs an "input" object. {HINT}')
            if obj.get("type") == "tool_use" and obj.get("name") == "ask_user":
                acts.append(Act("ask", text=field_of(inner, "question", str, "ask_user")[:512]))
                continue
            if obj.get("type") == "tool_use" and obj.get("name") not in (None, "computer"):
                raise InvalidAction(
                    f"unknown tool {obj.get('name')!r}; the tools are 'computer' and 'ask_user'"
                )
            name = inner.get("action")
            if name == "left_mouse_down":
                device = ctx.device(inner.get("device"), f"name one with {self.naming}")
                down = (device, ctx.cursor.get(device), len(acts))
                continue
            if name == "left_mouse_up":
                device = ctx.device(inner.get("device"), f"name one with {self.naming}")
                if down is None:  # the button went down in an earlier step
                    acts.append(Act("mouse_up", device, text="left_mouse_up without left_mouse_down"))
                    continue
                start = down[1] if down[1] is not None else ctx.point_at(device, None, "left_mouse_down")
                acts.append(Act("drag", down[0], start, ctx.point_at(down[0], None, "left_mouse_up")))
                down = None
                continue
            acts.extend(self._one(inner, ctx))
        if down is not None:  # stays down until a later step's left_mouse_up
            acts.insert(down[2], Act("mouse_down", down[0], text="left_mouse_down without left_mouse_up"))
        return acts

    def _one(self, inp: Mapping[str, Any], ctx: Context) -> list[Act]:
        if inp.get("action") == "key":  # xdotool's "ctrl+a BackSpace": chords pressed one after another
            device = ctx.device(inp.get("device"), f"name one with {self.naming}")
            return [Act("key", device, keys=keys) for keys in _chords(inp, "key")]
        if inp.get("action") == "hold_key":
            return self._hold_key(inp, ctx)
        act = self._act(inp, ctx)
        if inp.get("text") and inp.get("action") in (*CLICKS, "scroll") and act.kind != "unsupported":
            return _with_keys(act, _chords(inp, str(inp["action"])), str(inp["action"]))
        return [act]

    def _hold_key(self, inp: Mapping[str, Any], ctx: Context) -> list[Act]:
        """Key down, a wait of ``duration`` whole seconds (5 at most per wait), key up."""
        device = ctx.device(inp.get("device"), f"name one with {self.naming}")
        chords = _chords(inp, "hold_key")
        if len(chords) != 1:
            raise InvalidAction("hold_key: 'text' is one key or chord, e.g. \"shift\"")
        seconds = inp.get("duration", 1)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= HOLD_MAX:
            raise InvalidAction(f"hold_key: 'duration' must be seconds, 0 to {HOLD_MAX}; got {seconds!r}")
        waits, left = [], round(seconds)
        while left > 0:
            waits.append(Act("wait", seconds=min(left, 5)))
            left -= 5
        return [Act("key_down", device, keys=chords[0], text="hold_key"), *waits,
                Act("key_up", device, keys=chords[0], text="hold_key")]  # fmt: skip

    def _act(self, inp: Mapping[str, Any], ctx: Context) -> Act:
        name = inp.get("action")
        if name not in ACTIONS:
            raise InvalidAction(f"unknown action {str(name)[:40]!r}; actions: {', '.join(ACTIONS)}. {HINT}")
        if name in ("screenshot", "cursor_position"):
            return Act("observe")
        if name == "wait":
            seconds = inp.get("duration", 1)
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 100:
                raise InvalidAction(f"wait: 'duration' must be seconds, 0 to 100; got {seconds!r}")
            return Act("wait", seconds=float(seconds))
        device = ctx.device(inp.get("device"), f"name one with {self.naming}")
        where = (
            ctx.point_at(device, self._point(inp, "coordinate", device, ctx), name)
            if name in CLICKS
            else None
        )
        if name in CLICKS:
            return Act(CLICKS[name], device, where)
        if name == "type":
            return Act("type", device, text=field_of(inp, "text", str, "type"))
        if name == "left_click_drag":
            start = self._point(inp, "start_coordinate", device, ctx) or ctx.point_at(device, None, name)
            end = self._point(inp, "coordinate", device, ctx)
            if end is None:
                raise InvalidAction("left_click_drag: 'coordinate' (where the drag ends) is required")
            ctx.cursor[device] = end
            return Act("drag", device, start, end)
        direction = field_of(inp, "scroll_direction", str, "scroll")
        if direction not in ("up", "down", "left", "right"):
            raise InvalidAction(f"scroll: 'scroll_direction' is up, down, left or right; got {direction!r}")
        amount = inp.get("scroll_amount", 3)
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= 100:
            raise InvalidAction(f"scroll: 'scroll_amount' must be an integer 0 to 100; got {amount!r}")
        point = self._point(inp, "coordinate", device, ctx)
        if point is not None:
            ctx.cursor[device] = point
        return Act("scroll", device, point, direction=direction, amount=amount)

    @staticmethod
    def _point(inp: Mapping[str, Any], key: str, device: str, ctx: Context) -> tuple[float, float] | None:
        if inp.get(key) is None:
            return None
        return ctx.from_pixels(device, *pair(inp[key], key))

    def render_one(self, act: Act, ctx: Context) -> str:
        import json

        out: dict[str, Any]
        if act.kind == "ask":
            return json.dumps({"type": "tool_use", "name": "ask_user", "input": {"question": act.text}})
        if act.kind == "observe":
            out = {"action": "screenshot"}
        elif act.kind in ("complete", "answer"):  # the turn ends without tool use
            text = [{"type": "text", "text": act.text}] if act.kind == "answer" else []
            return json.dumps({"role": "assistant", "content": text, "stop_reason": "end_turn"})
        elif act.kind == "wait":
            out = {"action": "wait", "duration": act.seconds}
        elif act.kind in ("home", "back"):
            out = {"action": "key", "text": {"home": "Home", "back": "Escape"}[act.kind]}
        elif act.kind == "open_app":
            raise InvalidAction("the computer tool has no open_app: press super, then type the name")
        elif act.kind == "type":
            out = {"action": "type", "text": act.text}
        elif act.kind == "key":
            out = {"action": "key", "text": "+".join(act.keys)}
        elif act.kind in ("mouse_down", "mouse_up") and act.button == "left":
            out = {"action": f"left_{act.kind}"}
        elif act.kind in ("mouse_down", "mouse_up", "key_down", "key_up"):
            raise InvalidAction(
                f"the computer tool has no {act.kind} (it holds the left button, keys in hold_key)"
            )
        elif act.kind in ("drag", "long_press"):
            start, end = act.point, act.end if act.kind == "drag" else act.point
            assert start is not None and end is not None
            out = {"action": "left_click_drag", "start_coordinate": ctx.to_pixels(act.device, start),
                   "coordinate": ctx.to_pixels(act.device, end)}  # fmt: skip
        elif act.kind == "scroll":
            out = {"action": "scroll", "scroll_direction": act.direction, "scroll_amount": act.amount}
            if act.point is not None:
                out["coordinate"] = ctx.to_pixels(act.device, act.point)
        else:
            name = {v: k for k, v in CLICKS.items()}[act.kind]
            assert act.point is not None
            out = {"action": name, "coordinate": ctx.to_pixels(act.device, act.point)}
        if act.device != "root" and ctx.default_device is None:
            out["device"] = act.device
        return json.dumps(out, ensure_ascii=False)

    def tool_spec(self, ctx: Context) -> dict[str, Any]:
        w, h = display(ctx)
        tool = {"type": "computer_20250124", "name": "computer", "display_width_px": w,
                "display_height_px": h, "display_number": 1}  # fmt: skip
        spec: dict[str, Any] = {"tools": [tool], "betas": ["computer-use-2025-01-24"]}
        if ctx.asks:
            spec["tools"].append({"name": "ask_user", "description": ASK, "input_schema": QUESTION})
        if ctx.default_device is None:
            sizes = "; ".join(f"'{n}' is {s.shown[0]}x{s.shown[1]} px" for n, s in ctx.screens.items())
            spec["system"] = (
                f"You control several devices ({sizes}). Every computer action that touches a screen names "
                f"its device with {self.naming}. On the phone, Return/Escape/Home are its enter/back/home "
                "buttons, a scroll is a swipe, and a left_click_drag ending where it starts is a long press."
            )
        return spec


def _with_keys(act: Act, chords: list[tuple[str, ...]], what: str) -> list[Act]:
    """A click or scroll with ``text``'s modifier keys held ("shift", "ctrl+shift" or "ctrl shift"): key_down,
    the act, key_up (the desktop; the phone has no keys to hold)."""
    if act.device != DESKTOP:
        return [Act("unsupported", text=f"{what} with keys held is not supported on {act.device!r}")]
    keys = tuple(k for chord in chords for k in chord)
    return [
        Act("key_down", act.device, keys=keys, text=what),
        act,
        Act("key_up", act.device, keys=keys, text=what),
    ]


def _chords(inp: Mapping[str, Any], what: str) -> list[tuple[str, ...]]:
    """xdotool's "ctrl+a BackSpace" in ``text``: the keys of each chord."""
    chords = field_of(inp, "text", str, what).split()
    if not chords:
        raise InvalidAction(f"{what}: 'text' names a key or chord, e.g. \"ctrl+s\"")
    return [tuple(c.split("+")) if c != "+" else ("+",) for c in chords]

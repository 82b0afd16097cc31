"""UI-TARS' text actions: ``Thought: ...`` then ``Action: click(start_box='(235,512)')``.

Boxes are UI-TARS' 0-1000 relative coordinates of the screen: ``'(x,y)'``, ``'(x1,y1,x2,y2)'`` (its
centre), ``'[x1, y1, x2, y2]'``, with or without ``<|box_start|>``/``<|box_end|>``, or
``<point>x y</point>`` (also as ``point=``, ``start_point=``, ``end_point=``).
Computer actions: click, left_double, right_single, drag, hotkey(key='ctrl c'), type(content=...) (a
trailing ``\\n`` presses Enter), scroll(start_box, direction), wait() (5 s), finished(content=...) (the
content, if any, is the answer). Mobile: long_press, open_app(app_name=...), press_home(), press_back();
``open_app`` opens a desktop app through the launcher too. Several actions may follow ``Action:``, one per
line. On a multi-device env each call names its device with a ``device='android'`` argument. The text is
parsed with :mod:`ast`, never run. ``call_user()`` asks the task's simulated user (our ``ask_user``): the
question is its ``content=``, else the step's ``Thought:``. Refused: anything else.
"""

from __future__ import annotations

import re
from typing import Any

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers.dialects.base import Act, Context, Dialect, device_sizes
from crab_gym.wrappers.dialects.calls import Call, code_of, parse_calls

SCALE = (1000.0, 1000.0)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
ACTIONS = ("click", "left_single", "left_double", "right_single", "drag", "hotkey", "type", "scroll", "wait",
           "finished", "call_user", "long_press", "open_app", "press_home", "press_back")  # fmt: skip
ACTION_SPACE = """click(start_box='<|box_start|>(x1,y1)<|box_end|>')
left_double(start_box='<|box_start|>(x1,y1)<|box_end|>')
right_single(start_box='<|box_start|>(x1,y1)<|box_end|>')
drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')
hotkey(key='')
type(content='')  # end the content with "\\n" to press Enter
scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')
long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')
open_app(app_name='')
press_home()
press_back()
wait()  # 5 seconds pass, then a new screenshot
finished(content='')  # the task is done; content, if any, is the answer (escape quotes and newlines)
call_user(content='')  # ask the user a question (when the task has a user who knows)"""


class UITars(Dialect):
    name = "uitars"
    triple_clicks = False
    naming = "a device= argument in each call: click(start_box='(500,500)', device='android')"
    opens_apps = True

    def parse(self, action: Any, ctx: Context) -> list[Act]:
        text, thought = code_of(action), ""
        if "Action:" in text:
            thought, text = text.rsplit("Action:", 1)
        calls = parse_calls(text, ACTIONS)
        if not calls:
            raise InvalidAction(f"no action after 'Action:'; actions: {', '.join(ACTIONS)}")
        return [self._one(c, ctx, _thought(thought)) for c in calls]

    def _one(self, c: Call, ctx: Context, thought: str = "") -> Act:
        kw = dict(c.kwargs)
        if c.args:
            raise InvalidAction(f"{c.name}: arguments are named, e.g. start_box='(x,y)'")
        named = kw.pop("device", None)
        for newer, box in (("point", "start_box"), ("start_point", "start_box"), ("end_point", "end_box")):
            if newer in kw:  # UI-TARS-1.5's click(point='<point>x y</point>')
                kw.setdefault(box, kw.pop(newer))
        if c.name == "wait":
            return Act("wait", seconds=5.0)
        if c.name == "finished":
            content = str(kw.get("content", "")).strip()
            return Act("answer", text=content[:256]) if content else Act("complete")
        if c.name == "call_user":  # UI-TARS hands over to the user; here the task's simulated user answers
            question = str(kw.get("content", "")).strip() or thought
            if not question:
                raise InvalidAction("call_user(): put the question in the Thought or in content='...'")
            return Act("ask", text=question[:512])
        device = ctx.device(named, f"name one with {self.naming}")
        if c.name in ("press_home", "press_back"):
            return Act(c.name[6:], device)
        if c.name == "type":
            return Act("type", device, text=_str(kw, "content", c.name))
        if c.name == "open_app":
            return Act("open_app", device, text=_str(kw, "app_name", c.name))
        if c.name == "hotkey":
            keys = _str(kw, "key", c.name).replace("+", " ").split()
            if not keys:
                raise InvalidAction("hotkey: 'key' names the keys, e.g. key='ctrl c'")
            return Act("key", device, keys=tuple(keys))
        start = self._box(kw, "start_box", device, ctx, c.name)
        if c.name == "drag":
            return Act("drag", device, start, self._box(kw, "end_box", device, ctx, c.name))
        if c.name == "scroll":
            direction = _str(kw, "direction", c.name).strip().lower()
            if direction not in ("up", "down", "left", "right"):
                raise InvalidAction(f"scroll: direction is up, down, left or right; got {direction!r}")
            return Act("scroll", device, start, direction=direction, amount=5)
        kind = {"click": "click", "left_single": "click", "left_double": "double_click",
                "right_single": "right_click", "long_press": "long_press"}[c.name]  # fmt: skip
        return Act(kind, device, start)

    @staticmethod
    def _box(kw: dict[str, Any], key: str, device: str, ctx: Context, what: str) -> tuple[float, float]:
        box = _str(kw, key, what)
        nums = [
            float(n) for n in _NUMBER.findall(box.replace("<|box_start|>", "").replace("<|box_end|>", ""))
        ]
        if len(nums) == 4:
            nums = [(nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2]
        if len(nums) != 2:
            raise InvalidAction(f"{what}: {key} is '(x,y)' or '(x1,y1,x2,y2)' in 0-1000; got {box[:40]!r}")
        return ctx.from_pixels(device, nums[0], nums[1], scale=SCALE)

    def render_one(self, act: Act, ctx: Context) -> str:
        dev = f", device='{act.device}'" if act.device != "root" and ctx.default_device is None else ""

        def box(p: Any) -> str:
            x, y = ctx.to_pixels(act.device, p, scale=SCALE)
            return f"'<|box_start|>({x},{y})<|box_end|>'"

        k = act.kind
        if k == "observe" or k == "wait":
            call = "wait()"
        elif k == "complete":
            call = "finished()"
        elif k == "answer":
            call = f"finished(content={act.text!r})"
        elif k == "ask":
            call = f"call_user(content={act.text!r})"
        elif k in ("home", "back"):
            call = f"press_{k}({dev[2:]})"
        elif k == "type":
            call = f"type(content={act.text!r}{dev})"
        elif k == "open_app":
            call = f"open_app(app_name={act.text!r}{dev})"
        elif k == "key":
            call = f"hotkey(key={' '.join(act.keys)!r}{dev})"
        elif k == "drag":
            call = f"drag(start_box={box(act.point)}, end_box={box(act.end)}{dev})"
        elif k == "scroll":
            call = f"scroll(start_box={box(act.point or (0.5, 0.5))}, direction='{act.direction}'{dev})"
        else:
            name = {"click": "click", "double_click": "left_double", "right_click": "right_single",
                    "long_press": "long_press"}.get(k)  # fmt: skip
            if name is None:
                raise InvalidAction(f"UI-TARS has no {k} action")
            call = f"{name}(start_box={box(act.point)}{dev})"
        return f"Thought: next step.\nAction: {call}"

    def tool_spec(self, ctx: Context) -> dict[str, Any]:
        lines = [
            "## Action Space",
            ACTION_SPACE,
            "",
            "Coordinates are 0-1000 of the screen's width and height.",
        ]
        if ctx.default_device is None:
            lines.append(f"Devices: {device_sizes(ctx)}. Name the device of every action with {self.naming}.")
        return {"action_space": ACTION_SPACE, "prompt": "\n".join(lines)}


def _str(kw: dict[str, Any], key: str, what: str) -> str:
    value = kw.get(key)
    if not isinstance(value, str):
        raise InvalidAction(f"{what}: {key}= is required, as a string")
    return value


def _thought(text: str) -> str:
    """The step's ``Thought:`` text (what UI-TARS says before its action), or ''."""
    if "Thought:" in text:
        text = text.split("Thought:", 1)[1]
    return " ".join(text.split())

"""What every dialect shares: the parsed action (:class:`Act`), the screens it points at (:class:`Context`),
and the two mappings between Acts and our devices' actions: :func:`lower` (Act -> our actions) and
:func:`lift` (our action -> Acts, for the translator).

An Act's points are normalised (x, y) in [0, 1] of the device's screen; each dialect turns its own
coordinates into them through the Context (pixels of the frame the agent was shown, or UI-TARS' 0-1000).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crab_gym.core.actions import InvalidAction
from crab_gym.envs.api_actions import API_ACTIONS
from crab_gym.wrappers.dialects.keys import combo, phone_button

Point = tuple[float, float]
Element = tuple[tuple[int, int, int, int], str]
"""An interactive element of a screen: its (x1, y1, x2, y2) box in full-size pixels and its label."""
Params = dict[str, Any]
DESKTOP, PHONE = "ubuntu", "android"
ROOT_KINDS = frozenset({"wait", "complete", "answer", "observe", "ask"})
SWIPE_AMOUNT = {"short": 2, "medium": 5, "long": 10}
"""Scroll amounts that stand for our phone's swipe distances (and back: <=3 short, <=7 medium)."""
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
MAX_CALLS = 32
"""Most actions one step may carry (code with more calls is refused)."""


@dataclass(frozen=True)
class Act:
    """One parsed dialect action, device resolved, points normalised.

    kind: click | right_click | middle_click | double_click | triple_click | long_press | move | drag |
    scroll | type | key | wait | home | back | open_app | complete | answer | ask (``ask_user``: ``text`` is
    the question) | observe (screenshot,
    cursor_position: a do-nothing step) | unsupported (``text`` says why) | api (the API action named by
    ``text``, with ``params``: see :mod:`crab_gym.envs.api_actions`) | mouse_down | mouse_up (``button``,
    at ``point`` if given, else where the pointer is) | key_down | key_up (``keys``): held across steps;
    for these ``text`` names the dialect's call, for the reason a device refuses it.
    """

    kind: str
    device: str = "root"
    point: Point | None = None
    end: Point | None = None
    text: str = ""
    keys: tuple[str, ...] = ()
    direction: str = ""
    amount: int = 0
    seconds: float = 1.0
    params: tuple[tuple[str, Any], ...] = ()
    button: str = "left"


HOLDS = frozenset({"mouse_down", "mouse_up", "key_down", "key_up"})


@dataclass(frozen=True)
class Screen:
    """A device's screen: its full size and the size of the frame the agent is shown (``obs_size``)."""

    device: str
    full: tuple[int, int]
    shown: tuple[int, int]


@dataclass
class Planned:
    """One of our actions to run: (device, action name, params); ``resolve`` fills params at run time
    (a phone app's icon is found once the app drawer is open)."""

    device: str
    name: str
    params: Params = field(default_factory=dict)
    resolve: Callable[[], Params] | None = None


class Context:
    """The env as a dialect sees it: screens, the default device, element boxes, the pointer."""

    def __init__(
        self,
        screens: Mapping[str, Screen],
        elements: Callable[[str], Sequence[Element]] | None = None,
    ) -> None:
        self.screens = dict(screens)
        self.elements = elements
        self.cursor: dict[str, Point] = {}
        self.asks = False
        """The env has ``ask_user`` (the task's simulated user answers): tool specs offer it."""

    @property
    def default_device(self) -> str | None:
        """The only device with a screen, or None when there are several (Crab-v0)."""
        return next(iter(self.screens)) if len(self.screens) == 1 else None

    def device(self, named: Any, how: str) -> str:
        """The device an action names (``how`` says how to name one in this dialect), or the only one."""
        if named is None:
            if self.default_device is None:
                raise InvalidAction(f"this env has several devices ({', '.join(self.screens)}): {how}")
            return self.default_device
        if not isinstance(named, str) or named not in self.screens:
            raise InvalidAction(f"unknown device {named!r}; devices: {', '.join(self.screens)}")
        return named

    def from_pixels(self, device: str, x: Any, y: Any, scale: tuple[float, float] | None = None) -> Point:
        """A point from pixels of the shown frame (or of a ``scale`` = (width, height) grid, e.g. 1000)."""
        w, h = scale or self.screens[device].shown
        fx, fy = _number(x, "x"), _number(y, "y")
        if not (0 <= fx < w + 0.5 and 0 <= fy < h + 0.5):
            raise InvalidAction(f"({x}, {y}) is outside the {w:g}x{h:g} screen of {device!r}")
        off = 0.5 if scale is None else 0.0  # a pixel's centre; a relative grid is already continuous
        return (min((fx + off) / w, 1.0), min((fy + off) / h, 1.0))

    def to_pixels(self, device: str, p: Point, scale: tuple[float, float] | None = None) -> tuple[int, int]:
        """The pixel of the shown frame (or the cell of a ``scale`` grid) that holds a point."""
        w, h = scale or self.screens[device].shown
        if scale is not None:
            return (round(p[0] * w), round(p[1] * h))
        return (min(int(p[0] * w), int(w) - 1), min(int(p[1] * h), int(h) - 1))

    def element(self, device: str, index: Any) -> Point:
        """The centre of the ``index``-th interactive element of the device's screen (ui_elements order)."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise InvalidAction(f"an element index is an integer; got {index!r}")
        boxes = list(self.elements(device)) if self.elements else []
        if not 0 <= index < len(boxes):
            raise InvalidAction(f"no element {index} on {device!r}'s screen ({len(boxes)} elements)")
        return self._centre(device, boxes[index][0])

    def labelled(self, device: str) -> list[tuple[str, Point]]:
        """(label, centre) of every interactive element on the device's screen now."""
        found = list(self.elements(device)) if self.elements else []
        return [(label, self._centre(device, box)) for box, label in found]

    def _centre(self, device: str, box: tuple[int, int, int, int]) -> Point:
        x1, y1, x2, y2 = box
        w, h = self.screens[device].full
        return ((x1 + x2) / 2 / w, (y1 + y2) / 2 / h)

    def point_at(self, device: str, point: Point | None, what: str) -> Point:
        """``point``, or where the pointer last went on that device (for clicks without coordinates)."""
        if point is not None:
            self.cursor[device] = point
            return point
        if device not in self.cursor:
            raise InvalidAction(f"{what} needs a position: none given and the pointer has not moved yet")
        return self.cursor[device]


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InvalidAction(f"coordinate {what} must be a number; got {v!r}")
    return float(v)


# ---- Act -> our actions --------------------------------------------------------------------------------


def lower(acts: Sequence[Act], ctx: Context) -> list[Planned]:
    """Our actions for a step's Acts, in order; InvalidAction for the first one our devices lack."""
    if len(acts) > MAX_CALLS:
        raise InvalidAction(f"{len(acts)} actions in one step; at most {MAX_CALLS}")
    out: list[Planned] = []
    for act in acts:
        if act.kind == "unsupported":
            raise InvalidAction(act.text)
        if act.kind == "api":
            out.append(Planned(act.device, act.text, dict(act.params)))
        elif act.kind in ROOT_KINDS:
            out.append(_root(act))
        elif act.device == PHONE:
            out.extend(_phone(act, ctx))
        else:
            out.extend(_desktop(act))
    if not out:
        raise InvalidAction("no action given")
    return out


def _root(act: Act) -> Planned:
    if act.kind == "complete":
        return Planned("root", "complete")
    if act.kind == "answer":
        return Planned("root", "submit", {"answer": act.text})
    if act.kind == "ask":
        return Planned("root", "ask_user", {"question": act.text})
    seconds = min(max(round(act.seconds), 1), 5) if act.kind == "wait" else 1
    return Planned("root", "wait", {"seconds": seconds})


def _need(act: Act, what: str = "point") -> Point:
    value = act.point if what == "point" else act.end
    if value is None:
        raise InvalidAction(f"{act.kind} needs a position")
    return value


def _desktop(act: Act) -> list[Planned]:
    d, k = act.device, act.kind
    simple = {"click": "click", "right_click": "right_click", "double_click": "double_click", "move": "move",
              "middle_click": "middle_click", "triple_click": "triple_click"}  # fmt: skip
    if k in simple:
        return [Planned(d, simple[k], {"point": _need(act)})]
    if k == "long_press":
        return [Planned(d, "drag", {"start": _need(act), "end": _need(act)})]
    if k == "drag":
        return [Planned(d, "drag", {"start": _need(act), "end": _need(act, "end")})]
    if k == "scroll":
        moved = [Planned(d, "move", {"point": act.point})] if act.point is not None else []
        amount = min(max(act.amount, 1), 10)
        return [*moved, Planned(d, "scroll", {"direction": act.direction, "amount": amount})]
    if k == "type":
        return [Planned(d, "write_text", {"text": act.text})]
    if k == "key":
        keys = combo(act.keys)
        if len(keys) > 4:
            raise InvalidAction(f"at most 4 keys at once; got {'+'.join(keys)}")
        return [
            Planned(d, "press", {"key": keys[0]})
            if len(keys) == 1
            else Planned(d, "hotkey", {"keys": list(keys)})
        ]
    if k == "open_app":
        return [Planned(d, "search_application", {"name": act.text})]
    if k in ("mouse_down", "mouse_up"):
        moved = [Planned(d, "move", {"point": act.point})] if act.point is not None else []
        return [*moved, Planned(d, k, {"mouse_button": act.button})]
    if k in ("key_down", "key_up"):
        keys = combo(act.keys)
        return [Planned(d, k, {"key": key}) for key in (keys if k == "key_down" else reversed(keys))]
    reasons = {
        "home": "the desktop has no home button",
        "back": "the desktop has no back button",
    }
    raise InvalidAction(f"{k} is not supported on {d!r}: {reasons.get(k, 'no such action')}")


def _phone(act: Act, ctx: Context) -> list[Planned]:
    d, k = act.device, act.kind
    if k == "click":
        return [Planned(d, "tap", {"point": _need(act)})]
    if k == "long_press":
        return [Planned(d, "long_tap", {"point": _need(act)})]
    if k == "drag":
        start, end = _need(act), _need(act, "end")
        if start == end:
            return [Planned(d, "long_tap", {"point": start})]
        return [_swipe(d, end[0] - start[0], end[1] - start[1])]
    if k == "scroll":
        amount = max(act.amount, 1)
        distance = "short" if amount <= 3 else "medium" if amount <= 7 else "long"
        return [Planned(d, "swipe", {"direction": OPPOSITE[act.direction], "distance": distance})]
    if k == "type":
        return [Planned(d, "write_text", {"text": act.text})]
    if k == "key":
        if len(act.keys) != 1:
            raise InvalidAction(f"the phone has no key combinations; got {'+'.join(act.keys)}")
        return [Planned(d, "press", {"button": phone_button(act.keys[0])})]
    if k in ("home", "back"):
        return [Planned(d, "press", {"button": k})]
    if k == "open_app":
        return [Planned(d, "open_app_drawer"), Planned(d, "tap", resolve=_app_icon(ctx, d, act.text))]
    if k in HOLDS:
        held = "the button" if k.startswith("mouse") else "keys"
        raise InvalidAction(
            f"{act.text or k} is not supported on {d!r}: holding {held} across steps is not supported there"
        )
    reasons = {
        "move": "a touch screen has no hover", "right_click": "a touch screen has no right button",
        "middle_click": "a touch screen has no middle button", "double_click": "the phone has no double tap",
        "triple_click": "the phone has no triple tap",
    }  # fmt: skip
    raise InvalidAction(f"{k} is not supported on {d!r}: {reasons.get(k, 'no such action')}")


def _swipe(device: str, dx: float, dy: float) -> Planned:
    """A finger move by (dx, dy) screen fractions as our swipe from the centre: the dominant axis's
    direction, the nearest of the three distances."""
    horizontal = abs(dx) > abs(dy)
    length = abs(dx if horizontal else dy)
    direction = ("right" if dx > 0 else "left") if horizontal else ("down" if dy > 0 else "up")
    distance = min(_SWIPE_FRACTIONS, key=lambda n: abs(_SWIPE_FRACTIONS[n] - length))
    return Planned(device, "swipe", {"direction": direction, "distance": distance})


_SWIPE_FRACTIONS = {"short": 0.15, "medium": 0.3, "long": 0.45}


def _app_icon(ctx: Context, device: str, name: str) -> Callable[[], Params]:
    def find() -> Params:
        labels = ctx.labelled(device)
        for label, point in labels:
            if label.strip().lower() == name.strip().lower():
                return {"point": point}
        known = ", ".join(sorted({lab for lab, _ in labels if lab})[:30])
        raise InvalidAction(f"open_app: no app named {name!r} in the app drawer; apps: {known}")

    return find


# ---- our action -> Acts (the translator) ---------------------------------------------------------------


def lift(device: str, name: str, params: Mapping[str, Any]) -> list[Act]:
    """The Acts that perform one of our actions (what the translator renders in each dialect)."""
    p = dict(params)
    point: Point | None = (float(p["point"][0]), float(p["point"][1])) if "point" in p else None
    if name in API_ACTIONS.get(device, {}):
        return [Act("api", device, text=name, params=tuple(p.items()))]
    if device == "root":
        kind = {"wait": "wait", "complete": "complete", "submit": "answer", "ask_user": "ask"}[name]
        text = str(p.get("answer", p.get("question", "")))
        return [Act(kind, text=text, seconds=float(p.get("seconds", 1)))]
    if device == PHONE:
        if name == "swipe":
            amount = SWIPE_AMOUNT[p.get("distance", "medium")]
            return [Act("scroll", device, (0.5, 0.5), direction=OPPOSITE[p["direction"]], amount=amount)]
        if name == "press" and p["button"] in ("home", "back"):
            return [Act(p["button"], device)]
        if name == "press":
            return [Act("key", device, keys=("Return",))]
        if name == "open_app_drawer":
            return [Act("home", device), Act("scroll", device, (0.5, 0.5), direction="down", amount=5)]
        kind = {"tap": "click", "long_tap": "long_press", "write_text": "type"}[name]
        return [Act(kind, device, point, text=str(p.get("text", "")))]
    if name == "drag":
        return [Act("drag", device, tuple(p["start"]), tuple(p["end"]))]
    if name in ("mouse_down", "mouse_up"):
        return [Act(name, device, button=p.get("mouse_button", "left"))]
    if name in ("key_down", "key_up"):
        return [Act(name, device, keys=(p["key"],))]
    if name in ("press", "hotkey"):
        return [Act("key", device, keys=tuple(p["keys"]) if name == "hotkey" else (p["key"],))]
    if name == "scroll":
        return [Act("scroll", device, direction=p["direction"], amount=int(p.get("amount", 3)))]
    if name == "search_application":
        return [Act("open_app", device, text=p["name"])]
    kind = {"write_text": "type"}.get(name, name)
    return [Act(kind, device, point, text=str(p.get("text", "")))]


# ---- the dialect interface -----------------------------------------------------------------------------


class Dialect(abc.ABC):
    """One agent action format: parse its text into Acts, render Acts back (the translator), and say what
    an agent is configured with (``tool_spec``)."""

    name: str = ""
    devices: frozenset[str] = frozenset({DESKTOP, PHONE})
    """The devices this format can drive."""
    naming: str = ""
    """How an action names its device on a multi-device env, in this format's style."""
    opens_apps: bool = False
    """The format has an open-app action; without one, opening an app is what a person does: the launcher
    (Super), the app's name and Enter."""
    triple_clicks: bool = True
    """The format has a triple click; without one, a desktop triple click (selecting a field's text to
    type over it) is a click and Ctrl+A."""

    @abc.abstractmethod
    def parse(self, action: Any, ctx: Context) -> list[Act]:
        """The Acts of one step's action, or InvalidAction saying what is wrong."""

    @abc.abstractmethod
    def render_one(self, act: Act, ctx: Context) -> str:
        """One Act as this format writes it (naming its device when the env has several)."""

    def render(self, acts: Sequence[Act], ctx: Context) -> list[str]:
        """Acts as this format's actions, one string per step."""
        out: list[str] = []
        for a in acts:
            if a.kind == "open_app" and not self.opens_apps:
                keys = Act("key", a.device, keys=("super",))
                out += self.render([keys, Act("type", a.device, text=a.text + "\n")], ctx)
            elif a.kind == "triple_click" and not self.triple_clicks and a.device == DESKTOP:
                out += self.render(
                    [Act("click", a.device, a.point), Act("key", a.device, keys=("ctrl", "a"))], ctx
                )
            else:
                out.append(self.render_one(a, ctx))
        return out

    @abc.abstractmethod
    def tool_spec(self, ctx: Context) -> dict[str, Any]:
        """What an agent of this format is configured with."""


def display(ctx: Context) -> tuple[int, int]:
    """The shown size of the default device's screen, else of the first one (a multi-device env)."""
    return ctx.screens[ctx.default_device or next(iter(ctx.screens))].shown


def device_sizes(ctx: Context) -> str:
    """'ubuntu 1280x800, android 1080x2400': the shown frame of each device, for prompts."""
    return ", ".join(f"{n} {s.shown[0]}x{s.shown[1]}" for n, s in ctx.screens.items())

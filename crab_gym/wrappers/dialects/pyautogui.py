"""pyautogui code, as OSWorld's and AgentStudio's agents write it; several calls per step.

``pyautogui.click(640, 400)``, ``pyautogui.hotkey('ctrl', 's')``, ``time.sleep(1)`` (or
``pyautogui.sleep``; ``leftClick`` is ``click``), OSWorld's ``WAIT`` /
``DONE`` / ``FAIL``. A ```python block in a reply is read, else the whole text. The code is parsed with
:mod:`ast` and never run (see :mod:`crab_gym.wrappers.dialects.calls` for what is refused); ``import
pyautogui`` and ``import time`` are accepted and do nothing. Coordinates are pixels of the frame the agent
was shown. ``keyDown``/``keyUp`` hold keys within the step: a press while held is a chord, a click or
scroll while held is done with them down (a shift-click; the desktop only); ``mouseDown`` /
``mouseUp`` in one step are a drag (on the phone a swipe, or a long press where it starts). Keys or buttons
still held at the end of the step stay held on the desktop until a later step's ``keyUp`` / ``mouseUp``
(the phone refuses that). ``time.sleep`` under a second is dropped (every action already waits for the
screen to settle); longer is a ``wait``. ``DONE`` and ``FAIL`` end the episode (``complete``). On a
multi-device env a call names its device with ``device='android'``; a call without one acts on the device
of the call before it in the step. ``pyautogui.write`` with ``device='android'`` types on the phone,
``pyautogui.press('enter'|'esc'|'home')`` presses its buttons. With the env's API actions on
(``api_actions=True``), ``api.<name>(...)`` calls one, e.g. ``api.shell('ls ~')`` or
``api.send_sms('+1 555 0100', 'hi')``: its device is the one that has it. Beside OSWorld's calls,
``answer('42')`` submits an answer and ``ask_user('Who is my boss?')`` asks the task's user.
"""

from __future__ import annotations

from typing import Any

from crab_gym.core.actions import InvalidAction
from crab_gym.envs.api_actions import API_ACTIONS, api_device
from crab_gym.wrappers.dialects.base import DESKTOP, Act, Context, Dialect, device_sizes
from crab_gym.wrappers.dialects.calls import Call, code_of, parse_calls

NAMES = ("click", "leftClick", "doubleClick", "rightClick", "middleClick", "tripleClick", "moveTo", "dragTo",
         "scroll", "hscroll", "vscroll", "write", "typewrite", "press", "hotkey", "keyDown", "keyUp",
         "mouseDown", "mouseUp", "sleep")  # fmt: skip
ALLOWED = frozenset(
    {f"pyautogui.{n}" for n in NAMES}
    | {"time.sleep", "answer", "ask_user"}
    | {f"api.{n}" for d in API_ACTIONS.values() for n in d}
)
BARE = ("WAIT", "DONE", "FAIL")
ROOT_CALLS = {"answer": "answer", "ask_user": "ask"}
"""Calls beside OSWorld's: answer('text') submits an answer, ask_user('question') asks the task's user."""
CLICK_KINDS = {"leftClick": "click", "click": "click", "doubleClick": "double_click",
               "rightClick": "right_click", "middleClick": "middle_click", "tripleClick": "triple_click",
               "moveTo": "move"}  # fmt: skip
"""Which click each call is; the translator writes the last name of each kind (``click``, not
``leftClick``)."""


class PyAutoGUI(Dialect):
    name = "pyautogui"
    naming = "a device= argument: pyautogui.click(540, 1200, device='android')"

    def parse(self, action: Any, ctx: Context) -> list[Act]:
        calls = parse_calls(code_of(action), ALLOWED, bare=BARE, imports=("pyautogui", "time"))
        if not calls:
            raise InvalidAction("no pyautogui call in the code")
        step = _Step(ctx, self.naming)
        for c in calls:
            step.add(c)
        return step.finish()

    def render_one(self, act: Act, ctx: Context) -> str:
        return _render(act, ctx)

    def render(self, acts: Any, ctx: Context) -> list[str]:
        parts = super().render(acts, ctx)  # one code block: the calls run in order in one step
        return ["\n".join(parts)] if parts else []

    def tool_spec(self, ctx: Context) -> dict[str, Any]:
        size = device_sizes(ctx)
        lines = [
            "Act by writing Python code in a ```python block, using pyautogui (already imported):",
            "pyautogui.click(x, y), doubleClick, rightClick, moveTo, dragTo(x, y), scroll(clicks, x, y),",
            "write(text), press(key), hotkey(k1, k2), keyDown(key), keyUp(key), time.sleep(seconds);",
            "or answer WAIT, DONE or FAIL alone, or answer(text) to answer a question the task asks.",
            "Only literal arguments; the code is read, never run.",
            f"Screens (pixels): {size}.",
        ]
        if ctx.asks:
            lines.append("ask_user(question) asks the user for a fact the task leaves out.")
        if ctx.default_device is None:
            lines.append(f"Name the device of every call with {self.naming}.")
        return {"prompt": "\n".join(lines), "screen": {n: s.shown for n, s in ctx.screens.items()}}


class _Step:
    """The Acts of one block of code, with keys and the mouse button held between its calls."""

    def __init__(self, ctx: Context, naming: str) -> None:
        self.ctx, self.naming = ctx, naming
        self.acts: list[Act] = []
        self.device: str | None = None
        self.held: list[str] = []
        self.chorded = False
        self.down_keys: list[str] = []  # held keys already sent down (a click or scroll came while held)
        # A mouseDown not yet released: device, where, the point it named, its Act's index, the button.
        self.down: tuple[str, Any, Any, int, str] | None = None

    def add(self, c: Call) -> None:
        if c.name in BARE:
            self.acts.append(Act("wait") if c.name == "WAIT" else Act("complete"))
            return
        kw = dict(c.kwargs)
        named = kw.pop("device", None)
        if c.name in ROOT_CALLS:
            text = c.args[0] if c.args else kw.get("text", kw.get("question"))
            if not isinstance(text, str) or not text.strip():
                raise InvalidAction(f"{c.name}: the text is a non-empty string")
            self.acts.append(Act(ROOT_CALLS[c.name], text=text[:512]))
            return
        if c.name.startswith("api."):
            self.acts.append(self._api(c.name[4:], list(c.args), kw, named))
            return
        if c.name in ("time.sleep", "pyautogui.sleep"):
            seconds = _num(c.args[0] if c.args else kw.get("secs", kw.get("seconds")), c.name)
            if seconds >= 1:
                self.acts.append(Act("wait", seconds=seconds))
            return
        device = self.ctx.device(named if named is not None else self.device, f"name one with {self.naming}")
        self.device = device
        name = c.name.split(".", 1)[1]
        args = list(c.args)
        if name in ("write", "typewrite"):
            message = args[0] if args else kw.get("message")
            if isinstance(message, list):
                for key in message:
                    self._keys(device, [key])
            elif isinstance(message, str) and message:
                self.acts.append(Act("type", device, text=message))
            else:
                raise InvalidAction(f"{name}: the text to type is a non-empty string")
        elif name in ("press", "hotkey"):
            keys = args if name == "hotkey" else (args[0] if args else kw.get("keys"))
            if name == "hotkey" and len(args) == 1 and isinstance(args[0], list):
                keys = args[0]  # hotkey(['ctrl', 'c'])
            presses = int(_num(kw.get("presses", 1), "press: presses"))
            for _ in range(min(max(presses, 1), 32)):
                if name == "press" and isinstance(keys, list):
                    for k in keys:
                        self._keys(device, [k])
                else:
                    self._keys(device, keys if isinstance(keys, list) else [keys])
        elif name == "keyDown":
            self.held.append(_key(args, kw, name))
            self.chorded = False
        elif name == "keyUp":
            key = _key(args, kw, name)
            if key in self.down_keys:  # sent down for a click or scroll: release it
                self.acts.append(Act("key_up", device, keys=(key,), text=f"keyUp({key!r})"))
                self.down_keys.remove(key)
                self.held.remove(key)
                return
            if key not in self.held:  # held since an earlier step
                self.acts.append(Act("key_up", device, keys=(key,), text=f"keyUp({key!r}) without keyDown"))
                return
            if not self.chorded:
                self.acts.append(Act("key", device, keys=tuple(self.held)))
                self.chorded = True
            self.held.remove(key)
        elif name in ("scroll", "vscroll", "hscroll"):
            clicks = int(_num(args[0] if args else kw.get("clicks"), name))
            point = self._point(device, args[1:], kw, name, required=False)
            if clicks == 0:
                raise InvalidAction(f"{name}: clicks must not be 0")
            self._hold_down(device, name)
            if name == "hscroll":
                direction = "right" if clicks > 0 else "left"
            else:
                direction = "up" if clicks > 0 else "down"
            self.acts.append(Act("scroll", device, point, direction=direction, amount=abs(clicks)))
        elif name in ("mouseDown", "mouseUp"):
            button = kw.get("button", "left")
            if button not in ("left", "middle", "right"):
                raise InvalidAction(f"{name}: button is 'left', 'middle' or 'right'; got {button!r}")
            given = self._point(device, args, kw, name, required=False)
            point = (
                self.ctx.point_at(device, given, name) if given is not None else self.ctx.cursor.get(device)
            )
            if name == "mouseDown":
                self.down = (device, point, given, len(self.acts), button)
            elif self.down is None:  # the button went down in an earlier step
                self.acts.append(
                    Act("mouse_up", device, given, text=f"{name} without mouseDown", button=button)
                )
            else:
                if self.down[4] != "left" or button != "left":
                    raise InvalidAction(f"{name}: only the left button drags within a step")
                start = self.down[1] or self.ctx.point_at(device, None, "mouseDown")
                self.acts.append(Act("drag", device, start, point or self.ctx.point_at(device, None, name)))
                self.down = None
        elif name == "dragTo":
            start = self.ctx.point_at(device, None, name)
            end = self.ctx.point_at(device, self._point(device, args, kw, name), name)
            self.acts.append(Act("drag", device, start, end))
        else:
            self._click(device, name, args, kw)

    def _api(self, name: str, args: list[Any], kw: dict[str, Any], named: Any) -> Act:
        device = api_device(name)
        assert device is not None  # only the table's names are allowed calls
        if named is not None and named != device:
            raise InvalidAction(f"api.{name} acts on {device!r}, not {named!r}")
        if device not in self.ctx.screens:
            raise InvalidAction(f"api.{name} acts on the {device!r} device, which this env does not have")
        self.device = device
        order = API_ACTIONS[device][name]
        if len(args) > len(order):
            raise InvalidAction(f"api.{name} takes at most {len(order)} arguments ({', '.join(order)})")
        params = dict(zip(order, args, strict=False))
        for k, v in kw.items():
            if k in params:
                raise InvalidAction(f"api.{name}: argument {k!r} given twice")
            params[k] = v
        return Act("api", device, text=name, params=tuple(params.items()))

    def _hold_down(self, device: str, what: str) -> None:
        """Before a click or scroll while keys are held (keyDown): send them down (the desktop holds keys;
        the phone has none to hold)."""
        if not self.held:
            return
        if device != DESKTOP:
            raise InvalidAction(
                f"{what} while keys are held ({'+'.join(self.held)}) is not supported on {device!r}"
            )
        for key in self.held:
            if key not in self.down_keys:
                self.acts.append(Act("key_down", device, keys=(key,), text=f"keyDown({key!r})"))
                self.down_keys.append(key)
        self.chorded = True  # the keys did their work with the click: no press of them at keyUp

    def _click(self, device: str, name: str, args: list[Any], kw: dict[str, Any]) -> None:
        self._hold_down(device, name)
        point = self.ctx.point_at(device, self._point(device, args, kw, name, required=False), name)
        kind = CLICK_KINDS[name]
        if name == "click":
            button = kw.get("button", "left")
            clicks = int(_num(kw.get("clicks", 1), "click: clicks"))
            kind = {"left": "click", "right": "right_click", "middle": "middle_click"}.get(button, "")
            if not kind:
                raise InvalidAction(f"click: button is 'left', 'right' or 'middle'; got {button!r}")
            if clicks in (2, 3) and kind == "click":
                kind = "double_click" if clicks == 2 else "triple_click"
            elif clicks != 1:
                raise InvalidAction(f"click: clicks={clicks} is not supported (1, 2 or 3 left clicks)")
        self.acts.append(Act(kind, device, point))

    def _keys(self, device: str, keys: list[Any]) -> None:
        if not all(isinstance(k, str) and k for k in keys) or not keys:
            raise InvalidAction(f"key names are non-empty strings; got {keys!r}")
        self.acts.append(Act("key", device, keys=tuple(self.held) + tuple(keys)))
        self.chorded = True

    def _point(
        self, device: str, args: list[Any], kw: dict[str, Any], what: str, required: bool = True
    ) -> Any:
        if args and isinstance(args[0], (tuple, list)):
            args = list(args[0])
        x, y = (args + [None, None])[:2] if args else (kw.get("x"), kw.get("y"))
        if x is None or y is None:
            if required:
                raise InvalidAction(f"{what}: x and y are required")
            return None
        return self.ctx.from_pixels(device, x, y)

    def finish(self) -> list[Act]:
        if self.down is not None:  # stays down until a later step's mouseUp
            device, _, given, at, button = self.down
            self.acts.insert(
                at, Act("mouse_down", device, given, text="mouseDown without mouseUp", button=button)
            )
        for key in self.held:  # stay down until a later step's keyUp
            assert self.device is not None
            if key in self.down_keys:
                continue  # already down
            self.acts.append(
                Act("key_down", self.device, keys=(key,), text=f"keyDown({key!r}) without keyUp")
            )
        if not self.acts:
            raise InvalidAction("the code does nothing (only short sleeps)")
        return self.acts


def _num(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InvalidAction(f"{what}: a number is required; got {v!r}")
    return float(v)


def _key(args: list[Any], kw: dict[str, Any], what: str) -> str:
    key = args[0] if args else kw.get("key")
    if not isinstance(key, str) or not key:
        raise InvalidAction(f"{what}: a key name is required")
    return key


def _render(act: Act, ctx: Context) -> str:
    dev = f", device='{act.device}'" if act.device != "root" and ctx.default_device is None else ""

    def xy(p: Any) -> str:
        x, y = ctx.to_pixels(act.device, p)
        return f"{x}, {y}"

    k = act.kind
    if k == "api":
        return f"api.{act.text}({', '.join(f'{n}={v!r}' for n, v in act.params)})"
    if k in ("observe", "wait"):
        return "WAIT" if act.seconds <= 1 else f"time.sleep({act.seconds:g})"
    if k == "complete":
        return "DONE"
    if k in ("answer", "ask"):
        return f"{'answer' if k == 'answer' else 'ask_user'}({act.text!r})"
    if k == "type":
        return f"pyautogui.write({act.text!r}{dev})"
    if k in ("home", "back"):
        return f"pyautogui.press('{'home' if k == 'home' else 'esc'}'{dev})"
    if k in ("key_down", "key_up"):
        return "\n".join(
            f"pyautogui.{'keyDown' if k == 'key_down' else 'keyUp'}({key!r}{dev})" for key in act.keys
        )
    if k in ("mouse_down", "mouse_up"):
        at = f"{xy(act.point)}, " if act.point is not None else ""
        return f"pyautogui.{'mouseDown' if k == 'mouse_down' else 'mouseUp'}({at}button={act.button!r}{dev})"
    if k == "key":
        if len(act.keys) == 1:
            return f"pyautogui.press({act.keys[0]!r}{dev})"
        return f"pyautogui.hotkey({', '.join(map(repr, act.keys))}{dev})"
    if k in ("drag", "long_press"):
        end = act.end if k == "drag" else act.point
        return (
            f"pyautogui.moveTo({xy(act.point)}{dev})\npyautogui.dragTo({xy(end)}{dev})"
            if k == "drag"
            else (
                f"pyautogui.mouseDown({xy(act.point)}{dev})\ntime.sleep(0.8)\npyautogui.mouseUp({xy(end)}{dev})"
            )
        )
    if k == "scroll":
        clicks = act.amount if act.direction in ("up", "right") else -act.amount
        fn = "hscroll" if act.direction in ("left", "right") else "scroll"
        at = f", {xy(act.point)}" if act.point is not None else ""
        return f"pyautogui.{fn}({clicks}{at}{dev})"
    name = {v: n for n, v in CLICK_KINDS.items()}.get(k)
    if name is None:
        raise InvalidAction(f"pyautogui has no {k} action")
    return f"pyautogui.{name}({xy(act.point)}{dev})"

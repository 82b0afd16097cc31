"""ActionDialect: an agent acts in its own format -- the Anthropic or OpenAI computer-use tool, UI-TARS,
pyautogui code (OSWorld, AgentStudio) or AndroidWorld's JSON -- one string per step.

The string is parsed (JSON with :mod:`json`, code and call text with :mod:`ast`; never executed) into our
actions. A step's string may hold several actions (pyautogui code, a list of tool uses): they are checked
first -- one bad one makes the whole step an invalid action, nothing run -- then run in order, **each as one
step of the env below** (so max_steps, recorders and statistics see every device action). The wrapper's
step returns the last observation, the **sum of the rewards** (with dense rewards: the growth of the
completion ratio over the whole sequence), and stops early at the first step that terminates, truncates,
is invalid or fails; ``info["dialect"]`` lists what ran (``actions``), how many env steps it took and how
many actions were dropped. An invalid string goes the env's invalid-action path: no device touched,
reward 0, ``info["invalid_action"]`` says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import gymnasium as gym
from gymnasium import spaces

from crab_gym.core.actions import InvalidAction
from crab_gym.spaces import CHARSET
from crab_gym.wrappers.dialects import DIALECTS, Context, Element, Planned, Screen, lift, lower

if TYPE_CHECKING:
    from crab_gym.env import CrabEnv

MAX_ACTION_CHARS = 65_536
ENTER_KEYS = frozenset({"enter", "return", "kp_enter"})


@runtime_checkable
class Launcher(Protocol):
    """A device with an app launcher opened by keys (the desktop's rofi): see DesktopEnv."""

    def launcher_watch(self) -> Any: ...
    def launcher_up(self) -> bool: ...
    def await_launcher(self, watch: Any) -> bool: ...
    def await_launch(self, watch: Any) -> str: ...


class ActionDialect(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The env driven by one agent format's actions (a ``Text`` space); observations unchanged.

    ``dialect``: "anthropic", "openai", "uitars", "pyautogui" or "androidworld". Coordinates are pixels of
    the observation frame the agent was shown (scaled back when ``obs_size`` shrank it), UI-TARS' are
    0-1000 of the screen. On a multi-device env each action names its device in the dialect's own style
    (``naming``); on a single-device env it needs none.
    """

    def __init__(self, env: gym.Env, dialect: str) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, dialect=dialect)
        gym.Wrapper.__init__(self, env)
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}; dialects: {', '.join(DIALECTS)}")
        self.dialect = DIALECTS[dialect]()
        base = self._base = cast("CrabEnv", env.unwrapped)
        screens = {
            name: Screen(name, base.subenvs[name].screen_size, (so.width, so.height))
            for name, so in base.screen_obs.items()
            if name in self.dialect.devices
        }
        if not screens:
            raise ValueError(
                f"the {dialect!r} dialect drives {', '.join(sorted(self.dialect.devices))}; "
                f"this env has {', '.join(base.screen_obs) or 'no screen'}"
            )
        self.context = Context(screens, self._elements)
        self.context.asks = any(spec.name == "ask_user" for spec in base.subenvs["root"].actions)
        self._encode: Callable[..., Any] = env.get_wrapper_attr("encode_action")
        self.action_space = spaces.Text(MAX_ACTION_CHARS, min_length=1, charset=CHARSET)
        layer, self._plain_obs = env, True
        while isinstance(layer, gym.Wrapper):  # only gymnasium's checks (gym.make's) between us and the env
            self._plain_obs &= type(layer).__module__.startswith("gymnasium.wrappers.common")
            layer = layer.env

    @property
    def naming(self) -> str:
        """How an action names its device in this dialect (needed on a multi-device env)."""
        return self.dialect.naming

    def elements(self, device: str) -> list[dict[str, Any]]:
        """The interactive elements of a device's screen now, numbered as AndroidWorld's ``index`` counts
        them: ``{"index", "label", "role", "box"}`` with the box in pixels of the shown frame."""
        shown, full = self.context.screens[device].shown, self.context.screens[device].full
        sx, sy = shown[0] / full[0], shown[1] / full[1]
        with self._base.devices_held():
            found = self._base.subenvs[device].ui_elements()
        return [
            {"index": i, "label": e.name, "role": e.role,
             "box": (round(e.box[0] * sx), round(e.box[1] * sy), round(e.box[2] * sx), round(e.box[3] * sy))}
            for i, e in enumerate(found)
        ]  # fmt: skip

    def _elements(self, device: str) -> list[Element]:
        with self._base.devices_held():  # between steps: no video grab on the device meanwhile
            return [(e.box, e.name) for e in self._base.subenvs[device].ui_elements()]

    def tool_spec(self) -> dict[str, Any]:
        """What an agent of this dialect is configured with (tool definition, display, prompt)."""
        return self.dialect.tool_spec(self.context)

    def parse(self, action: Any) -> list[Planned]:
        """Our actions for one step's string, checked; InvalidAction saying why not (no step taken)."""
        try:
            acts = self.dialect.parse(action, self.context)
            plan = lower(acts, self.context)
        except InvalidAction:
            raise
        except (RecursionError, MemoryError):
            raise InvalidAction("the action is nested too deeply to read") from None
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            raise InvalidAction(f"could not read the action ({type(e).__name__}: {e})") from None
        for item in plan:
            if item.resolve is None:
                self._encode(item.device, item.name, item.params)  # validates: InvalidAction if not
        return plan

    def translate(self, device: str, name: str, params: Mapping[str, Any] | None = None) -> list[str]:
        """One of our actions as this dialect writes it: the strings of the steps that perform it."""
        return self.dialect.render(lift(device, name, params or {}), self.context)

    def step(self, action: Any):
        try:
            plan = self.parse(action)
        except InvalidAction as e:
            return self._reject(str(e) or "invalid action", 0)
        total = 0.0
        ran: list[dict[str, Any]] = []
        result: tuple[Any, ...] = ()
        for i, item in enumerate(plan):
            if item.resolve is not None:
                try:
                    item.params = item.resolve()
                    encoded = self._encode(item.device, item.name, item.params)
                except InvalidAction as e:
                    obs, reward, terminated, truncated, info = self._reject(str(e), len(plan) - i - 1)
                    info["dialect"]["actions"] = ran
                    return obs, total + reward, terminated, truncated, info
            else:
                encoded = self._encode(item.device, item.name, item.params)
            watch = self._launch_watch(item)
            result = self.env.step(encoded)
            if watch is not None and not (result[2] or result[3]):
                result = self._launched(item.device, watch, result)
            obs, reward, terminated, truncated, info = result
            total += float(reward)
            ran.append({"device": item.device, "name": item.name, "params": item.params})
            if terminated or truncated or "invalid_action" in info or "error" in info:
                break
        obs, _, terminated, truncated, info = result
        info["dialect"] = {"name": self.dialect.name, "actions": ran, "env_steps": len(ran),
                           "dropped": len(plan) - len(ran)}  # fmt: skip
        return obs, total, terminated, truncated, info

    def _launch_watch(self, item: Planned) -> tuple[bool, Any] | None:
        """Before desktop keys that open an app as agents without an open-app action do -- Super (the
        launcher), then the name and Enter in it: (opens the launcher?, a watch on what it starts)."""
        key = str(item.params.get("key", "")).lower() if item.name == "press" else ""
        opens = key == "super"
        enters = key in ENTER_KEYS or (item.name == "write_text" and "\n" in item.params.get("text", ""))
        sub = self._base.subenvs.get(item.device)
        if not (opens or enters) or not isinstance(sub, Launcher):
            return None
        with self._base.devices_held():
            if enters and not sub.launcher_up():
                return None
            return opens, sub.launcher_watch()

    def _launched(self, device: str, watch: tuple[bool, Any], result: tuple[Any, ...]) -> tuple[Any, ...]:
        """Wait, as search_application does, for the launcher to be up (after Super) or for the app it
        started (after Enter); observe that when no wrapper between here and the env changes observations
        (else the next step's observation shows it)."""
        obs, reward, terminated, truncated, info = result
        sub = cast("Launcher", self._base.subenvs[device])
        with self._base.devices_held():
            if watch[0]:
                info["launcher"] = sub.await_launcher(watch[1])
            else:
                info["launch"] = sub.await_launch(watch[1])
        if self._plain_obs:
            obs = self._base.observe()
        return obs, reward, terminated, truncated, info

    def _reject(self, reason: str, dropped: int):
        obs, reward, terminated, truncated, info = self.env.step(InvalidAction(reason))
        info["invalid_action"] = reason
        info["dialect"] = {"name": self.dialect.name, "actions": [], "env_steps": 1, "dropped": dropped}
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.context.cursor.clear()
        return self.env.reset(seed=seed, options=options)

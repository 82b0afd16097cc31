"""A reflective agent in the style of AndroidWorld's M3A: act, then summarize what the action did.

Each turn an actor model sees the task, a running list of summaries of its earlier steps, what the env said
of its last call, and every current screen, and makes one tool call. After the step, a separate reflector
call gets the action (with any reason the actor gave), the env's report, and the acting device's screen
before and after it (both images; every screen for a root action), and writes a short summary, which the
actor reads from then on. A call the env rejected is summarized from its reason without a model call (no
screen changed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from crab_gym.baselines.llm.base import ChatAgent, Screens
from crab_gym.baselines.llm.chat import Reply

ACTOR_PROMPT = (
    "You operate the devices named in the tools to complete the user's task. Each turn you see the task, "
    "summaries of your earlier steps, the result of your last action and every device's current screen. "
    "Call exactly one tool per turn. Positions are fractions of the screen, (0, 0) top left; where "
    "numbered marks are shown, name the element by its number instead. When the task is done, call "
    "complete (or submit with the answer the task asks for)."
)

REFLECT_PROMPT = (
    "You review one step of an agent operating devices to complete a task. You get the task, the action "
    "the agent took and why, what the environment reported, and the screen before and after the action. "
    "In one or two sentences, say what the action did and whether it brought the task forward; if it had "
    "no visible effect or went wrong, say so and what to try instead. Reply with the summary only."
)


class ReflectiveAgent(ChatAgent):
    """An actor (role ``"actor"``) and a reflector (role ``"reflector"``); ``history`` is how many of the
    latest step summaries the actor reads (default 20), ``summary_chars`` caps each summary. Other options
    as in :class:`~crab_gym.baselines.llm.base.ChatAgent`. ``summaries`` holds this episode's summaries."""

    name = "llm-reflective"

    def __init__(self, *args: Any, history: int = 20, summary_chars: int = 400, **kwargs: Any) -> None:
        super().__init__(*args, history=history, **kwargs)
        self.summary_chars = summary_chars
        self.summaries: list[str] = []
        self.messages: list[dict[str, Any]] = []  # the actor's last request
        self._task = ""
        self._before: Screens = {}
        self._last: Reply | None = None
        self._result: str | None = None

    def reset(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        self._task = self.task_text(obs, info)
        self.summaries = []
        self._before = {}
        self._last = None
        self._result = None

    def observe_result(self, screens: Screens, info: Mapping[str, Any]) -> None:
        self._result = self.result_text(info)
        call = info.get("tool_call")
        action = json.dumps(call, ensure_ascii=False) if call else self._raw_action()
        if call is None:  # rejected: nothing changed on any screen
            summary = self._result
        else:
            device = (call.get("arguments") or {}).get("device")
            devices = [d for d in screens if d in self._before and d == device] or [
                d for d in screens if d in self._before
            ]
            summary = self._reflect(action, devices, screens)
        self.summaries.append(f"Step {len(self.summaries) + 1}: {action} -- {summary}")

    def choose(self, screens: Screens, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        self._before = screens
        shown = self.summaries[len(self.summaries) - self.history :] if self.history else []
        earlier = "\n".join(shown) if shown else "(none yet)"
        parts: list[dict[str, Any]] = [
            {"type": "text", "text": f"Task: {self._task}"},
            {"type": "text", "text": f"Summaries of your earlier steps (oldest first):\n{earlier}"},
        ]
        if self._result is not None:
            parts.append({"type": "text", "text": f"Result of your last action: {self._result}"})
        system = ACTOR_PROMPT + ("\n\n" + self._json_prompt if self.json_mode else "")
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": parts}]
        self.messages[1]["content"] += self.screen_parts(screens, info)
        self._last = self.call("actor", self.messages, None if self.json_mode else self._tools)
        return self._last.action()

    def _reflect(self, action: str, devices: list[str], after: Screens) -> str:
        parts: list[dict[str, Any]] = [{"type": "text", "text": f"Task: {self._task}\nAction: {action}"}]
        reason = (self._last.content if self._last is not None else "").strip()
        if reason:
            parts.append({"type": "text", "text": f"The agent's reason: {reason[: self.summary_chars]}"})
        parts.append({"type": "text", "text": f"The environment reported: {self._result}"})
        for device in devices:
            parts += [
                {"type": "text", "text": f"Screen of {device} before the action:"},
                {"type": "image_url", "image_url": {"url": self._before[device]}},
                {"type": "text", "text": f"Screen of {device} after the action:"},
                {"type": "image_url", "image_url": {"url": after[device]}},
            ]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": REFLECT_PROMPT},
            {"role": "user", "content": parts},
        ]
        summary = self.call("reflector", messages).content.strip()
        return " ".join(summary.split())[: self.summary_chars] or "(no summary)"

    def _raw_action(self) -> str:
        if self._last is None:
            return "(no action)"
        if self._last.call is not None:
            return json.dumps(self._last.call, ensure_ascii=False)
        return " ".join(self._last.content.split())[: self.summary_chars] or "(an empty reply)"

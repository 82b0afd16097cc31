"""FunctionCalls: an LLM drives the env with tool calls (OpenAI tools, or a JSON block in plain text).

One tool per action name, with a required ``device`` argument naming the device that performs it (an enum
of the devices having that action):
``{"name": "tap", "arguments": {"device": "android", "point": [0.5, 0.3]}}``.
No device is smuggled into a tool name. A call that cannot be carried out -- malformed JSON, an unknown tool
or device, missing, mistyped or extra arguments -- is an invalid action with a reason the model can act on,
reported through the env's own invalid-action path (counted, subject to ``max_invalid_actions``, no device
touched).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.core.actions import InvalidAction
from crab_gym.env_protocol import crab_of
from crab_gym.wrappers.tool_table import FORMAT_HINT, MAX_CALL_CHARS, ParsedCall, ToolCallSpace, ToolTable

__all__ = ["FORMAT_HINT", "MAX_CALL_CHARS", "FunctionCalls", "ParsedCall", "ToolCallSpace", "ToolTable"]


class FunctionCalls(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The env driven by tool calls; observations are the inner env's, unchanged.

    ``step(call, tokens=N)`` takes a call as a dict ``{"name", "arguments"}`` (arguments a dict or a JSON
    string), an OpenAI tool call (``{"id", "type": "function", "function": {"name", "arguments"}}`` or an
    object with ``.function.name`` / ``.function.arguments``), a one-call list, or a model's text containing a
    JSON object (in a fenced json block, or bare). A dict call may carry ``"device"`` (or ``"env"``) beside
    ``"arguments"``, and ``"tokens"`` or an OpenAI ``"usage": {"total_tokens": N}``. Tokens -- from
    ``tokens=``, the call dict or ``add_tokens()``, summed -- land in ``info["tokens"]`` for that step (the
    rollout sums them for CE); a step without any has no ``"tokens"`` key. Tokens of a turn that ends the
    episode without a step (the agent raised) are handed over by ``take_tokens()``. A carried-out call is
    echoed in ``info["tool_call"]``; a rejected one leaves ``info["invalid_action"]``.

    The tools do not change during an episode, so they are not repeated in ``info``: read ``tools()`` or
    ``json_mode_prompt()`` once. A wrapper below this one may change the actions (Set-of-Marks swapping
    ``point`` for ``element``) by offering ``action_specs() -> {device: [ActionSpec]}`` and ``encode_action``.
    """

    def __init__(self, env: gym.Env, compact_tools: bool = False) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, compact_tools=compact_tools)
        gym.Wrapper.__init__(self, env)
        subenvs = crab_of(env).subenvs
        try:
            specs = env.get_wrapper_attr("action_specs")()
        except AttributeError:
            specs = {name: sub.actions for name, sub in subenvs.items()}
        self.table = ToolTable([(d, subenvs[d].description, specs[d]) for d in specs])
        self.compact_tools = compact_tools
        self._encode: Callable[..., Any] = env.get_wrapper_attr("encode_action")
        self._pending_tokens: int | None = None
        self.action_space = ToolCallSpace(self.table)

    def tools(self) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` list: one tool per action name, each with a required ``device`` enum."""
        return self.table.openai_tools(compact=self.compact_tools)

    def json_mode_prompt(self) -> str:
        """The tools and the answer format for models without tool calling (ToolTable.json_mode_prompt)."""
        return self.table.json_mode_prompt()

    def parse(self, call: Any) -> ParsedCall:
        """The call validated against the tools, or InvalidAction with the reason (no step taken)."""
        return self.table.parse(call)

    @staticmethod
    def result_text(info: Mapping[str, Any]) -> str:
        """What to tell the model about its last call (the content of a ``tool`` message): done, the
        action's output, or why the call was rejected. It says nothing about the task's checks."""
        if "invalid_action" in info:
            return f"Invalid action, nothing was done: {info['invalid_action']}"
        if "error" in info:
            return f"The device failed: {info['error']}"
        if "output" in info:
            return f"Done. Output: {info['output']}"
        return "Done."

    def add_tokens(self, n: int) -> None:
        """Tokens spent choosing the next action (reported in the next step's ``info["tokens"]``)."""
        self._pending_tokens = (self._pending_tokens or 0) + int(n)

    def take_tokens(self) -> int | None:
        """Hand over the tokens added since the last step (None if none) and forget them: for whoever ends
        an episode without another step -- an agent that failed in the middle of a turn (``agent_error``)
        after some of its calls had answered -- so that CE still counts every call."""
        spent, self._pending_tokens = self._pending_tokens, None
        return spent

    def step(self, call: Any, tokens: int | None = None):
        spent = self._take_tokens(call, tokens)
        try:
            parsed = self.table.parse(call)
            action = self._encode(parsed.device, parsed.name, parsed.params)
        except (InvalidAction, TypeError, ValueError) as e:
            # CrabEnv takes an InvalidAction as an action it rejects with that reason (see CrabEnv.reject):
            # counted, subject to max_invalid_actions, no device touched; stepped through the wrappers
            # below so they still process the observation.
            reason = str(e) or type(e).__name__
            obs, reward, terminated, truncated, info = self.env.step(InvalidAction(reason))
            info["invalid_action"] = reason
        else:
            obs, reward, terminated, truncated, info = self.env.step(action)
            info["tool_call"] = parsed.to_json()
        if spent is not None:
            info["tokens"] = spent
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._pending_tokens = None
        return self.env.reset(seed=seed, options=options)

    def _take_tokens(self, call: Any, tokens: int | None) -> int | None:
        found = [self._pending_tokens, tokens]
        if isinstance(call, Mapping):
            found.append(call.get("tokens"))
            usage = call.get("usage")
            if isinstance(usage, Mapping):
                found.append(usage.get("total_tokens"))
        self._pending_tokens = None
        counted = [
            int(t)
            for t in found
            if isinstance(t, (int, float, np.integer)) and not isinstance(t, bool) and np.isfinite(t)
        ]
        return sum(counted) if counted else None


# ---- extracting (name, arguments, device) from what a model sends ------------------------------------

"""An LLM agent: a chat model picks each action as a tool call, through the OpenAI Chat Completions API.

Any server that speaks that API works (OpenAI, vLLM, llama.cpp, Ollama): ``base_url`` and ``model`` pick it.
The env must be wrapped in :class:`~crab_gym.wrappers.FunctionCalls` (over
:class:`~crab_gym.wrappers.SetOfMarks` for numbered elements). Each turn the model sees the task, the
current screen of every device (PNG, marks drawn when SetOfMarks is below), the mark lists, and what became
of its last call; older screens are dropped from the chat to bound its size. Tokens from the API's ``usage``
are reported to the env, so CE is computed.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

from crab_gym.spaces import decode_instruction

SYSTEM_PROMPT = (
    "You operate the devices named in the tools to complete the user's task. Each turn you see every "
    "device's current screen and the result of your last action. Call exactly one tool per turn. Positions "
    "are fractions of the screen, (0, 0) top left; where numbered marks are shown, name the element by its "
    "number instead. When the task is done, call complete (or submit with the answer the task asks for)."
)

OMITTED_SCREEN = {"type": "text", "text": "(earlier screen omitted)"}


def png_data_url(frame: np.ndarray, max_side: int | None = None) -> str:
    """A frame as a ``data:image/png;base64`` URL, scaled so its longer side is at most ``max_side``."""
    img = Image.fromarray(np.asarray(frame, dtype=np.uint8))
    if max_side and max(img.size) > max_side:
        img.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class LLMAgent:
    """Chooses actions with a chat model; ``act`` returns the model's tool call for FunctionCalls.step.

    ``json_mode=True`` sends no ``tools`` (for models without tool calling): the tools are described in the
    system prompt and the model answers with a JSON object in text, which FunctionCalls parses. ``history``
    is how many earlier turns stay in the chat (their screens replaced by a note). ``max_side`` scales
    screens down before sending (None: as captured). ``request_options`` are added to every request and
    win over the defaults (``tool_choice="required"``, ``parallel_tool_calls=False``, ``temperature``).
    """

    name = "llm"

    def __init__(
        self,
        env: gym.Env,
        model: str,
        client: Any = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        json_mode: bool = False,
        history: int = 4,
        max_side: int | None = 1280,
        temperature: float | None = 0.0,
        request_options: Mapping[str, Any] | None = None,
    ) -> None:
        try:
            self._tools: list[dict[str, Any]] = env.get_wrapper_attr("tools")()
            self._json_prompt: str = env.get_wrapper_attr("json_mode_prompt")()
            self._add_tokens = env.get_wrapper_attr("add_tokens")
            self._result_text = env.get_wrapper_attr("result_text")
        except AttributeError as e:
            raise TypeError("LLMAgent needs the env wrapped in crab_gym.wrappers.FunctionCalls") from e
        if client is None:
            import openai  # the `llm` extra

            client = openai.OpenAI(
                base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
            )
        self.client = client
        self.model = model
        self.json_mode = json_mode
        self.history = max(0, int(history))
        self.max_side = max_side
        self.temperature = temperature
        self.request_options = dict(request_options or {})
        self.messages: list[dict[str, Any]] = []
        self._turns: list[int] = []  # index in self.messages where each turn's user message starts
        self._pending_call_id: str | None = None

    # ---- the chat ------------------------------------------------------------------------------
    def reset(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        system = SYSTEM_PROMPT + ("\n\n" + self._json_prompt if self.json_mode else "")
        task = info.get("instruction") or decode_instruction(obs["instruction"])
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": f"Task: {task}"}]
        self._turns = []
        self._pending_call_id = None

    def act(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        parts: list[dict[str, Any]] = []
        if info.get("steps", 0) == 0 or not self.messages:
            self.reset(obs, info)
        elif self._pending_call_id is not None:  # the answer to a tool call is a tool message
            self.messages.append(
                {"role": "tool", "tool_call_id": self._pending_call_id, "content": self._result_text(info)}
            )
        else:  # a call given as text: its result opens the next user message
            parts.append({"type": "text", "text": "Result of your last action: " + self._result_text(info)})
        self._trim()
        self._turns.append(len(self.messages))
        self.messages.append({"role": "user", "content": parts + self._screens(obs, info)})
        request: dict[str, Any] = {"model": self.model, "messages": self.messages}
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if not self.json_mode:
            request.update(tools=self._tools, tool_choice="required", parallel_tool_calls=False)
        request.update(self.request_options)  # e.g. {"tool_choice": "auto"} for servers without "required"
        response = self.client.chat.completions.create(**request)
        usage = getattr(response, "usage", None)
        if usage is not None and getattr(usage, "total_tokens", None) is not None:
            self._add_tokens(int(usage.total_tokens))
        message = response.choices[0].message
        calls = list(getattr(message, "tool_calls", None) or [])
        if not calls:
            self._pending_call_id = None
            text = message.content or ""
            self.messages.append({"role": "assistant", "content": text})
            return text  # FunctionCalls finds the JSON call in the text, or rejects it with a reason
        call = calls[0]  # one action per step; further calls are not carried out
        self._pending_call_id = call.id
        function = {"name": call.function.name, "arguments": call.function.arguments}
        self.messages.append(
            {
                "role": "assistant",
                "content": message.content or None,
                "tool_calls": [{"id": call.id, "type": "function", "function": function}],
            }
        )
        return dict(function)

    def _screens(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        marks = info.get("marks") or {}
        for device, view in obs.items():
            if not isinstance(view, Mapping) or "screen" not in view:
                continue
            url = png_data_url(view["screen"], self.max_side)
            parts.append({"type": "text", "text": f"Screen of {device}:"})
            parts.append({"type": "image_url", "image_url": {"url": url}})
            if marks.get(device):
                parts.append({"type": "text", "text": f"Marks on {device}:\n" + "\n".join(marks[device])})
        return parts

    def _trim(self) -> None:
        """Keep the last ``history`` turns whole; older turns leave the chat, and kept turns before the
        newest lose their screens (a note says so)."""
        if len(self._turns) > self.history:
            cut = self._turns[len(self._turns) - self.history] if self.history else len(self.messages)
            head = 2  # system + task
            dropped = cut - head
            self.messages = self.messages[:head] + self.messages[cut:]
            self._turns = [t - dropped for t in self._turns[len(self._turns) - self.history :]]
        for start in self._turns:
            content = self.messages[start]["content"]
            if isinstance(content, list):
                self.messages[start]["content"] = [
                    p if p.get("type") != "image_url" else dict(OMITTED_SCREEN) for p in content
                ]

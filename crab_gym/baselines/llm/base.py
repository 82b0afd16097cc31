"""What every LLM agent shares: the env's tool hooks, the client, screens as image parts, token tallies."""

from __future__ import annotations

import base64
import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

from crab_gym.baselines.llm.chat import ModelCaller, RetryPolicy
from crab_gym.core.actions import InvalidAction
from crab_gym.spaces import decode_instruction
from crab_gym.wrappers.tool_table import ToolTable

Screens = dict[str, str]
"""A data URL per device with a screen, in env order."""

IMAGE_FORMATS = ("png", "jpeg")


def image_data_url(
    frame: np.ndarray, max_side: int | None = None, image_format: str = "png", quality: int = 85
) -> str:
    """A frame as a ``data:image/png`` (or ``image/jpeg`` at ``quality``) base64 URL, scaled so its longer
    side is at most ``max_side``."""
    img = Image.fromarray(np.asarray(frame, dtype=np.uint8))
    if max_side and max(img.size) > max_side:
        img.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    if image_format == "png":
        img.save(buf, format="PNG", optimize=False, compress_level=1)
    elif image_format == "jpeg":
        img.convert("RGB").save(buf, format="JPEG", quality=int(quality))
    else:
        raise ValueError(f"image_format must be one of {IMAGE_FORMATS}, got {image_format!r}")
    return f"data:image/{image_format};base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def png_data_url(frame: np.ndarray, max_side: int | None = None) -> str:
    """A frame as a ``data:image/png;base64`` URL, scaled so its longer side is at most ``max_side``."""
    return image_data_url(frame, max_side, "png")


def find_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model's text: the whole text, a ```json block, or a bare ``{...}``."""
    decoder = json.JSONDecoder()
    candidates = [text.strip()] + [part.split("```", 1)[0] for part in text.split("```json")[1:]]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def read_call(action: Any) -> tuple[str, dict[str, Any]]:
    """(name, arguments) of a reply's tool call or of the JSON call in its text; InvalidAction if none."""
    call = find_json_object(action) if isinstance(action, str) else action
    if not isinstance(call, Mapping):
        raise InvalidAction('no tool call found; answer with {"name": ..., "arguments": {...}}')
    inner = call["function"] if isinstance(call.get("function"), Mapping) else call
    name, args = inner.get("name"), inner.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as e:
            raise InvalidAction(f"{name}: the arguments are not valid JSON ({e.msg})") from None
    if not isinstance(name, str) or not isinstance(args, Mapping):
        raise InvalidAction('a tool call needs a "name" and an "arguments" object')
    return name, dict(args)


def rejection(reason: str) -> str:
    """A reply FunctionCalls rejects as an invalid action (no JSON object in it): for a call an agent
    refuses to pass on, e.g. a sub-agent naming another device's tool."""
    return "Not carried out: " + reason.replace("{", "(").replace("}", ")").replace("`", "'")


class ChatAgent:
    """Base of the LLM agents: ``act(obs, info)`` returns a tool call (or JSON-mode text) for
    FunctionCalls.step. Subclasses implement ``reset``, ``observe_result`` and ``choose``.

    ``json_mode=True`` sends no ``tools``: they are described in the prompts and calls come back as JSON
    text. ``history`` bounds how many earlier turns each chat keeps. Screens are PNG data URLs, or JPEG at
    ``jpeg_quality`` with ``image_format="jpeg"``, scaled to at most ``max_side`` pixels. Transient API
    errors are retried per ``retry`` (a :class:`RetryPolicy`); a permanent one raises
    :class:`~crab_gym.rollout.AgentError`. Every call's tokens go to the env (for CE) and to
    ``tokens_by_role`` (summed over the agent's life). ``request_options`` join every request.
    ``timeout`` is seconds per request. A client built here has the SDK's own retries off; an injected
    ``client`` keeps its settings (its retries then add to the policy's).
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
        image_format: str = "png",
        jpeg_quality: int = 85,
        max_side: int | None = 1280,
        temperature: float | None = 0.0,
        request_options: Mapping[str, Any] | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
    ) -> None:
        try:
            self._tools: list[dict[str, Any]] = env.get_wrapper_attr("tools")()
            self._json_prompt: str = env.get_wrapper_attr("json_mode_prompt")()
            self._add_tokens = env.get_wrapper_attr("add_tokens")
            self.result_text = env.get_wrapper_attr("result_text")
            self.table: ToolTable = env.get_wrapper_attr("table")
        except AttributeError as e:
            raise TypeError(
                f"{type(self).__name__} needs the env wrapped in crab_gym.wrappers.FunctionCalls"
            ) from e
        try:
            self.compact_tools = bool(env.get_wrapper_attr("compact_tools"))
        except AttributeError:
            self.compact_tools = False
        if image_format not in IMAGE_FORMATS:
            raise ValueError(f"image_format must be one of {IMAGE_FORMATS}, got {image_format!r}")
        if client is None:
            import openai  # the `llm` extra

            opts: dict[str, Any] = {"timeout": timeout} if timeout is not None else {}
            client = openai.OpenAI(
                base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
                max_retries=0,  # retries are the agent's (RetryPolicy), counted and bounded there
                **opts,
            )
        self.client = client
        self.model = model
        self.json_mode = json_mode
        self.history = max(0, int(history))
        self.image_format = image_format
        self.jpeg_quality = jpeg_quality
        self.max_side = max_side
        self.temperature = temperature
        self.request_options = dict(request_options or {})
        self.tokens_by_role: dict[str, int] = {}
        self.call = ModelCaller(
            client,
            model,
            self._count_tokens,
            temperature=temperature,
            request_options=self.request_options,
            retry=retry,
        )
        space = getattr(env, "observation_space", None)
        observed = set(getattr(space, "spaces", None) or {}) - {"instruction"}
        self.screen_devices = [
            d for d in self.table.devices if d in observed or (not observed and d != "root")
        ]
        self._started = False

    # ---- the loop ------------------------------------------------------------------------------
    def act(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        screens = self.encode_screens(obs)
        if info.get("steps", 0) == 0 or not self._started:
            self.reset(obs, info)
            self._started = True
        else:
            self.observe_result(screens, info)
        return self.choose(screens, obs, info)

    def reset(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        """Start an episode (called by ``act`` on its first step)."""
        raise NotImplementedError

    def observe_result(self, screens: Screens, info: Mapping[str, Any]) -> None:
        """Take in what the last action did (``info`` of the step it was sent to, screens after it)."""
        raise NotImplementedError

    def choose(self, screens: Screens, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        """The next action for FunctionCalls.step."""
        raise NotImplementedError

    # ---- helpers -------------------------------------------------------------------------------
    def _count_tokens(self, role: str, n: int) -> None:
        self.tokens_by_role[role] = self.tokens_by_role.get(role, 0) + n
        self._add_tokens(n)

    @staticmethod
    def task_text(obs: Mapping[str, Any], info: Mapping[str, Any]) -> str:
        return str(info.get("instruction") or decode_instruction(obs["instruction"]))

    def encode_screens(self, obs: Mapping[str, Any]) -> Screens:
        """Every device's screen as a data URL."""
        return {
            device: image_data_url(view["screen"], self.max_side, self.image_format, self.jpeg_quality)
            for device, view in obs.items()
            if isinstance(view, Mapping) and "screen" in view
        }

    def screen_parts(
        self, screens: Screens, info: Mapping[str, Any], devices: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Content parts showing the screens (and mark lists) of ``devices`` (default: all)."""
        parts: list[dict[str, Any]] = []
        marks = info.get("marks") or {}
        for device, url in screens.items():
            if devices is not None and device not in devices:
                continue
            parts.append({"type": "text", "text": f"Screen of {device}:"})
            parts.append({"type": "image_url", "image_url": {"url": url}})
            if marks.get(device):
                parts.append({"type": "text", "text": f"Marks on {device}:\n" + "\n".join(marks[device])})
        return parts

    def device_table(self, device: str) -> ToolTable:
        """The tools of one device alone (each tool's ``device`` enum is just that device)."""
        specs = [t.specs[device] for t in self.table.tools.values() if device in t.specs]
        return ToolTable([(device, self.table.devices[device], specs)])

    def tools_for(self, table: ToolTable) -> list[dict[str, Any]] | None:
        """The ``tools`` to send for a table (None in JSON mode)."""
        return None if self.json_mode else table.openai_tools(compact=self.compact_tools)

    def capabilities(self) -> str:
        """The devices and the names of their actions, one line each (for agents without the tools)."""
        lines = ["Devices and their actions:"]
        for device, about in self.table.devices.items():
            names = [t.name for t in self.table.tools.values() if device in t.specs]
            lines.append(f"- {device} ({about.split('. ', 1)[0].rstrip('.')}): {', '.join(names)}")
        return "\n".join(lines)

"""Model calls with retries and token accounting, and a bounded chat, shared by the LLM agents."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crab_gym.rollout import AgentError

TRANSIENT_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides every status >= 500 (the ones the openai SDK itself retries)."""

TOOL_OPTIONS = ("tool_choice", "parallel_tool_calls")
"""Request options that only make sense beside ``tools``; left out of requests without tools."""

OMITTED_SCREEN = {"type": "text", "text": "(earlier screen omitted)"}


@dataclass(frozen=True)
class RetryPolicy:
    """How transient API errors are retried: rate limits (429), 408, 409, server errors (>= 500), timeouts
    and lost connections. At most ``attempts`` tries in all; before retry k (0-based) the agent sleeps
    ``initial_delay * multiplier**k`` seconds, at least what a ``Retry-After`` header asks, at most
    ``max_delay``, stretched by a random share of up to ``jitter``."""

    attempts: int = 5
    initial_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.1

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to sleep before retry number ``retry`` (0 for the first)."""
        wait = self.initial_delay * self.multiplier**retry
        if retry_after is not None:
            wait = max(wait, retry_after)
        return min(self.max_delay, wait) * (1.0 + self.jitter * random.random())


def classify(error: BaseException) -> str | None:
    """``"transient"`` or ``"permanent"`` for an error of the openai client, None for any other error."""
    try:
        import openai
    except ImportError:  # a foreign client without the openai package: its errors pass through
        return None
    if isinstance(error, openai.APIConnectionError):  # APITimeoutError is one too
        return "transient"
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        return "transient" if status in TRANSIENT_STATUS or status >= 500 else "permanent"
    if isinstance(error, openai.APIError):  # e.g. a response body that does not validate
        return "permanent"
    return None


def _retry_after(error: BaseException) -> float | None:
    headers = getattr(getattr(error, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP date
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Reply:
    """A model's answer: its text and its first tool call (``{"name", "arguments"}``, arguments as JSON)."""

    content: str
    call: dict[str, str] | None = None
    call_id: str | None = None

    def action(self) -> Any:
        """What FunctionCalls.step takes: the tool call, or the text (a JSON call in JSON mode)."""
        return dict(self.call) if self.call is not None else self.content

    def message(self) -> dict[str, Any]:
        """The reply as an assistant message for the chat history (one tool call at most)."""
        if self.call is None:
            return {"role": "assistant", "content": self.content}
        call = {"id": self.call_id, "type": "function", "function": dict(self.call)}
        return {"role": "assistant", "content": self.content or None, "tool_calls": [call]}

    @classmethod
    def from_message(cls, message: Any) -> Reply:
        for call in getattr(message, "tool_calls", None) or []:
            fn = getattr(call, "function", None)
            if fn is not None:  # one action per step; further calls are not carried out
                function = {"name": fn.name, "arguments": fn.arguments}
                return cls(getattr(message, "content", None) or "", function, call.id)
        return cls(getattr(message, "content", None) or "")


class ModelCaller:
    """Sends Chat Completions requests for an agent: retries transient errors per ``retry``, raises
    :class:`AgentError` for permanent ones (and when retries run out), and reports every response's
    ``usage.total_tokens`` to ``on_tokens(role, n)``."""

    def __init__(
        self,
        client: Any,
        model: str,
        on_tokens: Callable[[str, int], None],
        *,
        temperature: float | None = 0.0,
        request_options: Mapping[str, Any] | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.model = model
        self.on_tokens = on_tokens
        self.temperature = temperature
        self.request_options = dict(request_options or {})
        self.retry = retry or RetryPolicy()
        self.sleep = sleep

    def request(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] | None) -> dict:
        """The request body: defaults, then ``request_options`` (tool options only beside tools)."""
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if tools:
            request.update(tools=list(tools), tool_choice="required", parallel_tool_calls=False)
        request.update({k: v for k, v in self.request_options.items() if tools or k not in TOOL_OPTIONS})
        return request

    def __call__(
        self, role: str, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> Reply:
        request = self.request(messages, tools)
        attempts = max(1, int(self.retry.attempts))
        for attempt in range(1, attempts + 1):
            try:
                response = self.client.chat.completions.create(**request)
                break
            except Exception as e:
                kind = classify(e)
                if kind is None:
                    raise
                status = getattr(e, "status_code", None)
                if kind == "permanent" or attempt == attempts:
                    tries = f" after {attempt} attempts" if attempt > 1 else ""
                    raise AgentError(
                        f"{role}: the model API failed{tries}: {type(e).__name__}: {e}",
                        role=role,
                        status_code=status,
                        attempts=attempt,
                        transient=kind == "transient",
                    ) from e
                self.sleep(self.retry.delay(attempt - 1, _retry_after(e)))
        usage = getattr(response, "usage", None)
        total = getattr(usage, "total_tokens", None) if usage is not None else None
        if total is not None:
            self.on_tokens(role, int(total))
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise AgentError(f"{role}: the model API answered without a choice", role=role)
        return Reply.from_message(choices[0].message)


class Conversation:
    """One model's chat: a fixed head (system prompt, perhaps an intro such as the task), then turns -- a
    user message, the model's reply and the answer to its tool call. Only the last ``history`` turns stay,
    and only the newest keeps its screens (a note replaces older ones)."""

    def __init__(self, history: int) -> None:
        self.history = max(0, int(history))
        self.messages: list[dict[str, Any]] = []
        self.pending: str | None = None  # the id of a tool call not yet answered
        self._head = 0
        self._turns: list[int] = []  # index in self.messages where each turn's user message starts
        self._notes: list[str] = []

    def start(self, system: str, *intro: str) -> None:
        """Begin a new chat: the system prompt, then one user message per intro text."""
        self.messages = [{"role": "system", "content": system}]
        self.messages += [{"role": "user", "content": text} for text in intro]
        self._head = len(self.messages)
        self._turns = []
        self._notes = []
        self.pending = None

    def feedback(self, text: str, label: str = "Result of your last action: ") -> None:
        """What became of the model's last reply: a tool message answering its call, or else a note
        (``label`` + text) that opens the next user message."""
        if self.pending is not None:
            self.messages.append({"role": "tool", "tool_call_id": self.pending, "content": text})
            self.pending = None
        else:
            self._notes.append(label + text)

    def ask(self, parts: list[dict[str, Any]]) -> None:
        """Open a turn with a user message of content ``parts`` (after any pending notes)."""
        self._trim()
        self._turns.append(len(self.messages))
        notes = [{"type": "text", "text": n} for n in self._notes]
        self._notes = []
        self.messages.append({"role": "user", "content": notes + list(parts)})

    def answer(self, reply: Reply) -> Any:
        """Record the model's reply; returns its action (a tool call, or the text)."""
        self.messages.append(reply.message())
        self.pending = reply.call_id if reply.call is not None else None
        return reply.action()

    def _trim(self) -> None:
        if len(self._turns) > self.history:
            keep = self._turns[len(self._turns) - self.history :] if self.history else []
            cut = keep[0] if keep else len(self.messages)
            dropped = cut - self._head
            self.messages = self.messages[: self._head] + self.messages[cut:]
            self._turns = [t - dropped for t in keep]
        for start in self._turns:
            content = self.messages[start]["content"]
            if isinstance(content, list):
                self.messages[start]["content"] = [
                    p if p.get("type") != "image_url" else dict(OMITTED_SCREEN) for p in content
                ]

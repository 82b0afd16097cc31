"""The single agent: one chat model sees every screen and picks each action as a tool call.

Each turn the model sees the task, the current screen of every device (marks drawn when SetOfMarks is
below), the mark lists, and what became of its last call; older screens are dropped from the chat to bound
its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crab_gym.baselines.llm.base import ChatAgent, Screens
from crab_gym.baselines.llm.chat import Conversation

SYSTEM_PROMPT = (
    "You operate the devices named in the tools to complete the user's task. Each turn you see every "
    "device's current screen and the result of your last action. Call exactly one tool per turn. Positions "
    "are fractions of the screen, (0, 0) top left; where numbered marks are shown, name the element by its "
    "number instead. When the task is done, call complete (or submit with the answer the task asks for)."
)


class LLMAgent(ChatAgent):
    """Chooses actions with one chat model; ``act`` returns the model's tool call for FunctionCalls.step.

    Options as in :class:`~crab_gym.baselines.llm.base.ChatAgent`; ``history`` is how many earlier turns
    stay in the chat (their screens replaced by a note). ``request_options`` win over the defaults
    (``tool_choice="required"``, ``parallel_tool_calls=False``, ``temperature``). Tokens are counted under
    the role ``"agent"``.
    """

    name = "llm"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chat = Conversation(self.history)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat as last sent."""
        return self.chat.messages

    def reset(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        system = SYSTEM_PROMPT + ("\n\n" + self._json_prompt if self.json_mode else "")
        self.chat.start(system, f"Task: {self.task_text(obs, info)}")

    def observe_result(self, screens: Screens, info: Mapping[str, Any]) -> None:
        self.chat.feedback(self.result_text(info))

    def choose(self, screens: Screens, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        self.chat.ask(self.screen_parts(screens, info))
        reply = self.call("agent", self.chat.messages, None if self.json_mode else self._tools)
        return self.chat.answer(reply)

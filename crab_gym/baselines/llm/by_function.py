"""Multi-agent by functionality (CRAB): a planner writes the next sub-goal, a tool agent carries it out.

The planner has no tools: it sees the task, every screen and what the last action did, and answers with a
sub-goal in words. The tool agent sees that sub-goal, the screens and the tools, and turns it into exactly
one tool call (or, in JSON mode, one JSON call in text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from crab_gym.baselines.llm.base import ChatAgent, Screens
from crab_gym.baselines.llm.chat import Conversation

PLANNER_PROMPT = (
    "You are the planner of a team of two agents operating devices to complete the user's task. Each turn "
    "you see every device's current screen and what the last action did. Write the next sub-goal: one "
    "short instruction for a single action, which a tool agent turns into one tool call. Name the device, "
    "the element (its mark number where marks are shown) or the position, and any text to type. When the "
    "task is done, tell the tool agent to call complete (or submit with the answer the task asks for). "
    "Answer with the sub-goal only."
)

TOOL_AGENT_PROMPT = (
    "You are the tool agent of a team of two agents operating devices. A planner gives you a sub-goal; you "
    "see every device's current screen and carry out the sub-goal with exactly one tool call. Positions "
    "are fractions of the screen, (0, 0) top left; where numbered marks are shown, name the element by its "
    "number instead."
)


def describe_step(info: Mapping[str, Any]) -> str:
    """The call the env carried out (as JSON), or that the last call was not carried out."""
    call = info.get("tool_call")
    return json.dumps(call, ensure_ascii=False) if call else "the call"


class ByFunctionAgent(ChatAgent):
    """A planner (role ``"planner"``, no tools) and a tool agent (role ``"tool_agent"``) over the same
    FunctionCalls env; options as in :class:`~crab_gym.baselines.llm.base.ChatAgent`, ``history`` bounding
    both chats. ``subgoal`` is the planner's latest sub-goal."""

    name = "llm-by-function"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.planner = Conversation(self.history)
        self.tool_agent = Conversation(self.history)
        self.subgoal = ""

    def reset(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        self.planner.start(
            PLANNER_PROMPT + "\n\n" + self.capabilities(), f"Task: {self.task_text(obs, info)}"
        )
        self.tool_agent.start(TOOL_AGENT_PROMPT + ("\n\n" + self._json_prompt if self.json_mode else ""))
        self.subgoal = ""

    def observe_result(self, screens: Screens, info: Mapping[str, Any]) -> None:
        result = self.result_text(info)
        self.planner.feedback(f"{describe_step(info)} -> {result}", label="Last action: ")
        self.tool_agent.feedback(result)

    def choose(self, screens: Screens, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        parts = self.screen_parts(screens, info)
        self.planner.ask(parts)
        plan = self.call("planner", self.planner.messages)
        self.subgoal = str(self.planner.answer(plan)).strip() or "(the planner gave no sub-goal)"
        self.tool_agent.ask([{"type": "text", "text": f"Sub-goal: {self.subgoal}"}, *parts])
        reply = self.call("tool_agent", self.tool_agent.messages, None if self.json_mode else self._tools)
        return self.tool_agent.answer(reply)

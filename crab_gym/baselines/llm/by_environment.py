"""Multi-agent by environment (CRAB): a main agent coordinates one sub-agent per device.

The main agent sees the task and every screen. Its tools are ``delegate(device, instruction)`` and the
root's own tools (complete, submit, wait): only it may end the task. A delegation goes to that device's
sub-agent, which sees only its device's screen (and marks) and only its device's tools (their ``device``
enum is that one device), and makes exactly one call, passed on with its ``device`` set. Calls an agent
may not make -- a sub-agent naming another device's tool, the main agent naming a device's tool -- are not
passed on: the env gets a reply it rejects (an invalid action), and the agent is told why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from crab_gym.baselines.llm.base import ChatAgent, Screens, read_call, rejection
from crab_gym.baselines.llm.by_function import describe_step
from crab_gym.baselines.llm.chat import Conversation
from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers.tool_table import ToolTable

MAIN_PROMPT = (
    "You are the main agent of a team operating devices to complete the user's task: each device has a "
    "sub-agent of its own, which sees only that device's screen and can use only that device's actions. "
    "Each turn you see every device's current screen and what the last action did, and you call exactly "
    "one tool: delegate(device, instruction) to have that device's sub-agent perform one action (say "
    "precisely what to do: the element or its mark number, the position, the text to type), or, when the "
    "task is done, complete (or submit with the answer the task asks for); wait lets time pass."
)

SUB_PROMPT = (
    "You are the sub-agent for the device '{device}' ({about}), in a team operating devices to complete a "
    "task. The main agent gives you an instruction; you see your device's current screen and carry it out "
    "with exactly one tool call on '{device}'. Positions are fractions of the screen, (0, 0) top left; "
    "where numbered marks are shown, name the element by its number instead."
)

DELEGATE = "delegate"


def first_sentence(text: str) -> str:
    return text.split(". ", 1)[0].rstrip(".")


def delegate_tool(devices: list[str], about: Mapping[str, str]) -> dict[str, Any]:
    """The main agent's ``delegate(device, instruction)`` tool, in the OpenAI tools shape."""
    return {
        "type": "function",
        "function": {
            "name": DELEGATE,
            "description": "Have a device's sub-agent perform one action, described in words.",
            "parameters": {
                "type": "object",
                "properties": {
                    "device": {
                        "type": "string",
                        "enum": list(devices),
                        "description": "The device whose sub-agent acts: "
                        + "; ".join(f"'{d}' = {about[d]}" for d in devices),
                    },
                    "instruction": {
                        "type": "string",
                        "description": "What the sub-agent should do, as one action.",
                    },
                },
                "required": ["device", "instruction"],
                "additionalProperties": False,
            },
        },
    }


class ByEnvironmentAgent(ChatAgent):
    """A main agent (role ``"main"``) and one sub-agent per device with a screen (role: the device name).
    Options as in :class:`~crab_gym.baselines.llm.base.ChatAgent`; ``history`` bounds every chat."""

    name = "llm-by-environment"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.devices = [d for d in self.screen_devices if d in self.table.devices]
        self.root_table = self.device_table("root") if "root" in self.table.devices else ToolTable([])
        self.sub_tables = {d: self.device_table(d) for d in self.devices}
        about = self.table.devices
        if self.compact_tools:
            about = {d: first_sentence(text) + "." for d, text in about.items()}
        self.delegate = delegate_tool(self.devices, about)
        self.main_tools = [self.delegate] + (self.tools_for(self.root_table) or [])
        self.main = Conversation(self.history)
        self.subs = {d: Conversation(self.history) for d in self.devices}
        self._actor: str | None = None  # "main" or the device whose sub-agent made the last call
        self._refused: str | None = None  # why the last call was not passed on to the env

    def reset(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        task = self.task_text(obs, info)
        system = MAIN_PROMPT + "\n\n" + self.capabilities()
        if self.json_mode:
            system += "\n\n" + self._main_json_prompt()
        self.main.start(system, f"Task: {task}")
        for device, chat in self.subs.items():
            prompt = SUB_PROMPT.format(device=device, about=first_sentence(self.table.devices[device]))
            if self.json_mode:
                prompt += "\n\n" + self.sub_tables[device].json_mode_prompt()
            chat.start(prompt, f"The team's task (for context): {task}")
        self._actor = self._refused = None

    def observe_result(self, screens: Screens, info: Mapping[str, Any]) -> None:
        result = self.result_text(info)
        if self._refused is not None:
            result = f"Invalid action, nothing was done: {self._refused}"
        if self._actor in self.subs:
            self.subs[self._actor].feedback(result)
            self.main.feedback(f"{self._actor}'s sub-agent called {describe_step(info)} -> {result}")
        elif self._actor == "main":
            self.main.feedback(result)

    def choose(self, screens: Screens, obs: Mapping[str, Any], info: Mapping[str, Any]) -> Any:
        self._refused = None
        self._actor = "main"
        self.main.ask(self.screen_parts(screens, info))
        reply = self.call("main", self.main.messages, None if self.json_mode else self.main_tools)
        action = self.main.answer(reply)
        try:
            name, args = read_call(action)
            if name != DELEGATE:
                if name in self.table.tools and name not in self.root_table.tools:
                    raise InvalidAction(
                        f"{name} is a device's action: delegate it to that device's sub-agent"
                    )
                return self.root_table.parse(action).to_json()  # only the root's tools are its own
            device, instruction = args.get("device"), args.get("instruction")
            if not isinstance(device, str) or device not in self.subs:
                raise InvalidAction(f"delegate: device must be one of {', '.join(map(repr, self.subs))}")
            if not isinstance(instruction, str) or not instruction.strip():
                raise InvalidAction("delegate: give the sub-agent an instruction")
        except InvalidAction as e:
            self._refused = str(e)
            return rejection(self._refused)
        return self._delegate(device, instruction, screens, info)

    def _delegate(self, device: str, instruction: str, screens: Screens, info: Mapping[str, Any]) -> Any:
        self._actor = device
        chat = self.subs[device]
        chat.ask(
            [
                {"type": "text", "text": f"Instruction: {instruction}"},
                *self.screen_parts(screens, info, [device]),
            ]
        )
        reply = self.call(device, chat.messages, self.tools_for(self.sub_tables[device]))
        action = chat.answer(reply)
        try:  # the call as parsed on this device alone: a missing "device" argument means this one
            return self.sub_tables[device].parse(action).to_json()
        except InvalidAction as e:
            self._refused = str(e)
            return rejection(self._refused)

    def _main_json_prompt(self) -> str:
        delegate = self.delegate["function"]
        return (
            self.root_table.json_mode_prompt()
            + f"\n## {DELEGATE}(device, instruction)\n{delegate['description']}\n"
            + f"devices: {', '.join(self.devices)}\n"
            + "arguments (JSON schema): "
            + json.dumps(delegate["parameters"], ensure_ascii=False)
            + "\n"
        )

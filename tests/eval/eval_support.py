"""What the eval tests share besides fixtures (test files cannot import ``conftest``): the tasks of the
runs, and the scripted by-function team that answers the local Chat Completions server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "baselines"))

from chat_server import ChatServer, tool_call  # noqa: E402

from crab_gym.baselines.llm.by_function import PLANNER_PROMPT  # noqa: E402

ORACLE_TASKS = ["camera_take_photo-0", "notes_delete-0", "clock_set_alarm-0"]  # the alarm needs 7 steps > 5
LLM_TASKS = ["camera_take_photo-0", "notes_delete-0"]


class Team:
    """The planner and tool agent of the by-function structure, scripted per task from the instruction in
    the chat: on the camera task a reply without a call (rejected), then complete (a false completion); on
    the notes task the planner answers and the tool agent's request is refused with HTTP 400."""

    def __init__(self) -> None:
        self.server: ChatServer | None = None
        self.turns: dict[tuple[str, bool], int] = {}

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        planner = request["messages"][0]["content"].startswith(PLANNER_PROMPT)
        task = "camera" if "camera" in texts(request).lower() else "notes"
        turn = self.turns[task, planner] = self.turns.get((task, planner), 0) + 1
        if planner:
            if task == "notes":
                assert self.server is not None
                self.server.fail_next(400)  # the tool agent's request of this turn
            return {"role": "assistant", "content": f"Sub-goal {turn} for {task}."}
        if turn == 1:
            return {"role": "assistant", "content": "I would tap the shutter button."}
        return tool_call(turn, "complete", {"device": "root"})


def texts(request: dict[str, Any]) -> str:
    """The text of a request's messages (the task for the planner, the sub-goal for the tool agent)."""
    out = []
    for m in request["messages"]:
        content = m.get("content") or ""
        out += [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    return "\n".join(out)

"""One MCP session's env and episode, driven from a thread of its own (a :class:`RolloutThread`).

An episode is a :func:`crab_gym.rollout` whose agent waits (at most ``idle_timeout`` seconds) for the
client's next action tool call: the same mechanism as ``crab-gym play``. ``reset`` ends a running episode
unfinished (recorded as incomplete) and starts the next; an action's tool call is answered with the step's
result once the env has stepped. Arguments that are no action of the device never reach the env.
"""

from __future__ import annotations

import io
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from crab_gym.core.actions import InvalidAction
from crab_gym.rollout import Transition
from crab_gym.rollout_thread import DEFERRED, CommandError, RolloutThread
from crab_gym.wrappers.tool_table import ToolTable

__all__ = ["McpConfig", "McpSession", "ToolError", "png"]


@dataclass(frozen=True)
class McpConfig:
    """What every MCP session gets: the env id, its tasks, limits, and where recordings go (if anywhere)."""

    env_id: str = "Crab-v0"
    tasks: str = "v0"  # a task set name or a JSON task file
    backends: Mapping[str, str] = field(default_factory=dict)
    max_steps: int = 100
    out: Path | None = None  # RecordEpisodes writes each episode here
    idle_timeout: float = 1800.0  # seconds an episode waits for the next action (then agent_error)
    api_actions: bool = False  # each device's API actions become tools too (crab_gym.envs.api_actions)


class ToolError(CommandError):
    """A tool call that cannot be done: the client gets it as a tool error and the session goes on."""


def png(frame: np.ndarray) -> bytes:
    """A device frame as PNG bytes."""
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(frame[..., :3])).save(buf, "PNG", compress_level=1)
    return buf.getvalue()


class McpSession(RolloutThread):
    """An MCP client's env and episode; the blocking methods run on the session's thread via ``run``."""

    error = ToolError

    def __init__(self, config: McpConfig) -> None:
        super().__init__("mcp", config.idle_timeout)
        self.config = config
        self.table: ToolTable | None = None
        self.done = True
        self.status: dict[str, Any] = {"episode": None}
        self._step: Transition | None = None
        self._episodes = 0
        self._marker: Any = None  # a SetOfMarks used only to list the marks of a screen

    # ---- blocking: run these on the session's thread ------------------------------------------
    def open(self) -> None:
        """Make the env (wrapped in RecordEpisodes when ``config.out`` is set) and its tool table."""
        import gymnasium as gym

        import crab_gym  # noqa: F401 - registers the env ids

        env = gym.make(
            self.config.env_id,
            tasks=self.config.tasks,
            backends=dict(self.config.backends),
            max_steps=self.config.max_steps,
            api_actions=self.config.api_actions,
        )
        if self.config.out is not None:
            from crab_gym.episode import RecordEpisodes

            env = RecordEpisodes(env, self.config.out)
        self.env = env
        subs = self.crab.subenvs
        self.table = ToolTable([(n, s.description, s.actions) for n, s in subs.items()])

    def list_tasks(self) -> list[dict[str, Any]]:
        """The env's tasks: id, devices and instruction."""
        from crab_gym.tasks import load_tasks

        ids = set(self.crab.task_ids())
        try:
            tasks = [t for t in load_tasks(self.config.tasks) if t.id in ids]
        except (ValueError, OSError):
            return [{"id": i} for i in sorted(ids)]
        return [{"id": t.id, "devices": list(t.platforms), "instruction": t.description} for t in tasks]

    def check_reset(self, *args: Any) -> tuple[Any, ...]:
        task, seed = args
        ids = self.crab.task_ids()
        if task is None:
            task = ids[0]
        if task not in ids:
            raise ToolError(f"unknown task {task!r}: list_tasks gives the {len(ids)} tasks of this server")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ToolError(f"seed must be a non-negative integer; got {seed!r}")
        return task, seed

    def reset(self, task: str | None = None, seed: int | None = None) -> Any:
        """Start an episode of ``task`` (default: the first task) and run it to its end; the command is
        answered with the episode's first status."""
        task, seed = self.check_reset(task, seed)
        self._episodes += 1  # in the id: two resets within a second are two episodes
        episode_id = f"mcp-{task}-{time.strftime('%Y%m%d-%H%M%S')}-{self.id}-{self._episodes}"
        self.done, self._step = False, None
        self.status = {"episode": episode_id}
        try:
            record = self.episode(
                self.env, task=task, seed=seed, episode_id=episode_id, on_step=self._stepped
            )
        except Exception as e:  # the recorder closed the episode as incomplete; the env needs a reset
            self.done = True
            reply, self.reply = self.reply, None
            if reply is not None:
                reply.set_exception(ToolError(f"the env failed ({type(e).__name__}: {e}): call reset"))
            return DEFERRED
        if record is not None:  # the episode ended: answer its last action
            self.done = True
            self.status["termination_reason"] = record.termination_reason
            if self._step is not None:
                self.answer(self._step.obs, self._step.info)
        return DEFERRED

    def act(self, device: str, name: str, arguments: Mapping[str, Any]) -> Any:
        """An action outside an episode (during one, the waiting agent takes it)."""
        raise ToolError("no episode is running: call reset (list_tasks gives the tasks)")

    def encode(self, device: str, name: str, arguments: Mapping[str, Any]) -> Any:
        """Check a tool call against the tool table: the env's action tuple, or ToolError saying why not."""
        assert self.table is not None
        try:
            call = self.table.parse({"name": name, "arguments": {"device": device, **arguments}})
            return self.crab.encode_action(call.device, call.name, call.params)
        except InvalidAction as e:
            raise ToolError(str(e)) from None
        except (TypeError, ValueError, KeyError) as e:
            raise ToolError(f"{device}.{name}: malformed arguments ({e})") from None

    def _stepped(self, step: Transition) -> None:
        self._step = step

    def answer(self, obs: Any, info: Mapping[str, Any]) -> None:
        """Answer the waiting reset or action with the episode's status after it."""
        step = self._step
        self.status = {
            "episode": self.status.get("episode"),
            "task": info.get("task_id"),
            "instruction": self.crab.task.description if self.crab.task is not None else None,
            "reward": step.reward if step is not None else 0.0,
            "return": step.return_ if step is not None else 0.0,
            "completion_ratio": float(info.get("completion_ratio", 0.0)),
            "success": bool(info.get("success", False)),
            "terminated": bool(step.terminated) if step is not None else False,
            "truncated": bool(step.truncated) if step is not None else False,
            "termination_reason": info.get("termination_reason"),
            "steps": int(info.get("steps", 0)),
            "max_steps": int(self.crab.max_steps),
        }
        for key in ("output", "error", "invalid_action"):
            if info.get(key) is not None:
                self.status[key] = str(info[key])
        reply, self.reply = self.reply, None
        if reply is not None:
            reply.set_result(dict(self.status))

    def screenshot(self, device: str) -> bytes:
        """The device's screen now, as PNG."""
        sub = self._device(device)
        with self.crab.devices_held():
            return png(sub.screenshot())

    def marks(self, device: str) -> list[str]:
        """The Set-of-Marks listing of the device's screen now (as ``info["marks"]`` gives it under
        SetOfMarks), each line with the mark's centre as a point in screen fractions."""
        sub = self._device(device)
        if self._marker is None:
            from crab_gym.wrappers import SetOfMarks

            self._marker = SetOfMarks(self.crab, draw_marks=False)
        w, h = sub.screen_size
        lines = []
        with self.crab.devices_held():
            frame = sub.screenshot()
        for m in self._marker.compute_marks(device, frame):
            cx, cy = m.centre
            lines.append(f"{m.describe()} point=[{cx / w:.3f}, {cy / h:.3f}]")
        return lines

    def _device(self, device: str) -> Any:
        screens = [n for n, s in self.crab.subenvs.items() if all(s.screen_size)]
        if device not in screens:
            raise ToolError(f"unknown device {device!r}: the screens are {', '.join(screens)}")
        if self.crab.task is None:
            raise ToolError("no episode has started: call reset first")
        return self.crab.subenvs[device]

"""One player's session: a CrabEnv under RecordEpisodes, driven only from a thread of its own.

Every env call (make, reset, step, screenshots, close) runs on the session's single thread, so the event loop
never blocks and the devices (X connections, the simulated phone) are only ever touched from one thread.
An episode is a :func:`crab_gym.rollout` with the player as the agent (a
:class:`crab_gym.rollout_thread.RemoteAgent`): its ``act`` waits on that thread, at most ``idle_timeout``
seconds, for the page's next action, and runs the page's other requests (live screens, marks) meanwhile.
A reset or a closed page ends the episode unfinished.
A player's action goes through ``CrabEnv.encode_action`` (the path an agent's named action takes), so only
actions the devices define, with validated parameters, ever reach the env.
"""

from __future__ import annotations

import io
import random
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xxhash
from PIL import Image

from crab_gym.core.actions import InvalidAction
from crab_gym.play.review import append_mark
from crab_gym.rollout import Transition
from crab_gym.rollout_thread import DEFERRED, CommandError, RolloutThread

__all__ = ["Frame", "PlayConfig", "PlayError", "PlaySession", "encode_frame"]

Frame = tuple[str, bytes]  # (device, JPEG bytes)


@dataclass(frozen=True)
class PlayConfig:
    """What every session of a play server gets: tasks, devices, limits, and where recordings go."""

    tasks: str = "v0"  # a task set name or a JSON task file
    task: str | None = None  # the task every session starts with (default: a random one)
    devices: tuple[str, ...] = ()  # empty: the devices the offered tasks need
    backends: Mapping[str, str] = field(default_factory=dict)
    out: Path = Path("runs/play")
    max_sessions: int = 4
    max_steps: int = 100
    frame_interval: float = 1.0  # seconds between live screen refreshes while nobody acts
    max_side: int = 1280  # frames are scaled down to at most this many pixels on their longer side
    quality: int = 85  # JPEG quality of the frames sent to the page
    idle_timeout: float = 1800.0  # seconds an episode waits for the player's next action (then agent_error)


class PlayError(CommandError):
    """Something the player asked for that cannot be done; the message is shown on the page."""


def encode_frame(frame: np.ndarray, max_side: int = 1280, quality: int = 85) -> bytes:
    """A device frame as JPEG bytes, scaled to at most ``max_side`` pixels on its longer side."""
    img = Image.fromarray(np.ascontiguousarray(frame[..., :3]))
    w, h = img.size
    if max(w, h) > max_side:
        f = max_side / max(w, h)
        img = img.resize((max(1, round(w * f)), max(1, round(h * f))), Image.Resampling.BILINEAR)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def graph_levels(n: int, edges: list[list[int]]) -> list[int]:
    """Column of each node (given in topological order) for drawing: 0 for sources, else 1 + its preds'."""
    level = [0] * n
    preds: dict[int, list[int]] = {}
    for u, v in edges:
        preds.setdefault(v, []).append(u)
    for i in range(n):
        level[i] = 1 + max((level[p] for p in preds.get(i, ())), default=-1)
    return level


class PlaySession(RolloutThread):
    """A player's env and episode; the blocking methods run on the session's thread through :meth:`run`."""

    error = PlayError

    def __init__(self, config: PlayConfig) -> None:
        super().__init__("play", config.idle_timeout)
        self.config = config
        self.episode_id: str | None = None
        self.task_id: str | None = None
        self.done = True
        self.episode_path: str | None = None
        self._last: dict[str, Any] = {}
        self._shown: dict[str, int] = {}  # device -> hash of the frame the page shows
        self._event = "reset"
        self._step: Transition | None = None  # the episode's last step

    # ---- blocking: run these on the session's thread ------------------------------------------
    def open(self) -> None:
        """Make the env (its devices start here) wrapped in RecordEpisodes writing to ``config.out``."""
        import gymnasium as gym

        import crab_gym  # noqa: F401 - registers Crab-v0
        from crab_gym.wrappers import RecordEpisodes

        env = gym.make(
            "Crab-v0",
            devices=tuple(self.config.devices),
            tasks=self.config.tasks,
            backends=dict(self.config.backends),
            max_steps=self.config.max_steps,
        )
        self.env = RecordEpisodes(env, self.config.out)

    def check_reset(self, *args: Any) -> tuple[Any, ...]:
        return (self._task(*args),)

    def _task(self, task_id: str | None) -> str:
        ids = self.crab.task_ids()
        if task_id is None:
            return random.choice(ids)
        if task_id not in ids:
            raise PlayError(f"unknown task {task_id!r}: this server offers {len(ids)} tasks")
        return task_id

    def reset(self, task_id: str | None = None) -> Any:
        """Start an episode of ``task_id`` (None: a random task) and run it to its end; the command is
        answered with the state message and all screens once the episode has started."""
        task_id = self._task(task_id)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.episode_id = f"play-{task_id}-{stamp}-{self.id}"
        seed = secrets.randbelow(2**31)
        self.task_id, self.done, self.episode_path, self._step = task_id, False, None, None
        self._shown.clear()
        self._event = "reset"
        try:
            record = self.episode(self.env, task=task_id, seed=seed, episode_id=self.episode_id,
                                  on_step=self._stepped)  # fmt: skip
        except Exception as e:  # the recorder closed the episode as incomplete; the env needs a reset
            self.done = True
            reply, self.reply = self.reply, None
            if reply is not None and self._event == "reset":
                reply.set_exception(e)
            elif reply is not None:
                error = PlayError(f"the env failed ({type(e).__name__}: {e}): start a new episode")
                reply.set_exception(error)
        else:
            if record is None:  # a reset or a close ended it: that command runs next
                return DEFERRED
            self.done = True
            last = self.env.last_episode
            self.episode_path = str(last) if last is not None else None
            if self._step is not None:
                self.answer(self._step.obs, self._step.info)
        finally:
            self.done = True
        return DEFERRED

    def act(self, device: str, action: str, params: Mapping[str, Any]) -> Any:
        """A named action outside an episode (during one, :meth:`_next_action` takes it)."""
        raise PlayError("the episode is over: start a new episode")

    def encode(self, device: str, action: str, params: Mapping[str, Any]) -> Any:
        """Validate a named action like an agent's: the env's action tuple."""
        try:
            return self.crab.encode_action(device, action, params)
        except InvalidAction as e:
            raise PlayError(str(e)) from None
        except (TypeError, ValueError, KeyError) as e:
            raise PlayError(f"{device}.{action}: malformed parameters ({e})") from None

    def _stepped(self, step: Transition) -> None:
        self._step = step

    def answer(self, obs: Any, info: Mapping[str, Any]) -> None:
        """Answer the waiting reset or action with the state and the changed screens."""
        reply, self.reply = self.reply, None
        if reply is None:
            return
        state = self._state(info, self._event)
        if self._event == "step" and self._step is not None:
            state["reward"] = self._step.reward
        self._event = "step"
        reply.set_result((state, self._frames(self.crab.last_screens())))

    def poll(self) -> list[Frame]:
        """Screens that changed since the page last got them (live view between actions)."""
        if self.env is None or self.crab.task is None:
            return []
        with self.crab.devices_held():  # between steps: no video grab meanwhile
            screens = {n: s.screenshot() for n, s in self.crab.subenvs.items() if all(s.screen_size)}
        return self._frames(screens)

    def mark(self, verdict: str, note: str) -> dict[str, Any]:
        """Store the player's verdict on the current (or just finished) task; the stored mark."""
        if self.task_id is None:
            raise PlayError("no task to mark yet")
        try:
            return append_mark(
                self.config.out,
                self.task_id,
                verdict,
                note,
                episode_id=self.episode_id,
                session=self.id,
                episode_over=self.done,
                success=bool(self._last.get("success")),
                completion_ratio=float(self._last.get("completion_ratio", 0.0)),
                termination_reason=self._last.get("termination_reason"),
            )
        except ValueError as e:
            raise PlayError(str(e)) from None

    # ---- helpers --------------------------------------------------------------------------------
    def _frames(self, screens: Mapping[str, np.ndarray]) -> list[Frame]:
        out = []
        for name, frame in screens.items():
            if frame.size == 0:
                continue
            digest = xxhash.xxh3_64_intdigest(np.ascontiguousarray(frame).data.cast("B"))
            if self._shown.get(name) != digest:
                self._shown[name] = digest
                out.append((name, encode_frame(frame, self.config.max_side, self.config.quality)))
        return out

    def _state(self, info: Mapping[str, Any], event: str) -> dict[str, Any]:
        self._last = dict(info)
        crab = self.crab
        graph = crab.graph
        order = {node: i for i, node in enumerate(graph.nodes)}
        edges = [[order[u], order[v]] for u, v in graph.graph.edges]
        levels = graph_levels(len(order), edges)
        nodes = [
            {
                "index": i,
                "name": str(s["name"]),
                "description": str(s["description"]),
                "status": s["status"],
                "error": s["error"],
                "level": levels[i],
            }
            for i, s in enumerate(info["nodes"])
        ]
        state: dict[str, Any] = {
            "type": "state",
            "event": event,
            "session": self.id,
            "task": {
                "id": crab.task.id,
                "instruction": crab.task.description,
                "devices": list(crab.task.platforms),
            },  # fmt: skip
            "episode_id": self.episode_id,
            "steps": int(info.get("steps", 0)),
            "max_steps": int(crab.max_steps),
            "actions": int(info.get("actions", 0)),
            "completion_ratio": float(info["completion_ratio"]),
            "passed": sum(n["status"] == "passed" for n in nodes),
            "success": bool(info["success"]),
            "return": self._step.return_ if self._step is not None else 0.0,
            "done": self.done,
            "termination_reason": info.get("termination_reason"),
            "nodes": nodes,
            "edges": edges,
            "feedback": [str(f) for f in info.get("feedback", [])],
            "episode_path": self.episode_path,
        }
        done = info.get("action")
        if isinstance(done, Mapping):
            state["action"] = {"device": done["device"], "name": done["name"],
                               "params": _plain(done.get("params", {}))}  # fmt: skip
        for key in ("invalid_action", "output", "error"):
            if info.get(key) is not None:
                state[key] = str(info[key])
        return state


def _plain(value: Any) -> Any:
    """Params as JSON values (tuples become lists, numbers stay numbers)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.generic,)):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)

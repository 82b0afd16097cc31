"""CrabEnv: one Gymnasium env over several devices, rewarded by the task's graph evaluator."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np

from crab_gym.core.actions import InvalidAction
from crab_gym.core.graph import GraphEvaluator
from crab_gym.core.tasks import Task
from crab_gym.env_devices import LazyStates, add_api_actions, make_subenv
from crab_gym.env_observer import Observer
from crab_gym.envs.base import DeviceError, DeviceGone, SubEnv
from crab_gym.envs.events import EventScheduler
from crab_gym.envs.root import RootEnv
from crab_gym.envs.video import VideoCapture, tile
from crab_gym.rewards import REWARDS
from crab_gym.spaces import ActionCodec, observation_space, screen_obs

if TYPE_CHECKING:
    from crab_gym.env_state import EnvState

__all__ = ["CrabEnv", "add_api_actions", "make_subenv"]  # the last two live in env_devices


class CrabEnv(gym.Env):
    """Agents act on a desktop, a phone and a root device to finish a task written in words.

    Observation: ``{"instruction": bytes, <device>: {"screen": frame}}``; a frame is (H, W, 3) uint8 at the
    device's size unless ``obs_size`` says otherwise.
    Action: ``(device, action, params)``; points are normalised to [0, 1], whatever the observation size.
    Reward: growth of the task's completion ratio (``reward_mode="dense"``) or 1 on success (``"sparse"``).

    ``obs_size``: observations sized for learning, per device (``{"android": (96, 208)}``) or one size for
    every screen (``(128, 128)``): ``(width, height)`` for RGB, ``(width, height, 1)`` for grayscale
    (``(width, height, 3)`` is RGB too). The space's screen shape follows as (height, width, channels).
    A device that can draw at that size does (the simulated phone: ``screenshot_at``); any other renders at
    full size and the frame is resized once with Pillow (bilinear after an integer box reduction); grayscale
    is Pillow's luma of the small frame. An unchanged frame is not converted again. ``render()`` and
    ``last_screens()`` stay full size (drawn on demand), and Set-of-Marks reads marks from the full frame.

    ``api_actions=True`` adds each device's API actions (a shell, files, SMS, contacts: see
    :mod:`crab_gym.envs.api_actions`) after its GUI actions; ``info["action_mode"]`` is then ``"gui+api"``.
    ``realtime=True``: the devices do not pause between steps (the simulated phone's clock, timers and alarms
    run with the wall clock; the desktop and a real phone always do). ``video_fps=N``: a background thread
    per device grabs its screen at N fps, at the observation's size, between steps; each device's observation
    gains ``video`` (``video_max_frames``, H, W, C), the frames since the last step (the last
    ``video_max_frames`` of them), zero-padded, and ``video_frames``, how many it holds (docs/devices.md).
    ``ask_user``: the root action ``ask_user(question)``, answered by the task's simulated user; None (the
    default): only when a task of the env has one (docs/tasks.md).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        devices: Sequence[str] = ("ubuntu", "android", "root"),
        tasks: str | Sequence[str | Task] = "v0",
        backends: Mapping[str, str] | None = None,
        max_steps: int = 20,
        max_invalid_actions: int = 5,
        reward_mode: str = "dense",
        render_mode: str | None = None,
        obs_size: Mapping[str, Sequence[int]] | Sequence[int] | None = None,
        api_actions: bool = False,
        realtime: bool = False,
        video_fps: float | None = None,
        video_max_frames: int = 16,
        ask_user: bool | None = None,
    ) -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        if reward_mode not in REWARDS:
            raise ValueError(f"reward_mode must be one of {sorted(REWARDS)}, got {reward_mode!r}")
        devices = list(devices)
        if "root" not in devices:
            devices.append("root")
        backends = dict(backends or {})
        unknown = set(backends) - set(devices)
        if unknown:
            raise ValueError(f"backends given for devices this env does not have: {sorted(unknown)}")
        self.realtime = realtime
        self.subenvs: dict[str, SubEnv] = {d: make_subenv(d, backends.get(d), realtime) for d in devices}
        self._backends = backends
        self.api_actions = api_actions
        self.action_mode = "gui+api" if api_actions else "gui"
        """``gui``, or ``gui+api`` with the API actions (crab_gym.envs.api_actions); in every ``info``."""
        if api_actions:
            for sub in self.subenvs.values():
                add_api_actions(sub)
        from crab_gym.tasks import resolve_tasks, tasks_need_user  # templates register at the first lookup

        self.tasks = resolve_tasks(tasks, set(devices))  # a large set (rl-phone) builds a task when drawn
        if ask_user or (ask_user is None and tasks_need_user(self.tasks)):
            cast(RootEnv, self.subenvs["root"]).add_ask_user()  # make_subenv("root") is a RootEnv
        self.max_steps = max_steps
        self.max_invalid_actions = max_invalid_actions
        self.reward_fn = REWARDS[reward_mode]
        self.render_mode = render_mode
        self.codec = ActionCodec(list(self.subenvs.values()))
        self.action_space = self.codec.space
        self.screen_obs = screen_obs(list(self.subenvs.values()), obs_size)
        self.observer = Observer(self.subenvs, self.screen_obs, video_fps, video_max_frames)
        self.video_fps, self.video_max_frames = self.observer.video_fps, self.observer.video_max_frames
        self.video: dict[str, VideoCapture] = self.observer.video  # from the first reset to close
        self.observation_space = observation_space(
            list(self.subenvs.values()), self.screen_obs, self.video_max_frames
        )
        self.task: Task | None = None
        self.graph: GraphEvaluator | None = None
        self.events = EventScheduler()  # the task's device events (docs/tasks.md)
        self._states = LazyStates(self.subenvs)
        self._steps = 0
        self._actions = 0
        self._invalid = 0
        self._done = True

    # ---- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        self.observer.start_video()
        with self.observer.paused():
            return self._reset(seed, options)

    def _reset(self, seed: int | None, options: dict[str, Any]):
        self.task = self._pick_task(options.get("task"))
        t0 = time.perf_counter()
        try:
            self._reset_devices(self.task, seed)
        except DeviceGone:
            raise  # waited for already: a device we do not own is not back
        except (DeviceError, OSError):
            # A device that died during an episode may still reset (the phone behind a dead adb link resets
            # in-process) and fail only in the task's setup: rebuild every device and try once more.
            for name in list(self.subenvs):
                if name != "root":  # in-process, it cannot die
                    self._rebuild_device(name)
            self._reset_devices(self.task, seed)
        assert self.graph is not None
        self._steps = self._actions = self._invalid = 0
        self._done = False
        info = self._info(reset_seconds=time.perf_counter() - t0)
        info["initial_completion_ratio"] = self.graph.completion_ratio
        return self._observe(), info

    def step(self, action: Any):
        with self.observer.paused():
            return self._step(action)

    def observe(self) -> dict[str, Any]:
        """The observation now, without acting: for a wrapper that changed a device between steps
        (crab_gym.wrappers.perturb puts up a pop-up), so the agent sees what it put up: no cached state or
        frame from before the change is used."""
        with self.observer.paused():
            for sub in self.subenvs.values():
                sub.invalidate_state()
                sub.invalidate_screen()
            return self._observe()

    def reject(self, reason: str):
        """Take a step with an action a wrapper found invalid (an unknown mark id, a malformed tool call):
        no device is touched, and it counts toward ``max_invalid_actions`` like any invalid action."""
        with self.observer.paused():
            return self._step(InvalidAction(reason))

    def _step(self, action: Any):
        if self._done or self.graph is None:
            raise RuntimeError("the episode is over: call reset() before step()")
        t0 = time.perf_counter()
        self._steps += 1
        before = self.graph.completion_ratio
        extra: dict[str, Any] = {}
        ends = False
        reason = None
        try:
            if isinstance(action, InvalidAction):
                raise action
            sub, spec, params = self.codec.decode(action)
            result = sub.execute(spec, params)
        except InvalidAction as e:
            self._invalid += 1
            extra["invalid_action"] = str(e)
            if self._invalid >= self.max_invalid_actions:
                reason = "invalid_action_limit"
        except (DeviceError, OSError) as e:
            extra["error"] = f"{type(e).__name__}: {e}"
            reason = "env_error"
        else:
            self._actions += 1
            extra["action"] = {"device": sub.name, "name": spec.name, "params": params}
            if result.output is not None:
                extra["output"] = result.output
            if what := {k: v for k, v in result.info.items() if k != "ends_episode"}:
                extra["action_result"] = what  # what the action did, e.g. search_application's launch
            ends = bool(result.info.get("ends_episode"))
            t1 = time.perf_counter()
            try:
                sub.settle()
            except (DeviceError, OSError) as e:
                extra["error"] = f"{type(e).__name__}: {e}"
                reason = "env_error"
            extra["timings"] = {"execute": t1 - t0, "settle": time.perf_counter() - t1}
        if reason != "env_error":
            t2 = time.perf_counter()
            try:  # the task's device events that came due
                extra.update(self.events.after_step(self._steps, extra.get("action_result")))
            except DeviceError as e:
                extra["error"], reason = f"{type(e).__name__}: {e}", "env_error"
            for other in self.subenvs.values():
                other.invalidate_state()  # time passed for every device, not only the one acted on
            try:
                self.graph.update(self._states)
            except (DeviceError, OSError) as e:
                extra["error"] = f"{type(e).__name__}: {e}"
                reason = "env_error"
            extra.setdefault("timings", {})["evaluate"] = time.perf_counter() - t2
        success = self.graph.success
        terminated = success or ends
        if success:
            reason = "success"
        elif ends:
            reason = "false_completion"
        truncated = not terminated and (reason is not None or self._steps >= self.max_steps)
        if truncated and reason is None:
            reason = "step_limit"
        reward = self.reward_fn(before, self.graph.completion_ratio, success)
        self._done = terminated or truncated
        try:
            obs = self._observe()
        except (DeviceError, OSError) as e:
            obs = self.observer.blank(self.task.description if self.task else "")
            extra["error"] = f"{type(e).__name__}: {e}"
            reason, truncated, self._done = "env_error", not terminated, True
        info = self._info(**extra)
        info["termination_reason"] = reason
        info.setdefault("timings", {})["step"] = time.perf_counter() - t0
        return obs, reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:  # type: ignore[override]  # gym's says a free TypeVar, RenderFrame
        if self.render_mode != "rgb_array":
            return None
        frames = [s.screenshot() for s in self.subenvs.values() if all(s.screen_size)]
        return tile(frames)

    def close(self) -> None:
        self.events.stop()
        self.observer.close()
        for sub in self.subenvs.values():
            sub.close()
        super().close()

    def save_state(self) -> EnvState:
        """Every device's state, the task, the graph's progress, the counters and the RNG (docs/state.md)."""
        from crab_gym import env_state  # imported by the first save or load: most envs never do either

        with self.observer.paused():
            return env_state.capture(self)

    def load_state(self, state: EnvState) -> tuple[dict[str, Any], dict[str, Any]]:
        """Back to a saved state; (observation, info) there, as ``reset`` returns them. StateError if the
        state is not this env's; RestoreError if a device could not be brought back (then ``reset()``)."""
        from crab_gym import env_state

        with self.observer.paused():
            env_state.restore(self, state)
            return self._observe(), self._info()

    # ---- helpers for agents -------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        """Ids of the tasks this env was made with."""
        return [t.id for t in self.tasks]

    def encode_action(self, device: str, action: str, params: Mapping[str, Any] | None = None) -> tuple:
        """The action tuple for (device name, action name, params as python values)."""
        return self.codec.encode(device, action, params)

    def wait_action(self) -> tuple:
        """The root wait() as an action tuple: the do-nothing step."""
        return self.codec.encode("root", "wait", {"seconds": 1})

    def last_screens(self) -> dict[str, np.ndarray]:
        """Every device's frame as of the last observation, before any wrapper drew on or resized it; a
        device that drew its observation small draws its full frame now (its screen has not changed)."""
        return self.observer.last_screens()

    def device_ids(self) -> dict[str, dict[str, Any]]:
        """{device: plain values telling it apart from others of its kind} (an X display and its Xvfb pid,
        a phone's sandbox or adb serial); picklable, so ``vec.call("device_ids")`` works."""
        return {name: sub.identity() for name, sub in self.subenvs.items() if name != "root"}

    def backend_names(self) -> dict[str, str]:
        """The backend string of every device (``root`` has none)."""
        return {
            name: str(getattr(sub, "backend", None) or self._backends.get(name) or "")
            for name, sub in self.subenvs.items()
            if name != "root"
        }

    def action_masks(self) -> np.ndarray:
        """(devices, max actions) bool mask of the (device, action) pairs that exist."""
        return self.codec.mask()

    # ---- internals ----------------------------------------------------------------------------
    def _pick_task(self, wanted: str | Task | None) -> Task:
        if isinstance(wanted, Task):
            return wanted
        if wanted is not None:
            for t in self.tasks:
                if t.id == wanted:
                    return t
            raise ValueError(
                f"unknown task {wanted!r}; this env has {len(self.tasks)} tasks (see task_ids())"
            )
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def _reset_devices(self, task: Task, seed: int | None) -> None:
        """Reset every device, set the task up on them, schedule its events and evaluate the start state."""
        self.events.stop()
        for name in list(self.subenvs):
            self.subenvs[name].task_apps = task.apps
            self._reset_device(name, seed)
        task.setup(self.subenvs)
        self.events.start(task.all_events(), self.subenvs, self.realtime)
        for sub in self.subenvs.values():
            sub.settle()
            sub.invalidate_state()
        self.graph = task.evaluator()
        self.graph.update(self._states)

    def _reset_device(self, name: str, seed: int | None) -> None:
        """Reset a device; a dead one is closed and rebuilt once before giving up."""
        try:
            self.subenvs[name].reset(seed)
        except DeviceGone:
            raise
        except (DeviceError, OSError):
            self._rebuild_device(name)
            self.subenvs[name].reset(seed)

    def _rebuild_device(self, name: str) -> None:
        """Close a device and put a new one of the same backend in its place."""
        self.subenvs[name].close()
        self.subenvs[name] = make_subenv(name, self._backends.get(name), self.realtime)
        if self.api_actions:
            add_api_actions(self.subenvs[name])
        self.codec.subenvs = list(self.subenvs.values())  # same order, the new device in place

    def _observe(self) -> dict[str, Any]:
        assert self.task is not None
        return self.observer.observe(self.task.description)

    def devices_held(self) -> contextlib.AbstractContextManager[None]:
        """For a wrapper that reads a device between steps (its UI tree, a screenshot): no video frame is
        grabbed inside the block, as none is inside a step (a grab and a read on one X connection race)."""
        return self.observer.paused()

    def _info(self, **extra: Any) -> dict[str, Any]:
        assert self.task is not None and self.graph is not None
        info = {
            "task_id": self.task.id,
            "instruction": self.task.description,
            "completion_ratio": self.graph.completion_ratio,
            "success": self.graph.success,
            "nodes": self.graph.node_states(),
            "feedback": self.graph.feedback(),
            "steps": self._steps,
            "actions": self._actions,
            "invalid_actions": self._invalid,
            "action_mask": self.codec.mask(),
            "action_mode": self.action_mode,
        }
        info.update(extra)
        return info

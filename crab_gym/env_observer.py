"""What a CrabEnv's agent sees: each device's screen at its observation's size, and with ``video_fps`` the
frames a background thread per device grabbed between steps."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from crab_gym.envs.base import SubEnv
from crab_gym.envs.video import VideoCapture, paused
from crab_gym.spaces import ScreenObs, encode_instruction


class Observer:
    """Builds the observations of a CrabEnv's devices (``subenvs``, the env's own dict: a rebuilt device is
    seen) and owns their video capture threads."""

    def __init__(
        self,
        subenvs: Mapping[str, SubEnv],
        screen_obs: Mapping[str, ScreenObs],
        video_fps: float | None,
        video_max_frames: int,
    ) -> None:
        if video_fps is not None and (video_fps <= 0 or video_max_frames < 1):
            raise ValueError(
                f"video_fps must be > 0 and video_max_frames >= 1, got {video_fps}, {video_max_frames}"
            )
        self.subenvs, self.screen_obs = subenvs, screen_obs
        self.video_fps, self.video_max_frames = video_fps, video_max_frames if video_fps else 0
        self.video: dict[str, VideoCapture] = {}  # started on the first reset, stopped on close
        self._last_frames: dict[str, np.ndarray] = {}
        self._last_raw: dict[str, np.ndarray] = {}  # what the device handed back: full or drawn small
        self._last_obs: dict[str, np.ndarray] = {}

    def observe(self, instruction: str) -> dict[str, Any]:
        """The observation now: the instruction and every screen, with the video since the last one."""
        obs: dict[str, Any] = {"instruction": encode_instruction(instruction)}
        for name, sub in self.subenvs.items():
            if name in self.screen_obs:
                want = self.screen_obs[name]
                draw_at = getattr(sub, "screenshot_at", None)
                small = (want.width, want.height) != tuple(sub.screen_size) and draw_at is not None
                raw: np.ndarray | None = draw_at((want.width, want.height)) if small and draw_at else None
                if raw is None:
                    raw = sub.screenshot()
                    self._last_frames[name] = raw
                else:
                    self._last_frames.pop(name, None)  # last_screens() draws it full size when asked
                # A device hands back its cached frame while the screen is unchanged: its observation is not
                # converted again, and is copied (observations of two steps must not be one object).
                if raw is self._last_raw.get(name) and name in self._last_obs:
                    screen = self._last_obs[name].copy()
                else:
                    screen = want.convert(raw)
                obs[name] = {"screen": screen}
                if name in self.video:
                    video, count = self.video[name].drain()
                    obs[name].update(video=video, video_frames=np.asarray(count, np.int64))
                self._last_raw[name] = raw
                self._last_obs[name] = screen
        return obs

    def blank(self, instruction: str) -> dict[str, Any]:
        """All-zero frames, for a step whose device died (the next reset recovers it)."""
        obs: dict[str, Any] = {"instruction": encode_instruction(instruction)}
        for name, screen in self.screen_obs.items():
            obs[name] = {"screen": np.zeros(screen.shape, np.uint8)}
            if self.video_max_frames:
                obs[name].update(
                    video=np.zeros((self.video_max_frames, *screen.shape), np.uint8),
                    video_frames=np.asarray(0, np.int64),
                )
            w, h = self.subenvs[name].screen_size
            self._last_frames[name] = np.zeros((h, w, 3), np.uint8)
            self._last_raw[name] = self._last_frames[name]
            self._last_obs.pop(name, None)
        return obs

    def last_screens(self) -> dict[str, np.ndarray]:
        """Every device's full-size frame as of the last observation (one drawn small is drawn full now)."""
        frames = dict(self._last_frames)
        with self.paused():
            for name in self._last_raw.keys() - frames.keys():
                frames[name] = self.subenvs[name].screenshot()
        return frames

    def start_video(self) -> None:
        """One capture thread per screen (once: they run until close)."""
        if not self.video_fps or self.video:
            return
        for name, want in self.screen_obs.items():
            grab = functools.partial(self.grab, name)
            self.video[name] = VideoCapture(grab, want.shape, self.video_fps, self.video_max_frames, name)

    def grab(self, name: str) -> np.ndarray:
        """A device's screen at its observation's size (a video frame)."""
        sub, want = self.subenvs[name], self.screen_obs[name]
        draw_at = getattr(sub, "screenshot_at", None)
        raw = draw_at((want.width, want.height)) if draw_at is not None else None
        return want.convert(sub.screenshot() if raw is None else raw)

    def paused(self) -> contextlib.AbstractContextManager[None]:
        """No frame is grabbed inside the block (while the env acts on or reads the devices)."""
        return paused(self.video.values())

    def close(self) -> None:
        """Stop the capture threads."""
        for capture in self.video.values():
            capture.close()
        self.video.clear()

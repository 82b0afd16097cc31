"""Video between steps: a background thread per device grabs frames at a fixed rate while the agent thinks,
and each observation carries the frames grabbed since the last one (``CrabEnv(video_fps=N)``)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np


class VideoCapture:
    """Grabs ``grab()`` every ``1/fps`` seconds into a ring of the last ``max_frames`` frames, each of
    ``shape`` (H, W, C). The env holds :attr:`lock` while it acts on or observes the device, so a grab never
    runs inside a step; :meth:`close` stops the thread and waits for it."""

    def __init__(
        self,
        grab: Callable[[], np.ndarray],
        shape: tuple[int, ...],
        fps: float,
        max_frames: int,
        name: str = "",
    ) -> None:
        if fps <= 0 or max_frames < 1:
            raise ValueError(f"video needs fps > 0 and max_frames >= 1, got {fps} and {max_frames}")
        self.grab, self.shape, self.fps, self.max_frames = grab, tuple(shape), fps, max_frames
        self.lock = threading.RLock()  # re-entered by a wrapper's read inside the env's own
        self.grabs = 0  # how many frames were grabbed, and the seconds they took (the bench reads them)
        self.grab_seconds = 0.0
        self._frames: deque[np.ndarray] = deque(maxlen=max_frames)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"crab-video-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = 1.0 / self.fps
        due = time.monotonic()
        while not self._stop.is_set():
            with self.lock:
                t0 = time.perf_counter()
                try:
                    frame = self.grab()
                except Exception:  # a device between lives (rebuilt, resetting): no frame this tick
                    frame = None
                self.grab_seconds += time.perf_counter() - t0
            if frame is not None and frame.shape == self.shape:
                self._frames.append(frame)  # a reference: devices hand back fresh or read-only frames
                self.grabs += 1
            due += period
            late = time.monotonic() - due
            if late > period:  # fell behind (a long step held the lock): start the beat again from now
                due = time.monotonic()
            self._stop.wait(max(0.0, due - time.monotonic()))

    def drain(self) -> tuple[np.ndarray, int]:
        """The frames grabbed since the last drain, oldest first, as a (max_frames, H, W, C) uint8 array
        padded with zeros, and how many it holds (the last ``max_frames`` when more were grabbed)."""
        frames = []
        while self._frames:
            frames.append(self._frames.popleft())
        out = np.zeros((self.max_frames, *self.shape), np.uint8)
        for i, f in enumerate(frames):
            out[i] = f
        return out, len(frames)

    def close(self) -> None:
        """Stop grabbing and wait for the thread; idempotent."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        self._frames.clear()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


@contextlib.contextmanager
def paused(captures: Iterable[VideoCapture]) -> Iterator[None]:
    """Hold every capture's lock: no frame is grabbed inside the block (a grab under way finishes first)."""
    with contextlib.ExitStack() as stack:
        for capture in captures:
            stack.enter_context(capture.lock)
        yield


def tile(frames: Sequence[np.ndarray], gap: int = 8) -> np.ndarray:
    """Frames side by side on one canvas, top-aligned."""
    if not frames:
        return np.zeros((1, 1, 3), np.uint8)
    h = max(f.shape[0] for f in frames)
    w = sum(f.shape[1] for f in frames) + gap * (len(frames) - 1)
    out = np.zeros((h, w, 3), np.uint8)
    x = 0
    for f in frames:
        out[: f.shape[0], x : x + f.shape[1]] = f
        x += f.shape[1] + gap
    return out

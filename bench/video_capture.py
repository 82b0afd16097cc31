"""Cost of one video frame (``CrabEnv(video_fps=N)``), per device: what the capture thread spends per grab.

Run: PYTHONPATH=$PWD .venv/bin/python bench/video_capture.py [--desktop]
For each device and observation size it prints, in milliseconds per frame: the capture thread's mean grab
while the agent thinks (the screen unchanged: the device hands back its cached frame) and a grab of a screen
that changed before every frame (the worst case: drawn and converted anew). ``--desktop`` adds the Xvfb
desktop (starts an X session: a few seconds).
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym

import crab_gym  # noqa: F401

SIZES = (None, (108, 240))  # the phone's full 1080x2400, and RL-sized


def _measure(env_id: str, device: str, obs_size, changed, seconds: float = 3.0, rounds: int = 30) -> None:
    env = gym.make(env_id, video_fps=10, video_max_frames=64, obs_size=obs_size)
    try:
        env.reset(seed=0)
        crab = env.unwrapped
        capture = crab.video[device]
        grabs, spent = capture.grabs, capture.grab_seconds
        time.sleep(seconds)
        idle = (capture.grab_seconds - spent) / max(1, capture.grabs - grabs)
        with crab.observer.paused():  # the thread waits: time the grab alone
            crab.observer.grab(device)
            t0 = time.perf_counter()
            for _ in range(rounds):
                changed(crab.subenvs[device])
                crab.observer.grab(device)
            fresh = (time.perf_counter() - t0) / rounds
        w, h = obs_size or crab.subenvs[device].screen_size
        print(
            f"{device:8s} {w:5d}x{h:<5d} idle grab {idle * 1e3:7.3f} ms  changed screen {fresh * 1e3:7.2f} ms"
        )
    finally:
        env.close()


def _phone_changed(sub) -> None:
    sub.device.phone.invalidate()  # as if the clock's minute moved or a timer rang


def _desktop_changed(sub) -> None:
    """Nothing to do: the desktop's screenshot is read from X every time."""


def main() -> None:
    for size in SIZES:
        _measure("Crab-Android-v0", "android", size, _phone_changed)
    if "--desktop" in sys.argv:
        for size in (None, (128, 80)):  # 1280x800, and RL-sized
            _measure("Crab-Desktop-v0", "ubuntu", size, _desktop_changed)


if __name__ == "__main__":
    main()

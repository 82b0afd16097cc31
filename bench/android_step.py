"""Android step rate, step latency through adb and reset time (prints figures, asserts nothing).

- in-process steps/s: AndroidEnv("sim") — a random valid action (tap, swipe, back/home, long tap, text),
  settle and the observation frame, at 1080x2400 and at 96x208 (drawn small by the phone when it can,
  else one Pillow resize); then the same through CrabEnv.step (graph update with a check read through
  `content query`, info, observation), at both sizes.
- through adb: AndroidEnv("adb-sim") — our phone served as an adb device and driven through a real adb
  server (private port): execute + settle (screencaps until two agree) + frame; then CrabEnv.step.
  Median and p90 in ms.
- reset: AndroidEnv("sim").reset after the phone's files, rows and screen changed; and through adb.
- androidenv: the same random steps through DeepMind's AndroidEnv on our phone (when installed).

Run: .venv/bin/python bench/android_step.py [steps]
"""

from __future__ import annotations

import os
import random
import socket
import statistics
import subprocess
import sys
import time

import adbutils
import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.core.tasks import Task
from crab_gym.envs.android import AndroidEnv
from crab_gym.spaces import resize_frame
from crab_gym.tasks import get_template

SMALL = (96, 208)


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def random_action(rng: random.Random) -> tuple[str, dict]:
    r = rng.random()
    if r < 0.55:
        return "tap", {"point": (rng.random(), rng.uniform(0.05, 0.95))}
    if r < 0.7:
        return "swipe", {"direction": rng.choice(["up", "down"]), "distance": rng.choice(["short", "medium"])}
    if r < 0.8:
        return "press", {"button": rng.choice(["back", "home"])}
    if r < 0.9:
        return "long_tap", {"point": (rng.random(), rng.uniform(0.05, 0.95))}
    return "write_text", {"text": "hello world"}


def observe(env: AndroidEnv, size: tuple[int, int] | None):
    """The frame an observation of ``size`` needs: drawn at that size when the backend can, else resized."""
    if size is None:
        return env.screenshot()
    draw_at = getattr(env, "screenshot_at", None)
    frame = draw_at(size) if draw_at is not None else None
    return frame if frame is not None else resize_frame(env.screenshot(), size)


def subenv_steps(env: AndroidEnv, steps: int, seed: int = 0, size=None) -> list[float]:
    rng = random.Random(seed)
    env.reset(seed=0)
    times = []
    for i in range(steps):
        if i % 50 == 0:
            env.reset(seed=0)
        name, params = random_action(rng)
        t = time.perf_counter()
        env.execute(env.action(name), params)
        env.settle()
        observe(env, size)
        times.append(time.perf_counter() - t)
    return times


def crab_steps(backends: dict, steps: int, seed: int = 0, obs_size=None) -> list[float]:
    sub = get_template("contacts_add").instantiate(name="Never", number="555-000-0000")
    task = Task("bench", sub.instruction, [sub])
    env = gym.make("Crab-Android-v0", tasks=[task], backends=backends, max_steps=10**9, obs_size=obs_size)
    crab = env.unwrapped
    rng = random.Random(seed)
    env.reset(seed=0)
    times = []
    for i in range(steps):
        if i % 50 == 0:
            env.reset(seed=0)
        name, params = random_action(rng)
        action = crab.encode_action("android", name, params)
        t = time.perf_counter()
        env.step(action)
        times.append(time.perf_counter() - t)
    env.close()
    return times


def resets(env: AndroidEnv, n: int) -> list[float]:
    out = []
    for _ in range(n):
        env.execute(env.action("tap"), {"point": (0.9, 0.775)})  # Camera
        env.execute(env.action("tap"), {"point": (0.5, 0.8583)})  # a photo: a file, a frame
        env.set_setting("secure", "ui_night_mode", "2")
        env.screenshot()
        t = time.perf_counter()
        env.reset(seed=0)
        out.append(time.perf_counter() - t)
    return out


def report(label: str, times: list[float]) -> None:
    print(
        f"{label:58s} median {statistics.median(times) * 1000:7.2f} ms   p90 {pct(times, 0.9) * 1000:7.2f} ms"
        f"   ({len(times) / sum(times):7.1f} /s)"
    )


def main(steps: int = 500) -> None:
    env = AndroidEnv("sim")
    subenv_steps(env, 50)  # warm caches (pristine snapshot, fonts)
    times = subenv_steps(env, steps)
    print(f"in-process steps/s with observation (sub-env, 1080x2400): {len(times) / sum(times):.0f}")
    report("  sub-env step (execute + settle + frame)", times)
    subenv_steps(env, 50, size=SMALL)
    times = subenv_steps(env, steps, size=SMALL)
    print(f"in-process steps/s with observation (sub-env, 96x208):    {len(times) / sum(times):.0f}")
    report("  sub-env step (execute + settle + 96x208 frame)", times)
    times = crab_steps({"android": "sim"}, steps)
    print(f"in-process steps/s with observation (CrabEnv.step):       {len(times) / sum(times):.0f}")
    report("  CrabEnv.step (+ graph update through the shell, info)", times)
    times = crab_steps({"android": "sim"}, steps, obs_size={"android": SMALL})
    print(f"in-process steps/s, 96x208 observation (CrabEnv.step):    {len(times) / sum(times):.0f}")
    report("  CrabEnv.step, obs_size 96x208", times)
    report("reset in-process (after a photo, a setting, a new screen)", resets(env, 50))
    env.close()
    try:
        import android_env  # noqa: F401
    except ImportError:
        print("android_env not installed: androidenv figures skipped")
    else:
        env = AndroidEnv("androidenv")
        report("step through DeepMind AndroidEnv (androidenv backend)", subenv_steps(env, steps // 5))
        env.close()

    adb = adbutils.adb_path()
    if not adb or not os.path.exists(adb):
        print("no adb binary: adb figures skipped")
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run([adb, "-P", str(port), "start-server"], capture_output=True, timeout=30, check=True)
    try:
        env = AndroidEnv("adb-sim", adb_server_port=port)
        n = max(20, steps // 5)
        times = subenv_steps(env, n)
        report("step through adb (execute + settle + frame)", times)
        report("reset through adb (adb-sim: the served phone)", resets(env, 10))
        env.close()
        os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
        times = crab_steps({"android": "adb-sim"}, n)
        report("CrabEnv.step through adb (+ graph update over adb)", times)
    finally:
        subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, timeout=30, check=False)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))

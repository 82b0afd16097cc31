"""crab-gym beside MiniWoB++, measured in one run with one protocol (bench/throughput.py); prints one table.

MiniWoB++ ``miniwob/click-test-2-v1`` (headless Debian chromium through chromium-driver) is the anchor.
Then Crab-Android-v0 (simulated phone in-process at full size and at 96x208, and the same phone served over
adb), Crab-Desktop-v0 and Crab-v0. Every env gets clicks/taps at random points, in episodes of at most
50 steps. Columns: env steps/s of one env in this process and as a multiple of MiniWoB++'s, median reset
time, env steps/s with 1 and 2 async workers (timed in alternating windows) and their ratio (what a second
worker adds) with its range over the windows, the lock-step ceiling of that ratio from the spread of the
env's own step times (throughput.lockstep_ceiling), and PSS per env. The last line: crab_gym.make_vec with 2
workers x 8 small phones against one in-process phone (bench/make_vec.py).

MiniWoB++ needs gymnasium>=1.2.3 while RLlib pins 1.2.2, so it runs in its own virtualenv (``.venv-miniwob``,
made on first use with ``pip install miniwob``). Needs Debian ``chromium`` and ``chromium-driver``.

Run: .venv/bin/python bench/vs_miniwob.py [seconds-per-case]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

# bench/ is sys.path[0] when run as a script
from make_vec import batched, line
from throughput import ceiling, independent, measure, sync_and_async

import crab_gym  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-miniwob"
MINIWOB_TASK = "miniwob/click-test-2-v1"
ANDROID_TASK = "contacts_add-0"
# Steps an episode may last: random taps that never reset settle in whichever screen they reach, one
# costlier per step than another, so two runs would compare different walks.
EPISODE = 50


def miniwob(seconds: float) -> dict:
    """MiniWoB++ figures from its own virtualenv."""
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "miniwob>=1.1"], check=True)
    env = {
        **os.environ,
        "MINIWOB_CHROME_BINARY": "/usr/bin/chromium",
        "MINIWOB_CHROMEDRIVER": "/usr/bin/chromedriver",
    }
    res = subprocess.run(
        [str(py), str(ROOT / "bench" / "throughput.py"), MINIWOB_TASK, str(seconds)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if res.returncode != 0:
        raise RuntimeError(f"MiniWoB++ run failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def crab_case(env_id: str, devices: tuple[str, ...], **kwargs) -> tuple[Callable[[], gym.Env], Callable]:
    """A factory for ``env_id`` and a policy tapping/clicking random points on ``devices`` in turn."""

    def make() -> gym.Env:
        return gym.make(env_id, max_steps=EPISODE, **kwargs)

    probe = make()
    encode = probe.unwrapped.encode_action
    verbs = {"android": "tap", "ubuntu": "click"}
    probe.close()

    def policy(rng: np.random.Generator) -> tuple:
        dev = devices[int(rng.integers(len(devices)))]
        return encode(dev, verbs[dev], {"point": (rng.uniform(0.05, 0.95), rng.uniform(0.1, 0.9))})

    return make, policy


def cases() -> dict[str, tuple[Callable[[], gym.Env], Callable]]:
    small = {"android": (96, 208)}
    return {
        "Crab-Android-v0 sim 1080x2400": crab_case("Crab-Android-v0", ("android",), tasks=[ANDROID_TASK]),
        "Crab-Android-v0 sim 96x208": crab_case(
            "Crab-Android-v0", ("android",), tasks=[ANDROID_TASK], obs_size=small
        ),
        "Crab-Android-v0 adb-sim 96x208": crab_case(
            "Crab-Android-v0",
            ("android",),
            tasks=[ANDROID_TASK],
            obs_size=small,
            backends={"android": "adb-sim"},
        ),
        "Crab-Desktop-v0": crab_case("Crab-Desktop-v0", ("ubuntu",)),
        "Crab-v0 (sim phone)": crab_case("Crab-v0", ("ubuntu", "android"), obs_size=small),
    }


def main(seconds: float = 10.0) -> None:
    rows = {f"MiniWoB++ {MINIWOB_TASK}": miniwob(seconds)}
    for name, (make, policy) in cases().items():
        rows[name] = measure(make, policy, seconds)
    base = next(iter(rows.values()))
    head = (
        f"{'env':34s} {'steps/s':>8s} {'xMiniWoB':>9s} {'reset ms':>9s} {'1 async':>8s} {'2 async':>8s}"
        f" {'2/1':>5s} {'range':>9s} {'lock':>5s} {'MB/env':>7s}"
    )
    print(f"{seconds:g} s per case; random clicks/taps; one env in-process, then 1 and 2 async workers timed")
    print("in 5 alternating windows (2/1: the median of the 5 ratios, range: the lowest and highest);")
    print("lock: the most 2 lock-step workers can give over 1, from the spread of the in-process step times")
    print(head)
    print("-" * len(head))
    for name, r in rows.items():
        vs = r["steps_per_s"] / base["steps_per_s"]
        print(
            f"{name:34s} {r['steps_per_s']:8.1f} {vs:9.1f} {1000 * r['reset_s']:9.0f}"
            f" {r['async1_steps_per_s']:8.1f} {r['async2_steps_per_s']:8.1f} {r['ratio']:5.2f}"
            f" {r['ratio_min']:4.2f}-{r['ratio_max']:4.2f} {r['lockstep_ceiling']:5.2f}"
            f" {r['async2_mb_per_env']:7.0f}"
        )
    desk = rows["Crab-Desktop-v0"]
    print(f"desktop step time / MiniWoB++ step time: {base['steps_per_s'] / desk['steps_per_s']:.2f}")
    small = rows["Crab-Android-v0 sim 96x208"]
    make, policy = cases()["Crab-Android-v0 sim 96x208"]
    env = make()
    try:
        cpu_s = 1.0 / small["steps_per_s"]
        top = ceiling(env, policy(np.random.default_rng(0)), cpu_s, seconds)
    finally:
        env.close()
    alone = independent(make, policy, seconds)
    both = sync_and_async(make, policy, seconds)
    print(
        f"Crab-Android-v0 sim 96x208: 2 async workers over 1 reached "
        f"{small['ratio']:.2f}; 2 processes stepping alone, "
        f"without a vector env, {alone['ratio']:.2f} ({alone['ratio_min']:.2f}-{alone['ratio_max']:.2f}; the "
        f"cores); lock-step with its uneven step "
        f"times at most {small['lockstep_ceiling']:.2f}; a stand-in env burning a constant "
        f"{cpu_s * 1000:.2f} ms a step {top['payload']:.2f} with Crab-Android-v0's spaces, observation and "
        f"info, {top['minimal']:.2f} with a minimal env; 2 envs in one process (SyncVectorEnv) "
        f"{both['sync']:.0f} steps/s against {both['async']:.0f} in 2 async workers "
        f"({both['sync_over_async']:.2f}x)"
    )
    print(line("Crab-Android-v0 sim 96x208", 2, 8, batched(make, policy, seconds, workers=2, per_worker=8)))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)

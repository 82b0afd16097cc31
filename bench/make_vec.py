"""Env steps/s of crab_gym's batched vector env (``make_vec``: W workers, each stepping its envs together)
against one env in this process, timed in alternating windows in one run (bench/throughput.py's protocol:
random taps, env i drawing from its own generator seeded i, episodes of at most 50 steps).

The target of issue 26: the phone at 96x208, 2 workers x 8 envs, >= 1.8x one in-process env on 2 cores.
Also the same 16 envs in one process (``SyncVectorEnv``): what batching alone gives, without workers.

Run: .venv/bin/python bench/make_vec.py [seconds] [workers] [envs-per-worker ...]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

# bench/ is sys.path[0] when run as a script
from throughput import Policy, _step, alternate, descendants, pss_mb

import crab_gym  # noqa: F401
from crab_gym.vector import BatchedVectorEnv


def batched(
    make: Callable[[], gym.Env], policy: Policy, seconds: float, workers: int = 2, per_worker: int = 8,
    rounds: int = 5,
) -> dict:  # fmt: skip
    """Env steps/s of one env in this process and of ``workers`` x ``per_worker`` envs in a
    :class:`BatchedVectorEnv`, in ``rounds`` alternating windows: medians, the median per-round ratio with
    its range, and PSS per env of the batched run."""
    vecs = {
        "one": gym.vector.SyncVectorEnv([make]),
        "batched": BatchedVectorEnv([make] * (workers * per_worker), workers),
    }
    try:
        rates = alternate(vecs, policy, seconds, rounds)
        pids = [p.pid for p in vecs["batched"].processes]
        mem = pss_mb(pids + [d for p in pids for d in descendants(p)]) / (workers * per_worker)
    finally:
        for vec in vecs.values():
            vec.close()
    ratios = [b / a for a, b in zip(rates["one"], rates["batched"], strict=True)]
    return {
        "one_steps_per_s": statistics.median(rates["one"]),
        "batched_steps_per_s": statistics.median(rates["batched"]),
        "ratio": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "mb_per_env": mem,
    }


def ceiling(
    make: Callable[[], gym.Env], policy: Policy, seconds: float, workers: int, per_worker: int
) -> dict[str, float]:
    """The most ``workers`` lock-step workers of ``per_worker`` envs each can give over one env, from this
    env's own step times (resets included) recorded in this process: a vector step lasts as long as the
    slowest worker's sum of ``per_worker`` steps; nothing sent between processes is counted. From wall
    times (``wall``) and from this thread's CPU times (``cpu``: what a loaded machine disturbs less), with
    the mean CPU ms of a step and of a reset."""
    env, rng = make(), np.random.default_rng(0)
    wall: list[float] = []
    cpu: list[float] = []
    resets: list[float] = []
    try:
        env.reset(seed=0)
        for _ in range(5):
            _step(env, policy(rng))
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            w, c = time.perf_counter(), time.thread_time()
            _, _, term, trunc, _ = env.step(policy(rng))
            if term or trunc:
                r = time.thread_time()
                env.reset()
                resets.append(time.thread_time() - r)
            wall.append(time.perf_counter() - w)
            cpu.append(time.thread_time() - c)
    finally:
        env.close()
    return {
        "wall": _lockstep(np.asarray(wall), workers, per_worker),
        "cpu": _lockstep(np.asarray(cpu), workers, per_worker),
        "step_ms": 1000 * float(np.mean(cpu)),
        "reset_ms": 1000 * float(np.mean(resets)) if resets else float("nan"),
    }


def _lockstep(times: np.ndarray, workers: int, per_worker: int) -> float:
    sums = np.random.default_rng(0).choice(times, (100_000, workers, per_worker)).sum(axis=2)
    return float(workers * times.mean() * per_worker / sums.max(axis=1).mean())


def line(name: str, workers: int, per_worker: int, r: dict) -> str:
    return (
        f"{name}: make_vec {workers} workers x {per_worker} envs {r['batched_steps_per_s']:.0f} env steps/s, "
        f"one in-process env {r['one_steps_per_s']:.0f}: {r['ratio']:.2f}x "
        f"({r['ratio_min']:.2f}-{r['ratio_max']:.2f} over the windows), {r['mb_per_env']:.0f} MB/env"
    )


def main(seconds: float, workers: int, sizes: list[int]) -> None:
    from vs_miniwob import ANDROID_TASK, crab_case  # noqa: PLC0415 - the phone of the MiniWoB++ table

    name = "Crab-Android-v0 sim 96x208"
    make, policy = crab_case(
        "Crab-Android-v0", ("android",), tasks=[ANDROID_TASK], obs_size={"android": (96, 208)}
    )
    for per_worker in sizes:
        print(
            line(name, workers, per_worker, batched(make, policy, seconds, workers, per_worker)), flush=True
        )
        top = ceiling(make, policy, seconds, workers, per_worker)
        print(
            f"  lock-step ceiling from the spread of the phone's own step times: {top['wall']:.2f}x "
            f"(from its CPU times: {top['cpu']:.2f}x; CPU per step {top['step_ms']:.2f} ms with resets, "
            f"per reset {top['reset_ms']:.2f} ms)",
            flush=True,
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        float(args[0]) if args else 10.0,
        int(args[1]) if len(args) > 1 else 2,
        [int(a) for a in args[2:]] or [8],
    )

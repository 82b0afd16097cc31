"""Env steps/s of crab_gym's batched vector env (``make_vec``: W workers, each stepping its envs together)
against one env in this process, timed in alternating windows in one run (bench/throughput.py's protocol:
random taps, env i drawing from its own generator seeded i, episodes of at most 50 steps).

The target of issue 26: the phone at 96x208, 2 workers x 8 envs, >= 1.8x one in-process env on 2 cores.
Then what bounds the ratio, from CPU times (which a loaded machine disturbs less than wall times): per
vector step, the main process's CPU (the policy's 16 actions, sending, merging infos, copying observations)
and each worker's CPU from a command's arrival to its answer sent; in lock-step a vector step lasts at least
the main process's share plus the slower worker's.

Run: .venv/bin/python bench/make_vec.py [seconds] [workers] [envs-per-worker ...]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array

# bench/ is sys.path[0] when run as a script
from throughput import Policy, _step, alternate, descendants, pss_mb

import crab_gym  # noqa: F401
from crab_gym.vector import BatchedVectorEnv, pipes


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


class _TimedPipe:
    """A worker's end of its pipe that notes, per step command, the worker's CPU from the command's arrival
    to its answer sent (``busy``) and after that until the next command (``after``: resets done ahead)."""

    def __init__(self, conn: Any) -> None:
        self.conn, self.log, self.arrived, self.sent = conn, [], 0.0, None
        self.command = None

    def recv(self) -> Any:
        if self.sent is not None:
            self.log.append((self.sent[0], time.thread_time() - self.sent[1]))
        message = self.conn.recv()
        self.arrived, self.command, self.sent = time.thread_time(), message[0], None
        return message

    def send(self, message: Any) -> None:
        self.conn.send(message)
        if self.command == "step":
            now = time.thread_time()
            self.sent = (now - self.arrived, now)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def bounds(
    make: Callable[[], gym.Env], policy: Policy, steps: int, workers: int, per_worker: int, rounds: int = 4
) -> dict[str, float]:
    """CPU ms per vector step of the main process and of the workers (mean, slower), against ``n`` x the CPU
    ms of one in-process env's step (policy included), in alternating rounds of ``steps`` vector steps;
    ``model``: the ratio these CPU times allow, ``n * one / (main + slower)``."""
    n, logs = workers * per_worker, Path(tempfile.mkdtemp(prefix="make_vec-"))
    serve = pipes.serve

    def timed(env_fns: Any, start: int, conn: Any, *args: Any) -> None:
        pipe = _TimedPipe(conn)
        try:
            serve(env_fns, start, pipe, *args)
        finally:
            (logs / f"{start}.json").write_text(json.dumps(pipe.log))

    pipes.serve = timed  # the workers are forked: they run this
    try:
        vecs = {"one": gym.vector.SyncVectorEnv([make]), "batched": BatchedVectorEnv([make] * n, workers)}
    finally:
        pipes.serve = serve
    cpu: dict[str, list[float]] = {k: [] for k in vecs}
    try:
        rngs = {k: [np.random.default_rng(i) for i in range(v.num_envs)] for k, v in vecs.items()}
        out = {k: create_empty_array(v.single_action_space, v.num_envs) for k, v in vecs.items()}
        for vec in vecs.values():
            vec.reset(seed=0)
        for _ in range(rounds):
            for k, vec in vecs.items():
                for _ in range(steps * (n if k == "one" else 1) // rounds):
                    t = time.thread_time()
                    vec.step(concatenate(vec.single_action_space, [policy(r) for r in rngs[k]], out[k]))
                    cpu[k].append(time.thread_time() - t)
    finally:
        for vec in vecs.values():
            vec.close()
    done = [np.asarray(json.loads((logs / f"{w * per_worker}.json").read_text())) for w in range(workers)]
    last = min(len(d) for d in done)
    busy = np.stack([d[-last:, 0] for d in done])
    one, main, slower = float(np.mean(cpu["one"])), float(np.mean(cpu["batched"])), float(busy.max(0).mean())
    return {
        "one_ms": 1000 * one,
        "main_ms": 1000 * main,
        "worker_ms": 1000 * float(busy.mean()),
        "slower_ms": 1000 * slower,
        "after_ms": 1000 * float(np.mean([d[-last:, 1] for d in done])),
        "model": n * one / (main + slower),
    }


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
        b = bounds(make, policy, 400, workers, per_worker)
        n = workers * per_worker
        print(
            f"  CPU per vector step of {n}: main process {b['main_ms']:.2f} ms (policy, pipes, infos), "
            f"a worker {b['worker_ms']:.2f} ms, the slower of the {workers} {b['slower_ms']:.2f} ms (and "
            f"{b['after_ms']:.2f} ms after answering: resets done ahead); {n} steps of one in-process env "
            f"{n * b['one_ms']:.2f} ms: at most {b['model']:.2f}x "
            f"(spread: x{b['worker_ms'] / b['slower_ms']:.2f}, main process: "
            f"x{b['slower_ms'] / (b['slower_ms'] + b['main_ms']):.2f}, worker vs in-process step: "
            f"x{n * b['one_ms'] / workers / b['worker_ms']:.2f})",
            flush=True,
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        float(args[0]) if args else 10.0,
        int(args[1]) if len(args) > 1 else 2,
        [int(a) for a in args[2:]] or [8],
    )

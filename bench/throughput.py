"""One protocol for any Gymnasium env: steps/s, reset time and memory, alone and in 1 and 2 async workers.

Plain gymnasium + stdlib, so the same code measures crab-gym and, from its own virtualenv, MiniWoB++
(bench/vs_miniwob.py runs this file there as a script). A policy is ``policy(rng) -> action``. Env number
i draws from its own generator seeded i, wherever it runs (in this process, in a vector env of 1 or 2, in
its own process): a random walk can settle in a screen that costs twice another's per step, and env 0 must
walk the same way in every setting compared.

Memory is the proportional set size (PSS, /proc/PID/smaps_rollup) of the async workers and everything
they started (browsers, X servers, apps), divided by the number of envs.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array

Policy = Callable[[np.random.Generator], Any]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(d.name))
    return tree


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (not ``pid`` itself)."""
    tree, out, todo = _children(), [], [pid]
    while todo:
        kids = tree.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def pss_mb(pids: list[int]) -> float:
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        except OSError:
            continue
    return total_kb / 1024


def run_single(make: Callable[[], gym.Env], policy: Policy, seconds: float, resets: int = 5) -> dict:
    """Env steps/s and median reset time of one env in this process."""
    env = make()
    rng = np.random.default_rng(0)
    try:
        env.reset(seed=0)
        times = []
        for i in range(resets):
            t = time.perf_counter()
            env.reset(seed=i + 1)
            times.append(time.perf_counter() - t)
        for _ in range(5):  # warm-up
            _step(env, policy(rng))
        steps, elapsed = _timed_steps(env, policy, rng, seconds)
        return {
            "steps_per_s": len(steps) / elapsed,
            "reset_s": statistics.median(times),
            "lockstep_ceiling": lockstep_ceiling(steps),
        }
    finally:
        env.close()


def independent(make: Callable[[], gym.Env], policy: Policy, seconds: float, rounds: int = 5) -> dict:
    """Env steps/s of 1 and of 2 envs each stepping alone in its own process (forked; no vector env, nothing
    sent between them while they step): what the machine's cores give with no lock-step and no transport.

    Timed in alternating windows as :func:`alternate` does (env 0 alone, then both, ``rounds`` times) with
    both processes up; an idle one waits on its pipe. Medians, and the median per-round 2/1 ratio with its
    range.
    """
    import multiprocessing as mp  # noqa: PLC0415

    ctx = mp.get_context("fork")

    def serve(index: int, conn: Any) -> None:
        env, rng = make(), np.random.default_rng(index)
        env.reset(seed=0)
        for _ in range(5):
            _step(env, policy(rng))
        conn.send("ready")
        while (window := conn.recv()) is not None:
            steps, elapsed = _timed_steps(env, policy, rng, window)
            conn.send(len(steps) / elapsed)
        env.close()

    pipes = [ctx.Pipe() for _ in range(2)]
    procs = [ctx.Process(target=serve, args=(i, child), daemon=True) for i, (_, child) in enumerate(pipes)]
    conns = [parent for parent, _ in pipes]

    def recv(conn: Any, timeout: float) -> Any:
        if not conn.poll(timeout):
            raise TimeoutError(f"an independent env process sent nothing within {timeout:.0f} s")
        return conn.recv()

    for p in procs:
        p.start()
    try:
        for c in conns:
            recv(c, 300)
        rates: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(rounds):
            for n in (1, 2):
                for c in conns[:n]:
                    c.send(seconds / rounds)
                rates[n].append(sum(recv(c, seconds + 60) for c in conns[:n]))
        return _one_and_two("alone", rates)
    finally:
        stop(conns, procs)


def stop(conns: list[Any], procs: list[Any], wait_s: float = 30.0) -> None:
    """Tell each worker to stop (None on its pipe), wait for it, kill it if it is still there."""
    for c in conns:
        try:
            c.send(None)
        except OSError:
            pass
    for p in procs:
        p.join(timeout=wait_s)
        if p.is_alive():
            p.kill()


def _one_and_two(label: str, rates: dict[int, list[float]]) -> dict:
    """Per-round steps/s with 1 and with 2 envs as medians, and the median per-round 2/1 ratio with its
    range."""
    ratios = [b / a for a, b in zip(rates[1], rates[2], strict=True)]
    return {
        f"{label}1_steps_per_s": statistics.median(rates[1]),
        f"{label}2_steps_per_s": statistics.median(rates[2]),
        "ratio": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }


def lockstep_ceiling(step_times: list[float], workers: int = 2, draws: int = 100_000) -> float:
    """The most ``workers`` async workers can give over one, from this env's own step times: gymnasium's
    AsyncVectorEnv waits for every worker, so a vector step lasts as long as the slowest of ``workers``
    steps; steps of uneven cost (a tap that opens a screen beside one that hits nothing) leave the others
    idle. ``workers * E[t] / E[max(t_1..t_n)]`` with independent draws from the recorded times; the cost of
    moving actions and results comes on top."""
    t = np.asarray(step_times)
    slowest = np.random.default_rng(0).choice(t, (draws, workers)).max(axis=1)
    return float(workers * t.mean() / slowest.mean())


def _timed_steps(
    env: gym.Env, policy: Policy, rng: np.random.Generator, seconds: float
) -> tuple[list[float], float]:
    """Step ``env`` for ``seconds``: each step's duration, and the time it all took."""
    steps, t0 = [], time.perf_counter()
    while (t := time.perf_counter()) - t0 < seconds:
        _step(env, policy(rng))
        steps.append(time.perf_counter() - t)
    return steps, time.perf_counter() - t0


def _step(env: gym.Env, action: Any) -> None:
    _, _, term, trunc, _ = env.step(action)
    if term or trunc:
        env.reset()


def run_async(
    make: Callable[[], gym.Env], policy: Policy, seconds: float, rounds: int = 5, shared_memory: bool = True
) -> dict:
    """Env steps/s with 1 and with 2 async workers (autoreset on), and PSS per env of the 2-worker run.

    Timed in alternating windows (:func:`alternate`). Steps/s are medians over the rounds; ``ratio`` is the
    median of the per-round 2/1 ratios, with ``ratio_min`` and ``ratio_max``.
    """
    vecs = {n: gym.vector.AsyncVectorEnv([make] * n, shared_memory=shared_memory) for n in (1, 2)}
    try:
        rates = alternate(vecs, policy, seconds, rounds)
        workers = [p.pid for p in vecs[2].processes]
        mem = pss_mb(workers + [d for w in workers for d in descendants(w)]) / 2
        return _one_and_two("async", rates) | {"async2_mb_per_env": mem}
    finally:
        for vec in vecs.values():
            vec.close()


def sync_and_async(make: Callable[[], gym.Env], policy: Policy, seconds: float, rounds: int = 5) -> dict:
    """Env steps/s of 2 envs in one process (``SyncVectorEnv``) and in 2 async workers, timed in alternating
    windows (:func:`alternate`): medians, and the median per-round sync/async ratio."""
    vecs = {"sync": gym.vector.SyncVectorEnv([make] * 2), "async": gym.vector.AsyncVectorEnv([make] * 2)}
    try:
        rates = alternate(vecs, policy, seconds, rounds)
        ratio = statistics.median(a / b for a, b in zip(rates["sync"], rates["async"], strict=True))
        return {k: statistics.median(v) for k, v in rates.items()} | {"sync_over_async": ratio}
    finally:
        for vec in vecs.values():
            vec.close()


def alternate(vecs: dict[Any, gym.vector.VectorEnv], policy: Policy, seconds: float, rounds: int) -> dict:
    """Env steps/s of each vector env in ``rounds`` windows of ``seconds / rounds``, taken in turn (a, b, a,
    b, ...) with all of them up: the speed of a shared 2-core machine drifts by more than the effects
    measured, and taking turns puts the drift on all alike. An idle vector env's workers wait on their pipes
    and use no CPU. Env i of every vector env draws from its own generator seeded i."""
    rngs = {k: [np.random.default_rng(i) for i in range(vec.num_envs)] for k, vec in vecs.items()}
    for k, vec in vecs.items():
        vec.reset(seed=0)
        _vector_steps(vec, policy, rngs[k], 0.5)  # warm-up
    rates: dict[Any, list[float]] = {k: [] for k in vecs}
    for _ in range(rounds):
        for k, vec in vecs.items():
            rates[k].append(_vector_steps(vec, policy, rngs[k], seconds / rounds))
    return rates


def _vector_steps(
    vec: gym.vector.VectorEnv, policy: Policy, rngs: list[np.random.Generator], seconds: float
) -> float:
    """Step ``vec`` with ``policy`` for ``seconds``, env i drawing from ``rngs[i]``: env steps/s."""
    space, n = vec.single_action_space, len(rngs)
    out = create_empty_array(space, n)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        vec.step(concatenate(space, [policy(rng) for rng in rngs], out))
        steps += n
    return steps / (time.perf_counter() - t0)


def measure(make: Callable[[], gym.Env], policy: Policy, seconds: float, shared_memory: bool = True) -> dict:
    """The whole protocol: one env in-process, then 1 and 2 async workers in alternating windows."""
    return run_single(make, policy, seconds) | run_async(make, policy, seconds, shared_memory=shared_memory)


class Busy(gym.Env):
    """A stand-in env that spends ``cpu_s`` of CPU per step and returns fixed ``obs`` and ``info`` in the
    given spaces: run in async workers, it shows the most a second worker can add for a step of that cost
    (gymnasium's AsyncVectorEnv works in lock-step: the main process handles every worker's result while
    the workers wait for their next action), with the same payloads or with none."""

    def __init__(self, cpu_s: float, obs_space: Any, act_space: Any, obs: Any, info: dict) -> None:
        self.observation_space, self.action_space = obs_space, act_space
        self.cpu_s, self.obs, self.info = cpu_s, obs, info

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        super().reset(seed=seed)
        return self.obs, dict(self.info)

    def step(self, action: Any) -> tuple:
        end = time.thread_time() + self.cpu_s
        while time.thread_time() < end:
            pass
        return self.obs, 0.0, False, False, dict(self.info)


def ceiling(env: gym.Env, action: Any, cpu_s: float, seconds: float) -> dict[str, float]:
    """The 2/1 async ratio (:func:`run_async`'s median) of :class:`Busy` at ``cpu_s`` per step: with
    ``env``'s spaces, observation and step info ("payload"), and with a minimal env (a Discrete action, 4
    floats, no info)."""
    obs, _ = env.reset(seed=0)
    info = env.step(action)[4]
    spaces = env.observation_space, env.action_space  # the workers get these, never ``env`` itself
    tiny, zeros = gym.spaces.Box(0.0, 1.0, (4,), np.float32), np.zeros(4, np.float32)
    makers = {
        "payload": (lambda: Busy(cpu_s, *spaces, obs, info), lambda r: action),
        "minimal": (lambda: Busy(cpu_s, tiny, gym.spaces.Discrete(2), zeros, {}), lambda r: 0),
    }
    return {name: run_async(make, policy, seconds)["ratio"] for name, (make, policy) in makers.items()}


def _miniwob_policy(task: str) -> Policy:
    """Clicks at random points of a MiniWoB++ task's page (run inside a virtualenv that has miniwob)."""
    import miniwob  # noqa: PLC0415 - only in MiniWoB's own virtualenv
    from miniwob.action import ActionTypes  # noqa: PLC0415

    gym.register_envs(miniwob)
    probe = gym.make(task)
    kinds = list(probe.unwrapped.action_space_config.action_types)
    click = kinds.index(ActionTypes.CLICK_COORDS)
    width, height = (
        probe.unwrapped.action_space_config.screen_width,
        probe.unwrapped.action_space_config.screen_height,
    )
    template = probe.action_space.sample()
    probe.close()

    def policy(rng: np.random.Generator) -> dict:
        coords = np.array([rng.uniform(0, width), rng.uniform(50, height)], dtype=np.float32)
        return {**template, "action_type": click, "coords": coords}

    return policy


def _miniwob_main(task: str, seconds: float) -> None:
    """Measure MiniWoB++ (run inside a virtualenv that has miniwob; prints one JSON line)."""
    policy = _miniwob_policy(task)
    # Its DOM observation has a dynamic shape, which shared memory cannot hold.
    print(json.dumps(measure(lambda: gym.make(task), policy, seconds, shared_memory=False)))


def _miniwob_windows(task: str) -> None:
    """One MiniWoB++ env stepped in windows on request, for timing in alternation with another env: each
    line on stdin is a window's length in seconds; each answer one JSON line with the window's steps/s."""
    policy, env, rng = _miniwob_policy(task), gym.make(task), np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(5):  # warm-up
        _step(env, policy(rng))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        steps, elapsed = _timed_steps(env, policy, rng, float(line))
        print(json.dumps({"steps_per_s": len(steps) / elapsed}), flush=True)
    env.close()


if __name__ == "__main__":
    if sys.argv[1] == "--windows":
        _miniwob_windows(sys.argv[2])
    else:
        _miniwob_main(sys.argv[1], float(sys.argv[2]))

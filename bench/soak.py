"""Soak: random valid actions with resets on Crab-v0 (desktop + simulated phone) for M minutes, in one env or
in 2 async envs; memory of every process over time, and nothing left behind after close.

Every ``--interval`` seconds it samples RSS and PSS of every process of the run (our process tree and the
desktop sessions' processes, by kind), their open fds, the process count, the X displays and session users
in use. It prints a before/after table and the memory slope over the second half of the run (a linear fit,
MB/hour), writes the samples as JSON and a PNG of memory over time per kind of process.

Exit code 1 when, after close, file descriptors, processes, X displays or session users are left (or, with
``--max-slope``, when the total RSS grew faster than that many MB/hour over the second half).

Run: .venv/bin/python bench/soak.py --minutes 10 [--vector] [--png docs/img/soak.png] [--json soak.json]
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array
from soak_probe import KINDS, Probe, by_kind, leaks, snapshot

import crab_gym  # noqa: F401
from crab_gym.baselines import RandomAgent


class RandomActor(gym.Wrapper):
    """A vector worker's own random agent: ``vec.call("agent_action")`` draws its next valid action."""

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        super().__init__(env)
        self.agent = RandomAgent(env, seed=seed)
        self._obs: Any = None
        self._info: dict[str, Any] = {}

    def reset(self, **kwargs: Any):
        self._obs, self._info = self.env.reset(**kwargs)
        return self._obs, self._info

    def step(self, action: Any):
        self._obs, reward, terminated, truncated, self._info = self.env.step(action)
        return self._obs, reward, terminated, truncated, self._info

    def agent_action(self) -> tuple:
        return self.agent.act(self._obs, self._info)


def make_env(args: argparse.Namespace) -> Any:
    kwargs = {"backends": {"android": "sim"}, "max_steps": args.max_steps}
    if args.vector:
        return gym.make_vec("Crab-v0", num_envs=2, vectorization_mode="async",
                            wrappers=[lambda e: RandomActor(e, seed=args.seed)], **kwargs)  # fmt: skip
    return gym.make("Crab-v0", **kwargs)


def run_single(env: gym.Env, args: argparse.Namespace, ready: Any, stats: dict[str, Any]) -> None:
    agent = RandomAgent(env, seed=args.seed)
    obs, info = env.reset(seed=args.seed)
    until = ready()
    while time.monotonic() < until:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        stats["steps"] += 1
        if terminated or truncated:
            stats["episodes"] += 1
            stats["reasons"][info["termination_reason"]] += 1
            obs, info = env.reset()


def run_vector(vec: Any, args: argparse.Namespace, ready: Any, stats: dict[str, Any]) -> None:
    vec.reset(seed=args.seed)
    until = ready()
    buffer = create_empty_array(vec.single_action_space, n=vec.num_envs)
    while time.monotonic() < until:
        actions = concatenate(vec.single_action_space, vec.call("agent_action"), buffer)
        _, _, terminated, truncated, info = vec.step(actions)
        stats["steps"] += vec.num_envs
        for i in np.flatnonzero(terminated | truncated):
            stats["episodes"] += 1
            stats["reasons"][str(info["termination_reason"][i])] += 1


def slope(samples: list[dict[str, Any]], values: list[float]) -> float:
    """MB/hour of a linear fit over the second half of the run."""
    t = np.array([s["t"] for s in samples]) / 3600
    v = np.array(values)
    half = t >= t[-1] / 2
    if half.sum() < 2:
        return float("nan")
    return float(np.polyfit(t[half], v[half], 1)[0])


def plot(samples: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [s["t"] / 60 for s in samples]
    kinds = [k for k in KINDS if any(k in by_kind(s) for s in samples)]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True, height_ratios=[3, 1])
    for k in kinds:
        ax.plot(minutes, [by_kind(s).get(k, 0.0) for s in samples], label=k, linewidth=1.4)
    ax.plot(minutes, [sum(by_kind(s).values()) for s in samples], "k-", label="total RSS", linewidth=2)
    pss = [sum(by_kind(s, "pss").values()) for s in samples]
    ax.plot(minutes, pss, "k--", label="total PSS", linewidth=1.4)
    ax.set_ylabel("memory (MB)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=3, loc="upper left")
    ax2.plot(minutes, [s["processes"] for s in samples], label="processes")
    ax2.plot(minutes, [s["fds"] for s in samples], label="open fds")
    ax2.set_xlabel("minutes")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def settle_after_close(probe: Probe, before: dict[str, Any], wait: float = 15.0) -> dict[str, Any]:
    """The after-snapshot, once what close() killed has gone (bounded); leaks that stay are leaks."""
    deadline = time.monotonic() + wait
    while True:
        after = snapshot(probe)
        if not any(leaks(before, after).values()) or time.monotonic() > deadline:
            return after
        time.sleep(0.5)


def table(before: dict[str, Any], after: dict[str, Any], first: dict[str, Any], last: dict[str, Any]) -> str:
    b, a, mb, ma = before, after, before["machine"], after["machine"]
    rows = [
        ("open fds of this process", len(b["fds"]), first["main_fds"], last["main_fds"], len(a["fds"])),
        ("open fds, every process of the run", "", first["fds"], last["fds"], len(a["fds"])),
        ("processes of the run (ours + sessions)", len(b["children"]) + 1, first["processes"],
         last["processes"], len(a["children"]) + len(a["session_processes"]) + 1),
        ("X displays in use by the run", len(b["displays"]), len(first["displays"]), len(last["displays"]),
         len(a["displays"])),
        ("session users of the run with processes", len(b["session_users"]), len(first["users"]),
         len(last["users"]), len(a["session_users"])),
        ("machine: /tmp/.X11-unix sockets", mb["x_sockets"], "", "", ma["x_sockets"]),
        ("machine: Xvfb servers (all runs)", mb["xvfb"], "", "", ma["xvfb"]),
        ("machine: crabgym-* users with processes", mb["users_with_processes"], "", "",
         ma["users_with_processes"]),
        ("machine: crabgym-* users defined", mb["crabgym_users"], "", "", ma["crabgym_users"]),
    ]  # fmt: skip
    lines = [f"{'':44} {'before':>8} {'start':>8} {'end':>8} {'closed':>8}"]
    lines += [f"{name:44} {b!s:>8} {s!s:>8} {e!s:>8} {a!s:>8}" for name, b, s, e, a in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--vector", action="store_true", help="2 async envs instead of one env")
    ap.add_argument("--interval", type=float, default=10.0, help="seconds between samples")
    ap.add_argument("--max-steps", type=int, default=20, help="episode length (then a reset)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--png", type=Path, default=None, help="memory over time (needs matplotlib)")
    ap.add_argument("--json", type=Path, default=None, help="every sample, the tables and the verdict")
    ap.add_argument("--max-slope", type=float, default=None, help="fail above this many MB/hour of RSS")
    args = ap.parse_args(argv)

    probe = Probe()
    before = snapshot(probe)
    samples: list[dict[str, Any]] = []
    stats: dict[str, Any] = {"steps": 0, "episodes": 0, "reasons": collections.Counter()}
    stop = threading.Event()
    t0 = time.monotonic()

    def sampler() -> None:
        while not stop.is_set():
            samples.append(probe.sample(time.monotonic() - t0))
            stop.wait(args.interval)

    thread = threading.Thread(target=sampler, name="soak-sampler", daemon=True)

    def ready() -> float:
        """The envs are up (first reset done): start sampling; returns when to stop."""
        nonlocal t0
        t0 = time.monotonic()
        thread.start()
        return t0 + args.minutes * 60

    env = make_env(args)
    try:
        (run_vector if args.vector else run_single)(env, args, ready, stats)
    finally:
        stop.set()
        if thread.is_alive():
            thread.join()
        samples.append(probe.sample(time.monotonic() - t0))
        env.close()
        del env  # a closed vector env frees its shared memory and pipes only when it is collected
        gc.collect()
    after = settle_after_close(probe, before)
    left = leaks(before, after)

    mode = "2 async envs" if args.vector else "1 env"
    total = [sum(by_kind(s).values()) for s in samples]
    total_pss = [sum(by_kind(s, "pss").values()) for s in samples]
    slopes = {k: slope(samples, [by_kind(s).get(k, 0.0) for s in samples]) for k in KINDS}
    slopes = {k: v for k, v in slopes.items() if any(k in by_kind(s) for s in samples)}
    seconds = samples[-1]["t"]
    rate = stats["steps"] / max(seconds, 1e-9)
    print(f"soak: Crab-v0 (sim phone), {mode}, random valid actions, {seconds / 60:.1f} min, "
          f"{stats['steps']} steps ({rate:.1f}/s), {stats['episodes']} episodes "
          f"{dict(stats['reasons'])}, {len(samples)} samples")  # fmt: skip
    print(table(before, after, samples[0], samples[-1]))
    print(f"RSS total: start {total[0]:.0f} MB, max {max(total):.0f} MB, end {total[-1]:.0f} MB; "
          f"PSS total: start {total_pss[0]:.0f} MB, end {total_pss[-1]:.0f} MB")  # fmt: skip
    per_kind = ", ".join(f"{k} {v:+.1f}" for k, v in slopes.items())
    print(f"slope over the second half (MB/hour): total RSS {slope(samples, total):+.1f}, "
          f"total PSS {slope(samples, total_pss):+.1f}; {per_kind}")  # fmt: skip
    failed = [f"{what} left after close: {items}" for what, items in left.items() if items]
    if args.max_slope is not None and slope(samples, total) > args.max_slope:
        failed.append(f"total RSS grew {slope(samples, total):+.1f} MB/hour > {args.max_slope}")
    print("\n".join(failed) or "no leak: fds, processes, displays and session users are as before")
    if args.png:
        title = (f"crab-gym soak: Crab-v0, {mode}, {seconds / 60:.0f} min of random actions; total RSS "
                 f"{slope(samples, total):+.0f} MB/h over the second half")  # fmt: skip
        plot(samples, args.png, title)
        print(f"wrote {args.png}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "mode": mode, "minutes": args.minutes, "steps": stats["steps"], "episodes": stats["episodes"],
            "reasons": dict(stats["reasons"]), "samples": samples, "before": before, "after": after,
            "leaks": left, "slopes_mb_per_hour": {"total_rss": slope(samples, total),
                                                  "total_pss": slope(samples, total_pss), **slopes},
            "failed": failed,
        }, default=str, indent=1))  # fmt: skip
        print(f"wrote {args.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

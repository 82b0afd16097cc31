"""Desktop step time per action type under random valid actions (prints a table, asserts nothing).

Crab-Desktop-v0 with RandomAgent's valid actions on the desktop (points uniform, text and launcher queries
drawn from the instruction), a reset every ``--episode`` steps. Per action type: count, median, p90, p99
and max of the whole env step (action, settle, evaluation, screenshot), the seconds all of them took and
their share of the mix's time, and how many settles ran into their bound (``timeout``: the session never
went quiet, e.g. an app kept drawing). ``search_application`` is split by
what the launch did (``info["action_result"]["launch"]``): a new window (the app's own start-up is in that
time), an existing window focused, the launched program exited or went idle without a window, or no match.
First line: the steps/s of the whole mix. ``PYTHONPATH`` picks the crab_gym measured (another checkout's, to
compare).

``--vs-miniwob R``: instead of ``--steps``, R rounds of one ``--window``-second window of MiniWoB++
``click-test-2`` (random clicks, bench/throughput.py in MiniWoB++'s own virtualenv, ``--miniwob-venv``)
and one of the mix, in turn; per round both rates and their ratio, then the medians.

Run: .venv/bin/python bench/desktop_actions.py [--steps N] [--episode K] [--seed S]
     [--vs-miniwob R [--window S] [--miniwob-venv DIR]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import gymnasium as gym
import numpy as np

import crab_gym  # noqa: F401
from crab_gym.baselines import RandomAgent

ROOT = Path(__file__).resolve().parents[1]
MINIWOB_TASK = "miniwob/click-test-2-v1"
SETTLE_BOUND = 2.9  # s: a settle this long ran into DesktopEnv.settle's 3 s bound


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


class Mix:
    """Crab-Desktop-v0 stepped with RandomAgent's valid desktop actions; step times kept per action type."""

    def __init__(self, episode: int, seed: int) -> None:
        self.env = gym.make("Crab-Desktop-v0", tasks="v0", max_steps=10**9)
        self.agent = RandomAgent(self.env, seed=seed, devices=["ubuntu"])
        self.times: dict[str, list[float]] = defaultdict(list)
        self.bounded: dict[str, int] = defaultdict(int)  # steps whose settle ran into its bound
        self.rng, self.episode, self.i = np.random.default_rng(seed), episode, 0
        self.obs, self.info = self.env.reset(seed=seed)

    def run(self, steps: int | None = None, seconds: float | None = None) -> float:
        """Step ``steps`` times or for ``seconds``; the steps/s of these steps (resets not counted)."""
        took_all, n, t0 = 0.0, 0, time.perf_counter()
        while (steps is None or n < steps) and (seconds is None or time.perf_counter() - t0 < seconds):
            if self.i and self.i % self.episode == 0:
                self.obs, self.info = self.env.reset(seed=int(self.rng.integers(1000)))
            t = time.perf_counter()
            self.obs, _, term, trunc, self.info = self.env.step(self.agent.act(self.obs, self.info))
            took = time.perf_counter() - t
            act = self.info.get("action", {}).get("name", "invalid")
            if act == "search_application":
                act += f" ({self.info.get('action_result', {}).get('launch', '?')})"
            self.times[act].append(took)
            self.bounded[act] += self.info.get("timings", {}).get("settle", 0.0) >= SETTLE_BOUND
            took_all, n, self.i = took_all + took, n + 1, self.i + 1
            if term or trunc:
                self.obs, self.info = self.env.reset(seed=int(self.rng.integers(1000)))
        return n / took_all

    def table(self) -> None:
        whole = sum(map(sum, self.times.values()))
        head = " ".join(f"{h:>7s}" for h in ("median", "p90", "p99", "max", "total", "share", "timeout"))
        print(f"  {'action':38s} {'n':>4s} {head}")
        for name, xs in sorted(self.times.items()):
            row = f"{statistics.median(xs):7.3f} {pct(xs, 0.9):7.3f} {pct(xs, 0.99):7.3f} {max(xs):7.3f}"
            share = f"{sum(xs):7.1f} {sum(xs) / whole:7.1%} {self.bounded[name]:7d}"
            print(f"  {name:38s} {len(xs):4d} {row} {share}")


def miniwob_windows(venv: Path) -> subprocess.Popen:
    """MiniWoB++ in its own virtualenv, stepping one window per line we send (throughput.py --windows)."""
    env = {
        **os.environ,
        "MINIWOB_CHROME_BINARY": "/usr/bin/chromium",
        "MINIWOB_CHROMEDRIVER": "/usr/bin/chromedriver",
        "PYTHONPATH": "",
    }
    cmd = [str(venv / "bin" / "python"), str(ROOT / "bench" / "throughput.py"), "--windows", MINIWOB_TASK]
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and json.loads(proc.stdout.readline()).get("ready")
    return proc


def vs_miniwob(mix: Mix, rounds: int, window: float, venv: Path) -> None:
    proc = miniwob_windows(venv)
    assert proc.stdin is not None and proc.stdout is not None
    rows = []
    try:
        for r in range(rounds):
            proc.stdin.write(f"{window}\n")
            proc.stdin.flush()
            theirs = json.loads(proc.stdout.readline())["steps_per_s"]
            ours = mix.run(seconds=window)
            rows.append((theirs, ours))
            print(f"  round {r + 1}: MiniWoB++ {theirs:6.2f}, mix {ours:6.2f} steps/s ({ours / theirs:.2f}x)")
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    ratios = [o / t for t, o in rows]
    theirs, ours = statistics.median(t for t, _ in rows), statistics.median(o for _, o in rows)
    print(
        f"  median: MiniWoB++ {theirs:.2f}, mix {ours:.2f} steps/s; mix/MiniWoB++ "
        f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
    )


def main(a: argparse.Namespace) -> None:
    mix = Mix(a.episode, a.seed)
    try:
        if a.vs_miniwob:
            print(
                f"Crab-Desktop-v0 random valid desktop actions (reset every {a.episode} steps) and MiniWoB++ "
                f"{MINIWOB_TASK}, {a.vs_miniwob} rounds of {a.window:g} s windows in turn"
            )
            vs_miniwob(mix, a.vs_miniwob, a.window, Path(a.miniwob_venv))
        else:
            rate = mix.run(steps=a.steps)
            print(f"Crab-Desktop-v0, {a.steps} random valid desktop actions, reset every {a.episode} steps")
            print(f"  all steps: {rate:.2f} steps/s (resets not counted)")
        print("  seconds per step:")
        mix.table()
    finally:
        mix.env.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--episode", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vs-miniwob", type=int, default=0, metavar="ROUNDS")
    ap.add_argument("--window", type=float, default=20.0)
    ap.add_argument("--miniwob-venv", default=str(ROOT / ".venv-miniwob"))
    main(ap.parse_args())

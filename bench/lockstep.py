"""Where the lock-step ceiling of the small phone comes from (prints figures, asserts nothing).

Steps Crab-Android-v0 (simulated phone, 96x208 observation) in this process with vs_miniwob's random taps and
50-step episodes, recording each step's time and each end-of-episode reset's, then prints the spread and the
most two lock-step workers could give over one (``throughput.lockstep_ceiling``): as measured, if resets cost
no more than a median step, and if in addition no step cost more than the 90th percentile.

Run: .venv/bin/python bench/lockstep.py [steps]
"""

from __future__ import annotations

import sys
import time

import numpy as np
from throughput import lockstep_ceiling  # bench/ is sys.path[0] when run as a script
from vs_miniwob import cases


def main(steps: int = 20_000) -> None:
    make, policy = cases()["Crab-Android-v0 sim 96x208"]
    env, rng = make(), np.random.default_rng(0)
    times, resets = [], []
    try:
        env.reset(seed=0)
        for _ in range(steps):
            t = time.perf_counter()
            _, _, term, trunc, _ = env.step(policy(rng))
            step = time.perf_counter() - t
            reset = 0.0
            if term or trunc:
                t = time.perf_counter()
                env.reset()
                reset = time.perf_counter() - t
            times.append(step + reset)
            resets.append(reset > 0)
    finally:
        env.close()
    t, is_reset = np.asarray(times), np.asarray(resets)
    plain = t[~is_reset]
    median = float(np.median(plain))
    even_resets = np.where(is_reset, median, t)
    clipped = np.minimum(even_resets, np.percentile(plain, 90))
    p50, p90, p99 = (1000 * np.percentile(plain, q) for q in (50, 90, 99))
    ended = int(is_reset.sum())
    print(f"{steps} steps, {ended} episodes ended; mean {1000 * t.mean():.2f} ms a step, resets included")
    print(f"step (no reset): median {p50:.2f} ms, p90 {p90:.2f} ms, p99 {p99:.2f} ms")
    print(f"step that ended an episode, with the reset: median {1000 * np.median(t[is_reset]):.2f} ms")
    print(
        f"lock-step ceiling of 2 workers: {lockstep_ceiling(t):.2f} as measured; "
        f"{lockstep_ceiling(even_resets):.2f} with resets at a median step; "
        f"{lockstep_ceiling(clipped):.2f} with no step above p90 as well"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)

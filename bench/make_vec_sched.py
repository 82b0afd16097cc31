"""make_vec's workers under SCHED_BATCH against the default policy, in one run: two
``BatchedVectorEnv`` of 2 workers x N phones at 96x208 (``batch_scheduling`` True and False), both up,
stepped in alternating windows with bench/make_vec.py's policy (random taps), so a shared machine's drift
falls on both alike. Per side: env steps/s (median over the windows), and the wall time of the first and
second command sent in a step (a woken worker that takes the sender's core holds back the second).

Run: .venv/bin/python bench/make_vec_sched.py [seconds] [envs-per-worker] [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import numpy as np

# bench/ is sys.path[0] when run as a script
from throughput import alternate
from vs_miniwob import ANDROID_TASK, crab_case

from crab_gym.vector import BatchedVectorEnv


class _TimedSends:
    """Wraps a worker's pipe end: the wall time of each send, by the worker's place in the step's order."""

    def __init__(self, conn: Any, log: list[float]) -> None:
        self._conn, self._log = conn, log

    def send(self, message: Any) -> None:
        t = time.perf_counter()
        self._conn.send(message)
        self._log.append(time.perf_counter() - t)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def main(seconds: float, per_worker: int, rounds: int) -> None:
    make, policy = crab_case(
        "Crab-Android-v0", ("android",), tasks=[ANDROID_TASK], obs_size={"android": (96, 208)}
    )
    vecs = {
        batch: BatchedVectorEnv([make] * (2 * per_worker), 2, batch_scheduling=batch)
        for batch in (True, False)
    }
    sends: dict[bool, list[list[float]]] = {batch: [[], []] for batch in vecs}
    for batch, vec in vecs.items():
        for w, worker in enumerate(vec._workers):
            worker.conn = _TimedSends(worker.conn, sends[batch][w])
    try:
        rates = alternate(vecs, policy, seconds, rounds)
    finally:
        for vec in vecs.values():
            vec.close()
    for batch in vecs:
        firsts, seconds_ = (np.array(s[100:]) * 1e3 for s in sends[batch])
        print(
            f"batch_scheduling={batch}: {statistics.median(rates[batch]):.0f} env steps/s "
            f"({', '.join(f'{r:.0f}' for r in rates[batch])}); a step's first send {firsts.mean():.3f} ms "
            f"mean, {np.percentile(firsts, 90):.3f} p90, second {seconds_.mean():.3f} ms mean, "
            f"{np.percentile(seconds_, 90):.3f} p90",
            flush=True,
        )
    pairs = [a / b for a, b in zip(rates[True], rates[False], strict=True)]
    print(f"batch / default: median {statistics.median(pairs):.3f} ({', '.join(f'{p:.2f}' for p in pairs)})")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        float(args[0]) if args else 20.0,
        int(args[1]) if len(args) > 1 else 8,
        int(args[2]) if len(args) > 2 else 10,
    )

"""How much a GraphEvaluator.update costs beyond the checks it runs (prints figures, asserts nothing).

A 10-node graph (a chain with two branches) of trivial checks. Scenarios, each timed per call with
time.perf_counter over many repetitions:

- cascade: from a fresh reset, one update in which all 10 nodes pass (the reset is not timed);
- stalled: an update in which the only active node fails (what most steps of an episode look like);
- baseline: a plain Python loop calling the same 10 check functions with the same arguments.

"stalled" runs one check, so it is compared with a tenth of the baseline (one bare check call).

Run: .venv/bin/python bench/graph_overhead.py [repetitions]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from crab_gym.core import GraphEvaluator, evaluator

ENV = "bench"


@evaluator(env=ENV)
def flag(state: frozenset[str], name: str) -> bool:
    """flag {name} is set"""
    return name in state


NAMES = [f"n{i}" for i in range(10)]
#  n0 -> n1 -> n2 -> n3 -> n4 -> n9      (chain)
#         \-> n5 -> n6 ------------^     (branch)
#               \-> n7 -> n8             (branch off the branch, a second sink)
EDGES = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 9), (1, 5), (5, 6), (6, 9), (5, 7), (7, 8)]


def timings(fn: Callable[[], object], reps: int, before: Callable[[], object] | None = None) -> list[float]:
    """Seconds per call of fn, one measurement per call; ``before`` runs untimed ahead of each call."""
    out = []
    clock = time.perf_counter
    for _ in range(reps):
        if before is not None:
            before()
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return out


def summary(label: str, secs: list[float], nodes: int, baseline: float | None = None) -> str:
    med = statistics.median(secs) * 1e6
    p90 = statistics.quantiles(secs, n=10)[-1] * 1e6
    line = f"{label:<10} median {med:7.2f} us  p90 {p90:7.2f} us  per node {med / nodes:6.3f} us"
    if baseline is not None:
        line += f"  x{med / baseline:5.1f} baseline, overhead {med - baseline:6.2f} us"
    return line


def main(reps: int = 20000) -> None:
    checks = [flag(name=n) for n in NAMES]
    graph = GraphEvaluator.from_checks(checks, EDGES)
    all_set = {ENV: frozenset(NAMES)}
    none_set: dict[str, frozenset[str]] = {ENV: frozenset()}
    fns = [(c.fn, dict(c.kwargs)) for c in checks]
    state = all_set[ENV]

    def baseline_loop() -> None:
        for fn, kwargs in fns:
            assert fn is not None
            fn(state, **kwargs)

    # warm up
    timings(baseline_loop, 1000)
    timings(lambda: graph.update(all_set), 1000, before=graph.reset)

    base = timings(baseline_loop, reps)
    cascade = timings(lambda: graph.update(all_set), reps, before=graph.reset)
    graph.reset()
    stalled = timings(lambda: graph.update(none_set), reps)
    assert graph.completion_ratio == 0.0

    base_med = statistics.median(base) * 1e6
    python = sys.version.split()[0]
    print(f"GraphEvaluator.update, 10 nodes, {len(EDGES)} edges, {reps} repetitions, Python {python}")
    print(summary("baseline", base, nodes=10))
    print(summary("cascade", cascade, nodes=10, baseline=base_med))
    print(summary("stalled", stalled, nodes=1, baseline=base_med / 10))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)

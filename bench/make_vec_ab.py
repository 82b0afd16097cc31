"""bench/make_vec.py on two source trees in one run, alternating, so that a shared machine's load falls on
both alike: each round runs every tree's own ``bench/make_vec.py`` (a fresh process importing crab_gym from
that tree, ``PYTHONPATH``), tree order flipped every round. Per run: the throughput ratio of 2 x N envs
over one in-process env, the CPU bound ("at most") with its factors, and the load average before and after.
Then per tree the medians, and B's ratio over A's paired by round (the ratio of ratios).

Run: .venv/bin/python bench/make_vec_ab.py TREE_A TREE_B [rounds] [seconds] [envs-per-worker]
     (e.g. /work/main . 4 10 8)
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

FIGURES = {
    "ratio": r"in-process env \d+: ([\d.]+)x",
    "at_most": r"at most ([\d.]+)x",
    "spread": r"spread: x([\d.]+)",
    "main_ms": r"main process ([\d.]+) ms",
    "slower_ms": r"the slower of the \d+ ([\d.]+) ms",
    "main_share": r"main process: x([\d.]+)",
}


def run(tree: Path, seconds: float, per_worker: int) -> dict[str, float]:
    """One bench/make_vec.py run of ``tree``: its figures and the load averages around it."""
    before = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, str(tree / "bench" / "make_vec.py"), str(seconds), "2", str(per_worker)],
        cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    print(f"  {tree}: {' | '.join(line.strip() for line in out.splitlines())}", flush=True)
    figures = {k: float(m.group(1)) for k, p in FIGURES.items() if (m := re.search(p, out))}
    return {**figures, "load_before": before, "load_after": os.getloadavg()[0]}


def main(argv: list[str]) -> int:
    trees = [Path(argv[0]).resolve(), Path(argv[1]).resolve()]
    rounds = int(argv[2]) if len(argv) > 2 else 4
    seconds = float(argv[3]) if len(argv) > 3 else 10.0
    per_worker = int(argv[4]) if len(argv) > 4 else 8
    runs: list[list[dict[str, float]]] = [[], []]
    for r in range(rounds):
        for i in (0, 1) if r % 2 == 0 else (1, 0):
            runs[i].append(run(trees[i], seconds, per_worker))
    for tree, rs in zip(trees, runs, strict=True):
        med = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
        each = ", ".join(f"{x['ratio']:.2f}" for x in rs)
        print(f"{tree}: medians " + ", ".join(f"{k} {v:.2f}" for k, v in med.items()) + f"; ratios {each}")
    for k in ("ratio", "at_most"):
        pairs = [b[k] / a[k] for a, b in zip(*runs, strict=True)]
        print(
            f"B/A {k}: median {statistics.median(pairs):.3f} (" + ", ".join(f"{p:.2f}" for p in pairs) + ")"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

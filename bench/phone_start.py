"""A phone's cold start and memory, two source trees side by side: fresh interpreters that import crab_gym
from tree A or tree B (``PYTHONPATH``), alternating, each making ``Crab-Android-v0`` as bench/density.py's
phone case does (rl-phone tasks, 96x208) and taking its first observation.

Per tree: medians of wall seconds to the first observation (and the child's split: imports, make, first
reset), of the child's CPU seconds (less sensitive to a loaded machine than wall time), and of its PSS
after the first observation (and whether it imported networkx); then the B/A ratio of each, paired by
round. Bytecode is cached per tree (one untimed start each), as an installed package has it.

Run: .venv/bin/python bench/phone_start.py TREE_A TREE_B [rounds]   (e.g. /work/main .)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import time, json, sys
t0 = time.perf_counter()
import gymnasium as gym, crab_gym
t1 = time.perf_counter()
env = gym.make("Crab-Android-v0", max_steps=50, tasks="rl-phone", obs_size={"android": (96, 208)})
t2 = time.perf_counter()
env.reset(seed=0)
t3 = time.perf_counter()
pss = next(int(ln.split()[1]) for ln in open("/proc/self/smaps_rollup") if ln.startswith("Pss:")) / 1024
nx = "networkx" in sys.modules
out = {"imports": t1 - t0, "make": t2 - t1, "reset": t3 - t2, "pss_mb": pss, "networkx": nx}
print(json.dumps(out), flush=True)
env.close()
"""


def _env(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"crab-start-{abs(hash(str(tree)))}")
    return env


def start(tree: Path) -> dict[str, float]:
    """One cold start from ``tree``: wall to the first observation, the child's split, its CPU and PSS."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(  # cwd: ``-c`` puts it first on sys.path, before PYTHONPATH
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=_env(tree), cwd=tree
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    wall = time.perf_counter() - t0
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode or not line:
        raise RuntimeError(f"the child from {tree} failed (exit {proc.returncode})")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, **json.loads(line)}


def main(argv: list[str]) -> int:
    trees = [Path(argv[0]).resolve(), Path(argv[1]).resolve()]
    rounds = int(argv[2]) if len(argv) > 2 else 8
    for tree in trees:  # fill the bytecode caches
        start(tree)
    runs: list[list[dict[str, float]]] = [[], []]
    for r in range(rounds):
        for i in (0, 1) if r % 2 == 0 else (1, 0):
            runs[i].append(start(trees[i]))
    for tree, rs in zip(trees, runs, strict=True):
        med = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
        print(f"{tree}: " + ", ".join(f"{k} {v:.3f}" for k, v in med.items()))
    for k in ("wall_s", "cpu_s", "pss_mb"):
        ratio = statistics.median(b[k] / a[k] for a, b in zip(*runs, strict=True))
        print(f"B/A {k}: {ratio:.3f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

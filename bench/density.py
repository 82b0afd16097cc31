"""Density: how many envs of an id run on this machine, their PSS, their cold start, where the memory goes.

Cases: ``phone`` (Crab-Android-v0, the rl-phone task set, observations 96x208, the in-process simulated
phone), ``desktop`` (Crab-Desktop-v0 on Xvfb) and ``crab`` (Crab-v0: the desktop on Xvfb and the simulated
phone in one env, its default cross-device tasks and observations). The policy taps or clicks random points
(as bench/vs_miniwob.py), env i drawing from a generator seeded i (in ``crab``, each step on a device drawn
from it too); episodes end after 50 steps.

How N envs run: in worker processes started fresh (``spawn``: no page is shared with this process). The
phone puts ceil(N / W) envs in each of W = min(N, cores) workers, stepped in turn, as ``crab_gym.make_vec``
does; the desktop and crab have one env per worker (their recommended layout: docs/scale.md), so W = N.

**Keeping its step rate at equal CPU share.** An env's step costs CPU time in its worker and in everything
the worker started (Xvfb, the apps). Over a window, rate per CPU-second = env steps / CPU seconds used by the
workers' process trees (utime + stime from /proc). The reference is one env stepping alone (env 0, the
other workers idle on their pipes). For N envs stepping at once,

    E(N) = (steps_N / cpu_N) / (steps_1 / cpu_1)

and N envs *run* when E(N) >= 0.9: each env gets as many steps out of each CPU-second it is given as it did
alone, within 10 % (what crowding costs: caches, memory bandwidth, context switches, X and the session bus).
Measuring per CPU-second rather than per wall second keeps the figure true on a shared machine and under the
kernel's autogroup scheduler, which shares the CPU by session, not by process. Windows alternate (1 env,
then N; ``rounds`` times) with every worker up, and E(N) is the median of the per-round ratios. The wall
rates are printed too. Density = the largest N measured up to which every N has E >= 0.9; ``fits`` = how
many envs the machine's memory holds at the measured PSS per env (90 % of MemTotal).

**PSS per env**: the proportional set size (/proc/PID/smaps_rollup) of every worker and its descendants,
over N, taken after the timed windows. **Where it goes**: the same PSS by process name (Xvfb, each app,
python), and python's own split into anonymous memory (objects, caches, arrays: "python heap"), shared
libraries (.so) and other mapped files; and a worker's PSS once crab_gym and gymnasium are imported, before
its first env (the modules every worker holds, shared by the envs of a worker).

**Cold start**: a fresh ``python`` process from its start to the first observation (``reset()`` returned),
timed by the parent around the child (Popen to its line), with the child's own split into imports,
``gym.make`` and the first ``reset``; the median of ``--cold`` runs, bytecode cached (one untimed start
first, into a private cache) as an installed package has it.

Run (a quiet machine, the full configuration):
  .venv/bin/python bench/density.py --phone 1,2,4,8,16,32 --desktop 1,2,4 --crab 1,2 --seconds 10 \\
      --rounds 5 --png docs/img/density.png
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

# bench/ is sys.path[0] when run as a script
from throughput import stop

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
EPISODE = 50
CASES: dict[str, dict[str, Any]] = {
    "phone": {"id": "Crab-Android-v0", "acts": [("android", "tap")], "per_worker": True,
              "kwargs": {"tasks": "rl-phone", "obs_size": {"android": (96, 208)}}},
    "desktop": {"id": "Crab-Desktop-v0", "acts": [("ubuntu", "click")], "per_worker": False, "kwargs": {}},
    "crab": {"id": "Crab-v0", "acts": [("ubuntu", "click"), ("android", "tap")], "per_worker": False,
             "kwargs": {}},
}  # fmt: skip
# MB per env, cold start s (issue 26, which sets none for crab)
TARGETS = {"phone": (60.0, 0.3), "desktop": (200.0, 1.0)}
TICK = os.sysconf("SC_CLK_TCK")


# ---- /proc -----------------------------------------------------------------------------------------------


def _tree(pids: list[int]) -> list[int]:
    """``pids`` and every process below them."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of ``pids`` (each a live process), in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def pss_by_kind(pids: list[int]) -> dict[str, float]:
    """PSS in MB by where it is: the process name, and for python processes their heap (anonymous maps),
    shared libraries and other files (from /proc/PID/smaps)."""
    out: dict[str, float] = {}
    for pid in pids:
        name = _name(pid)
        try:
            text = Path(f"/proc/{pid}/smaps").read_text()
        except OSError:
            continue
        where = ""
        for line in text.splitlines():
            head = line.split(maxsplit=6)
            if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                path = head[5] if len(head) > 5 else ""
                if not name.startswith("python"):
                    where = name
                elif ".so" in path:
                    where = "python: libraries (.so)"
                elif path.startswith("/"):
                    where = "python: other files"
                else:
                    where = "python: heap (objects, caches)"
            elif line.startswith("Pss:"):
                out[where] = out.get(where, 0.0) + int(line.split()[1]) / 1024
    return out


# ---- the workers -----------------------------------------------------------------------------------------


def _make(case: str) -> Any:
    import gymnasium as gym

    import crab_gym  # noqa: F401

    spec = CASES[case]
    return gym.make(spec["id"], max_steps=EPISODE, **spec["kwargs"])


def _serve(case: str, first: int, count: int, conn: Any) -> None:
    """A worker: ``count`` envs (env i seeded i), then windows of (seconds, how many of them to step)."""
    spec = CASES[case]
    import gymnasium  # noqa: F401 - what every worker holds before its first env, measured below

    import crab_gym.env  # noqa: F401

    modules = pss_by_kind([os.getpid()])
    envs = [_make(case) for _ in range(count)]
    rngs = [np.random.default_rng(first + i) for i in range(count)]
    encode = envs[0].unwrapped.encode_action

    def act(rng: np.random.Generator) -> Any:
        acts = spec["acts"]
        device, verb = acts[int(rng.integers(len(acts)))] if len(acts) > 1 else acts[0]
        return encode(device, verb, {"point": (rng.uniform(0.05, 0.95), rng.uniform(0.1, 0.9))})

    def step(i: int) -> None:
        _, _, term, trunc, _ = envs[i].step(act(rngs[i]))
        if term or trunc:
            envs[i].reset()

    for i, env in enumerate(envs):
        env.reset(seed=first + i)
        for _ in range(3):
            step(i)
    conn.send(sum(modules.values()))
    while (window := conn.recv()) is not None:
        seconds, n = window
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for i in range(n):
                step(i)
            steps += n
        conn.send(steps)
    for env in envs:
        env.close()


def crowd(case: str, n: int, seconds: float, rounds: int) -> dict[str, Any]:
    """E(N), wall rates, PSS per env and its split for ``n`` envs of ``case`` (see the module docstring)."""
    cores = os.cpu_count() or 1
    workers = min(n, cores) if CASES[case]["per_worker"] else n
    shares = [n // workers + (i < n % workers) for i in range(workers)]
    ctx = mp.get_context("spawn")
    pipes = [ctx.Pipe() for _ in range(workers)]
    firsts = [sum(shares[:i]) for i in range(workers)]
    procs = [ctx.Process(target=_serve, args=(case, firsts[i], shares[i], pipes[i][1]), daemon=True)
             for i in range(workers)]  # fmt: skip
    conns = [p for p, _ in pipes]
    for p in procs:
        p.start()
    try:
        modules = []
        for c in conns:
            if not c.poll(600):
                raise TimeoutError(f"{case}: a worker made no env within 600 s")
            modules.append(c.recv())
        pids = [p.pid for p in procs if p.pid is not None]
        per_round: dict[int, list[tuple[float, float, float]]] = {1: [], n: []}
        for _ in range(rounds):
            for k in (1, n) if n > 1 else (1,):
                active = conns[:1] if k == 1 else conns
                tree = _tree(pids)
                cpu0, t0 = cpu_seconds(tree), time.perf_counter()
                for i, c in enumerate(active):
                    c.send((seconds, 1 if k == 1 else shares[i]))
                steps = sum(c.recv() for c in active)
                wall, cpu = time.perf_counter() - t0, cpu_seconds(tree) - cpu0
                per_round[k].append((steps, wall, cpu))
        tree = _tree(pids)
        memory = pss_by_kind(tree)
    finally:
        stop(conns, procs, 60)

    def per_cpu(r: tuple[float, float, float]) -> float:
        return r[0] / max(r[2], 1e-9)

    ratios = [per_cpu(b) / per_cpu(a) for a, b in zip(per_round[1], per_round[n], strict=True)] or [1.0]
    total = sum(memory.values())
    return {
        "case": case, "n": n, "workers": workers,
        "efficiency": statistics.median(ratios), "efficiency_range": [min(ratios), max(ratios)],
        "steps_per_cpu_s_1": statistics.median(per_cpu(r) for r in per_round[1]),
        "wall_steps_per_s_1": statistics.median(r[0] / r[1] for r in per_round[1]),
        "wall_steps_per_s_n": statistics.median(r[0] / r[1] for r in per_round[n]),
        "pss_mb_per_env": total / n,
        "modules_mb_per_worker": statistics.median(modules),
        "pss_mb_by_kind_per_env": {k: v / n for k, v in sorted(memory.items(), key=lambda kv: -kv[1])},
    }  # fmt: skip


# ---- cold start ------------------------------------------------------------------------------------------

_CHILD = """
import time, json, sys
t0 = time.perf_counter()
import gymnasium as gym, crab_gym
t1 = time.perf_counter()
env = gym.make({id!r}, **{kwargs!r})
t2 = time.perf_counter()
env.reset(seed=0)
t3 = time.perf_counter()
print(json.dumps({{"imports": t1 - t0, "make": t2 - t1, "reset": t3 - t2}}), flush=True)
env.close()
"""


def cold_start(case: str, runs: int) -> dict[str, float]:
    """Seconds from a fresh interpreter's start to its first observation (median of ``runs``), and the
    child's split (imports, make, first reset)."""
    spec = CASES[case]
    code = _CHILD.format(id=spec["id"], kwargs={"max_steps": EPISODE, **spec["kwargs"]})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # Bytecode cached, as an installed package has it (a shell with PYTHONDONTWRITEBYTECODE set would
    # compile every module at every start): a private cache, filled by one untimed start.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "crab-density-pycache")
    subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, check=True, timeout=300)
    totals, parts = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        totals.append(time.perf_counter() - t0)
        proc.wait(120)
        parts.append(json.loads(line))
    out = {"cold_start_s": statistics.median(totals)}
    out.update({k: statistics.median(p[k] for p in parts) for k in parts[0]})
    return out


# ---- report ----------------------------------------------------------------------------------------------


def report(rows: list[dict[str, Any]], cold: dict[str, dict[str, float]]) -> str:
    mem_total = int(Path("/proc/meminfo").read_text().split()[1]) / 1024  # MemTotal, MB
    lines = ["| id | N | workers | E(N) (range) | wall steps/s 1 / N | PSS MB/env | fits in memory |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        lo, hi = r["efficiency_range"]
        fits = math.floor(0.9 * mem_total / r["pss_mb_per_env"])
        lines.append(
            f"| {r['case']} | {r['n']} | {r['workers']} | {r['efficiency']:.2f} ({lo:.2f}-{hi:.2f}) | "
            f"{r['wall_steps_per_s_1']:.0f} / {r['wall_steps_per_s_n']:.0f} | "
            f"{r['pss_mb_per_env']:.0f} | {fits} |"
        )
    for case in dict.fromkeys(r["case"] for r in rows):
        mine = [r for r in rows if r["case"] == case]
        ok = [r["n"] for r in mine if r["efficiency"] >= 0.9]
        below = [r["n"] for r in mine if r["efficiency"] < 0.9]
        runs = max((r["n"] for r in mine if all(o["efficiency"] >= 0.9 for o in mine if o["n"] <= r["n"])),
                   default=0)  # fmt: skip
        last = mine[-1]
        kinds = last["pss_mb_by_kind_per_env"].items()
        split = ", ".join(f"{k or '?'} {v:.1f}" for k, v in kinds if v >= 0.5)
        lines.append(f"\n{case}: E >= 0.9 at N = {ok or 'none'}, below at N = {below or 'none'}: runs up to "
                     f"N = {runs} of those measured; PSS per env at N = {last['n']}: {split} MB; a worker's "
                     f"modules before any env: {last['modules_mb_per_worker']:.0f} MB")  # fmt: skip
    for case, c in cold.items():
        mb, s = TARGETS.get(case, (0.0, 0.0))
        targets = f"; targets <= {mb:.0f} MB/env, <= {s} s" if case in TARGETS else ""
        lines.append(f"{case}: cold start {c['cold_start_s']:.2f} s (imports {c['imports']:.2f}, make "
                     f"{c['make']:.2f}, first reset {c['reset']:.2f}){targets}")  # fmt: skip
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 3.8))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    for case in cases:
        mine = [r for r in rows if r["case"] == case]
        left.plot([r["n"] for r in mine], [r["efficiency"] for r in mine], "o-", label=case)
    left.axhline(0.9, color="grey", ls="--", lw=1)
    ns = sorted({r["n"] for r in rows})
    left.set_xscale("log", base=2)
    left.set_xticks(ns, [str(n) for n in ns])
    left.set(xlabel="envs (N)", ylabel="E(N): steps per CPU-second vs one env", ylim=(0, 1.3))
    left.legend()
    last = {case: [r for r in rows if r["case"] == case][-1] for case in cases}
    kinds = list(dict.fromkeys(k for r in last.values() for k in r["pss_mb_by_kind_per_env"]))
    bottom = np.zeros(len(cases))
    for kind in kinds:
        values = np.array([last[c]["pss_mb_by_kind_per_env"].get(kind, 0.0) for c in cases])
        if values.max() < 0.5:
            continue
        right.bar([f"{c} (N={last[c]['n']})" for c in cases], values, bottom=bottom, label=kind or "?")
        bottom += values
    right.set(ylabel="PSS per env (MB)")
    load = os.getloadavg()[0]
    fig.suptitle(f"bench/density.py: load average {load:.1f} on {os.cpu_count()} cores", fontsize=9)
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars, not over them
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--phone", default="1,2,4", help="N values for the phone ('' to skip)")
    p.add_argument("--desktop", default="1,2", help="N values for the desktop ('' to skip)")
    p.add_argument("--crab", default="", help="N values for Crab-v0, desktop and phone in one env")
    p.add_argument("--seconds", type=float, default=2.0, help="length of one window")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds (1 env, then N)")
    p.add_argument("--cold", type=int, default=3, help="cold starts to time per case (0: none)")
    p.add_argument("--json", default="", help="write the figures here too")
    p.add_argument("--png", default="", help="plot E(N) and the PSS split here")
    args = p.parse_args(argv)
    rows, cold = [], {}
    for case in CASES:
        ns = [int(x) for x in getattr(args, case).split(",") if x]
        for n in ns:
            rows.append(crowd(case, n, args.seconds, args.rounds))
            print(json.dumps(rows[-1]), flush=True)
        if ns and args.cold:
            cold[case] = cold_start(case, args.cold)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(report(rows, cold))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "cold": cold}, indent=1))
    if args.png and rows:
        plot(rows, args.png)
        print(f"plot: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

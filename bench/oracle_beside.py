"""The whole v0 oracle in one ``Crab-v0`` env beside other work: a CPU hog on every core (``--beside hog``),
or a second ``Crab-v0`` in its own process taking random actions with resets (``--beside random``).

Prints the load (``uptime``) at start and end, every failure with its feedback, the slowest tasks, and
writes ``beside.json`` (load, per-task seconds and outcome) next to the run's records in ``--out``.
Re-running the same ``--out`` resumes (``crab_gym.runs.collect``). Exit code 1 when a task failed.

Run: .venv/bin/python bench/oracle_beside.py --beside hog --out runs/oracle-hog [--tasks v0|ID,ID] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RANDOM_LOOP = """
import signal, sys, gymnasium as gym, crab_gym
from crab_gym.baselines import RandomAgent
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # ended by the bench: close the env (its X server)
env = gym.make("Crab-v0", tasks="v0", max_steps=30, backends={"android": "sim"})
try:
    agent = RandomAgent(env, seed=1)
    obs, info = env.reset(seed=1)
    steps = episodes = 0
    while True:
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        steps += 1
        if term or trunc:
            episodes += 1
            print(f"random: {steps} steps, {episodes} episodes", flush=True)
            obs, info = env.reset()
finally:
    env.close()
"""


def start_beside(kind: str, out: Path) -> list[subprocess.Popen]:
    """The other work: one busy process per core (niced 0), or a random agent on its own Crab-v0."""
    if kind == "hog":
        return [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(os.cpu_count() or 2)]
    if kind == "random":
        log = open(out / "random.log", "a")  # noqa: SIM115 - held for the child's life
        return [subprocess.Popen([sys.executable, "-c", RANDOM_LOOP], stdout=log, stderr=subprocess.STDOUT)]
    return []


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beside", choices=("hog", "random", "none"), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tasks", default="v0", help="a set name, or task ids separated by commas (a slice)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=60)
    args = ap.parse_args()

    import crab_gym  # noqa: F401
    from crab_gym.runs.collect import collect, run_records

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load: dict[str, Any] = {"start": uptime(), "start_time": time.strftime("%H:%M:%S", time.gmtime())}
    print("start:", load["start"], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `timeout` must not leave the hog running
    others = start_beside(args.beside, out)
    last = [0, time.monotonic()]

    def on_episode(ep: dict[str, Any]) -> None:
        now = time.monotonic()
        last[0] += 1
        print(f"[{last[0]}] {time.strftime('%H:%M:%S', time.gmtime())} {ep['task_id']} "
              f"{ep['termination_reason']} {now - last[1]:.1f}s", flush=True)  # fmt: skip
        last[1] = now

    try:
        tasks = args.tasks.split(",") if "," in args.tasks else args.tasks
        summary = collect(out, env_id="Crab-v0", agent="oracle", tasks=tasks, num_envs=1, progress=False,
                          env_kwargs={"max_steps": args.max_steps, "backends": {"android": "sim"}},
                          limit=args.limit, on_episode=on_episode)  # fmt: skip
    finally:
        for p in others:
            p.terminate()  # the random env closes its desktop session on SIGTERM; a hog just ends
        for p in others:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        load["end"] = uptime()
        load["end_time"] = time.strftime("%H:%M:%S", time.gmtime())
        print("end:", load["end"], flush=True)
    records = run_records(out)
    failed = [r for r in records if not r.success]
    per_task = {r.task_id: {"seconds": round(r.seconds, 1), "reason": r.termination_reason} for r in records}
    report = {"beside": args.beside, "load": load, "seconds": summary.get("seconds"), "tasks": per_task}
    (out / "beside.json").write_text(json.dumps(report, indent=1))
    print(f"{len(records) - len(failed)}/{len(records)} solved in {summary.get('seconds', 0) / 60:.1f} min "
          f"beside {args.beside}")  # fmt: skip
    for r in failed:
        print("FAILED", r.task_id, r.termination_reason, r.completion_ratio, r.extra.get("feedback", ""))
    for r in sorted(records, key=lambda r: -r.seconds)[:10]:
        print(f"slow {r.seconds:6.1f}s {r.task_id}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""What recording costs (prints figures, asserts nothing).

Crab-Android-v0 (simulated phone, 1080x2400 frames) with the oracle on 2 async envs (`crab-gym collect`),
over the same tasks in four modes, in rounds so that machine noise falls on all of them alike:

- none: the collect loop without the recorder (the baseline);
- native: RecordEpisodes writing the native format (zstd frames, UI elements);
- minari / hf: native recording followed by the export (the export's time is added to the run's).

Prints steps/s, the time ratio against `none` (median over rounds) and bytes per step on disk.

Run: .venv/bin/python bench/record.py [tasks] [rounds]
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.runs.collect import collect


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(mode: str, tasks: list[str], root: Path) -> tuple[float, int, int]:
    """(seconds of the loop plus export, steps, bytes on disk) for one mode."""
    out = root / mode
    shutil.rmtree(out, ignore_errors=True)
    summary = collect(out, agent="oracle", tasks=tasks, num_envs=2, progress=False, record=mode != "none")
    seconds, steps = summary["loop_seconds"], summary["steps"]
    stored = out
    if mode in ("minari", "hf"):
        from crab_gym.runs.commands import export

        t0 = time.perf_counter()
        stored = root / f"{mode}-export"
        shutil.rmtree(stored, ignore_errors=True)
        export(str(out), mode, str(stored), dataset_id=f"crab-gym/bench-{int(time.time() * 1000)}-v0")
        seconds += time.perf_counter() - t0
    return seconds, steps, size(stored) if mode != "none" else 0


def main() -> None:
    n_tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    env = gym.make("Crab-Android-v0", tasks="v0")
    tasks = env.unwrapped.task_ids()[:n_tasks]
    env.close()
    root = Path(tempfile.mkdtemp(prefix="crab-bench-record-"))
    os.environ.setdefault("MINARI_DATASETS_PATH", str(root / "minari-home"))
    modes = ["none", "native", "minari", "hf"]
    results: dict[str, list[tuple[float, int, int]]] = {m: [] for m in modes}
    try:
        for r in range(rounds):
            for mode in modes if r % 2 == 0 else modes[::-1]:
                results[mode].append(run(mode, tasks, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    base = statistics.median(s / n for s, n, _ in results["none"])
    print(
        f"Crab-Android-v0 (sim, 1080x2400), oracle, 2 async envs, {n_tasks} tasks, {rounds} rounds (median)"
    )
    print(f"{'mode':8s} {'steps/s':>8s} {'time vs none':>13s} {'bytes/step':>11s}")
    for mode in modes:
        per_step = statistics.median(s / n for s, n, _ in results[mode])
        nbytes = statistics.median(b / n for _, n, b in results[mode])
        print(f"{mode:8s} {1 / per_step:8.1f} {per_step / base:12.2f}x {nbytes:11.0f}")


if __name__ == "__main__":
    main()

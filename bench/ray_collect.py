"""What Ray costs on one machine (prints figures, asserts nothing).

Crab-Android-v0 (simulated phone) with the oracle over the first N phone tasks of v0, recorded, three ways:

- local: ``collect`` on one async vector env of 2 workers (no Ray);
- ray, shared: 2 Ray actors of 1 worker each, writing the run folder directly (a node that shares it);
- ray, shipped: the same actors sending every episode to the driver (a node that does not share it).

Prints the start of a local Ray (``ray.init``), then per way the wall time of the run, the loop's
steps/s and episodes/s (actor and vector env start-up included, as ``collect`` counts its loop).

Run: .venv/bin/python bench/ray_collect.py [tasks]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import ray

import crab_gym  # noqa: F401
from crab_gym.runs.collect import collect
from crab_gym.runs.distributed import RayOptions


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    tasks = gym.make("Crab-Android-v0").unwrapped.task_ids()[:n]
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray.init (local, 2 CPUs): {time.perf_counter() - t0:.1f} s")
    ways = {
        "local, 2 async workers": None,
        "ray, 2 actors x 1 worker, shared folder": RayOptions(actors=2),
        "ray, 2 actors x 1 worker, episodes sent": RayOptions(actors=2, ship=True),
    }
    try:
        with tempfile.TemporaryDirectory() as root:
            for i, (name, options) in enumerate(ways.items()):
                t = time.perf_counter()
                workers = 2 if options is None else 1
                out = Path(root) / str(i)
                s = collect(out, agent="oracle", tasks=tasks, num_envs=workers, progress=False, ray=options)
                wall = time.perf_counter() - t
                print(f"{name:42s} {s['ran']} episodes, {s['steps']} steps: wall {wall:5.1f} s, "
                      f"{s['steps_per_second']:5.1f} steps/s, {s['episodes_per_second']:.2f} episodes/s, "
                      f"SR {s['metrics']['SR']:.2f}")  # fmt: skip
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()

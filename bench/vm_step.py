"""Desktop step latency and reset time on the libvirt VM next to xvfb, in one run (prints, asserts nothing).

For each backend: CrabEnv.step with a click on an empty part of the desktop (two spots in turn; input,
settle, screenshot, graph update), median and p90; the floor (click + screenshot through the backend's
primitives, no settle); reset (the VM: ``loadvm`` of the internal snapshot and a probe check, the clock
resync running beside it; xvfb: kill clients, restore HOME, restart the session clients); the first reset
(the VM: start the domain paused and load the snapshot; xvfb: start Xvfb and the session).

Needs the domain of ``crab-gym vm create``. Run: .venv/bin/python bench/vm_step.py [steps] [resets]
"""

from __future__ import annotations

import statistics
import sys
import time

import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.core.tasks import Step, SubTaskTemplate, Task
from crab_gym.envs.desktop import evaluators as ev


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def bench(backend: str, task: Task, steps: int, resets: int) -> dict[str, float]:
    env = gym.make("Crab-Desktop-v0", tasks=[task], backends={"ubuntu": backend}, max_steps=10**9)
    u = env.unwrapped
    try:
        t = time.perf_counter()
        env.reset(seed=0)
        first = time.perf_counter() - t
        x = u.subenvs["ubuntu"].x
        clicks = [u.encode_action("ubuntu", "click", {"point": p}) for p in ((0.4, 0.5), (0.6, 0.5))]
        for i in range(4):
            env.step(clicks[i % 2])
        wall, settle = [], []
        for i in range(steps):
            t = time.perf_counter()
            _, _, _, _, info = env.step(clicks[i % 2])
            wall.append(time.perf_counter() - t)
            settle.append(info["timings"]["settle"])
        floor = []
        for i in range(steps):
            t = time.perf_counter()
            x.click(512 if i % 2 else 768, 400)
            x.grab()
            floor.append(time.perf_counter() - t)
        grab = []
        for _ in range(steps):
            t = time.perf_counter()
            x.grab()
            grab.append(time.perf_counter() - t)
        r = []
        for _ in range(resets):
            t = time.perf_counter()
            env.reset(seed=0)
            r.append(time.perf_counter() - t)
    finally:
        env.close()
    return {
        "step": statistics.median(wall), "step_p90": pct(wall, 0.9), "settle": statistics.median(settle),
        "floor": statistics.median(floor), "grab": statistics.median(grab), "reset": statistics.median(r),
        "reset_p90": pct(r, 0.9), "first": first,
    }  # fmt: skip


def main(steps: int = 30, resets: int = 10) -> None:
    tpl = SubTaskTemplate(
        id="bench_never",
        description="Create {path}.",
        attributes={"path": "path"},
        evaluator=lambda path: [ev.file_exists(path=path), ev.file_contains(path=path, text="x")],
        solution=lambda path: [Step("root", "complete")],
        platforms=("ubuntu",),
    )
    task = Task("bench", "Create ~/never.txt.", [tpl.instantiate(path="~/never.txt")])
    rows = {b: bench(b, task, steps, resets) for b in ("xvfb", "libvirt")}
    ms = 1000.0
    print(f"{'':44}{'xvfb':>12}{'libvirt':>12}")
    for key, label, unit in (
        ("step", "step (click+settle+screenshot+evaluate), median", ms),
        ("step_p90", "step p90", ms),
        ("settle", "  of which settle, median", ms),
        ("floor", "floor (click+screenshot, no settle), median", ms),
        ("grab", "screenshot alone, median", ms),
        ("reset", "reset, median", 1.0),
        ("reset_p90", "reset p90", 1.0),
        ("first", "first reset (start-up)", 1.0),
    ):
        suffix = "ms" if unit == ms else "s"
        vals = "".join(f"{rows[b][key] * unit:>10.{1 if unit == ms else 2}f}{suffix:>2}" for b in rows)
        print(f"{label:44}{vals}")
    print(f"(n={steps} steps, {resets} resets per backend)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))

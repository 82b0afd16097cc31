"""Desktop step latency and reset time, per backend, in one run (prints figures, asserts nothing).

- step: CrabEnv.step with a click on an empty part of the desktop (no application reacts; two spots in
  turn, since repeated clicks on one spot are spaced by the double-click time), which includes the input,
  settle (no screen damage and no session CPU for the quiet time), screenshot, graph update and info;
  median and p90.
- floor: the same click plus one screenshot, straight through the backend's primitives with no settle,
  measured in the same run; the ratio step/floor shows what the env adds. Then a screenshot alone.
- reset: CrabEnv.reset median over repeated resets (xvfb: kill clients, restore HOME, D-Bus, window
  manager, the panel's reset request, task setup; libvirt: ``loadvm`` of the internal snapshot and a probe
  check, the clock resync running beside it); and the same with a text editor open at reset time.
- start-up: the first reset (xvfb: Xvfb, wallpaper, accessibility bus, panel, then a reset; libvirt: start
  the worker domain paused and load its snapshot).

``--backend libvirt`` needs the domain of ``crab-gym vm create``; give ``--backend`` twice for both side by
side (each backend measured in turn, in this one run).

Run: .venv/bin/python bench/desktop_step.py [--steps N] [--resets N] [--backend xvfb --backend libvirt]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.core.tasks import Step, SubTaskTemplate, Task
from crab_gym.envs.desktop import evaluators as ev

MS = 1000.0


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def timed(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
    return out


def bench(backend: str, task: Task, steps: int, resets: int) -> dict[str, float]:
    env = gym.make("Crab-Desktop-v0", tasks=[task], backends={"ubuntu": backend}, max_steps=10**9)
    u = env.unwrapped
    try:
        t = time.perf_counter()
        env.reset(seed=0)
        first = time.perf_counter() - t
        desk = u.subenvs["ubuntu"]
        x = desk.x
        # Clicks alternate between two spots: two clicks on one spot within the double-click time are
        # spaced out on purpose (so the toolkit never merges them), which would measure that wait instead.
        clicks = [u.encode_action("ubuntu", "click", {"point": p}) for p in ((0.4, 0.5), (0.6, 0.5))]
        for i in range(10):
            env.step(clicks[i % 2])
        settle, evaluate = [], []

        def step(i: int) -> None:
            info = env.step(clicks[i % 2])[4]
            settle.append(info["timings"]["settle"])
            evaluate.append(info["timings"]["evaluate"])

        wall = timed(step, steps)
        floor = timed(lambda i: (x.click(512 if i % 2 else 768, 400), x.grab()), steps)
        grab = timed(lambda i: x.grab(), steps)
        r_plain = timed(lambda i: env.reset(seed=0), resets)

        def reset_with_editor(i: int) -> None:
            desk.open_app("text_editor")
            t = time.perf_counter()
            env.reset(seed=0)
            r_app.append(time.perf_counter() - t)

        r_app: list[float] = []
        for i in range(max(3, resets // 4)):
            reset_with_editor(i)
    finally:
        env.close()
    return {
        "step": statistics.median(wall), "step_p90": pct(wall, 0.9), "settle": statistics.median(settle),
        "evaluate": statistics.median(evaluate), "floor": statistics.median(floor),
        "grab": statistics.median(grab), "reset": statistics.median(r_plain), "reset_p90": pct(r_plain, 0.9),
        "reset_app": statistics.median(r_app), "first": first,
    }  # fmt: skip


ROWS = (
    ("step", "step (click+settle+screenshot+evaluate), median", MS),
    ("step_p90", "step p90", MS),
    ("settle", "  of which settle, median", MS),
    ("evaluate", "  of which evaluate, median", MS),
    ("floor", "floor (click+screenshot, no settle), median", MS),
    ("grab", "screenshot alone, median", MS),
    ("reset", "reset (idle desktop), median", 1.0),
    ("reset_p90", "reset p90", 1.0),
    ("reset_app", "reset (text editor open), median", 1.0),
    ("first", "start-up (first reset)", 1.0),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--resets", type=int, default=20)
    ap.add_argument("--backend", action="append", help="xvfb (default), libvirt, libvirt:<domain>[@uri]")
    args = ap.parse_args()
    tpl = SubTaskTemplate(
        id="bench_never",
        description="Create {path}.",
        attributes={"path": "path"},
        evaluator=lambda path: [ev.file_exists(path=path), ev.file_contains(path=path, text="x")],
        solution=lambda path: [Step("root", "complete")],
        platforms=("ubuntu",),
    )
    task = Task("bench", "Create ~/never.txt.", [tpl.instantiate(path="~/never.txt")])
    rows = {b: bench(b, task, args.steps, args.resets) for b in args.backend or ["xvfb"]}
    print(f"{'':48}" + "".join(f"{b:>14}" for b in rows))
    for key, label, unit in ROWS:
        suffix, digits = ("ms", 1) if unit == MS else ("s", 3)
        print(f"{label:48}" + "".join(f"{rows[b][key] * unit:>12.{digits}f}{suffix:>2}" for b in rows))
    if len(rows) > 1:
        base = next(iter(rows))
        for b in list(rows)[1:]:
            print(f"{b} / {base}: step {rows[b]['step'] / rows[base]['step']:.1f}x, "
                  f"reset {rows[b]['reset'] / rows[base]['reset']:.1f}x")  # fmt: skip
    print(f"(n={args.steps} steps, {args.resets} resets per backend)")


if __name__ == "__main__":
    main()

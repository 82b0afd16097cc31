"""Desktop step latency and reset time on a real X session (prints figures, asserts nothing).

- step: CrabEnv.step with a click on an empty part of the desktop (no application reacts; two spots in
  turn, since repeated clicks on one spot are spaced by the double-click time), which
  includes XTEST input, settle (damage-quiet window), screenshot, graph update and info; median and p90.
- floor: the same click plus one screenshot, straight through the X primitives with no settle, measured
  in the same run; the ratio step/floor shows what the env adds.
- reset: CrabEnv.reset median over repeated resets (kill clients, restore HOME, D-Bus, window manager,
  the panel's reset request, task setup); and the same with a text editor open at reset time (more to kill).
- start-up: the first reset (Xvfb, wallpaper, accessibility bus, panel, then a reset), and the panel's reset
  request alone (close popups, list the windows, draw; it runs inside every reset).

Run: .venv/bin/python bench/desktop_step.py [steps] [resets]
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


def main(steps: int = 200, resets: int = 20) -> None:
    tpl = SubTaskTemplate(
        id="bench_never",
        description="Create {path}.",
        attributes={"path": "path"},
        evaluator=lambda path: [ev.file_exists(path=path), ev.file_contains(path=path, text="x")],
        solution=lambda path: [Step("root", "complete")],
        platforms=("ubuntu",),
    )
    task = Task("bench", "Create ~/never.txt.", [tpl.instantiate(path="~/never.txt")])
    env = gym.make("Crab-Desktop-v0", tasks=[task], max_steps=10**9)
    u = env.unwrapped
    t = time.perf_counter()
    env.reset(seed=0)
    startup = time.perf_counter() - t
    x = u.subenvs["ubuntu"].x
    # Clicks alternate between two spots: two clicks on one spot within the double-click time are spaced
    # out on purpose (so the toolkit never merges them), which would measure that wait instead.
    clicks = [u.encode_action("ubuntu", "click", {"point": p}) for p in ((0.4, 0.5), (0.6, 0.5))]
    for i in range(10):
        env.step(clicks[i % 2])
    wall, settle, evaluate = [], [], []
    for i in range(steps):
        t = time.perf_counter()
        _, _, _, _, info = env.step(clicks[i % 2])
        wall.append(time.perf_counter() - t)
        settle.append(info["timings"]["settle"])
        evaluate.append(info["timings"]["evaluate"])
    floor = []
    for i in range(steps):
        t = time.perf_counter()
        x.click(512 if i % 2 else 768, 400)
        x.grab()
        floor.append(time.perf_counter() - t)
    r_plain = []
    for _ in range(resets):
        t = time.perf_counter()
        env.reset(seed=0)
        r_plain.append(time.perf_counter() - t)
    r_app = []
    for _ in range(max(3, resets // 4)):
        u.subenvs["ubuntu"].open_app("text_editor")
        t = time.perf_counter()
        env.reset(seed=0)
        r_app.append(time.perf_counter() - t)
    panel = u.subenvs["ubuntu"].session.panel
    r_panel = []
    for _ in range(resets):
        t = time.perf_counter()
        panel.reset()
        r_panel.append(time.perf_counter() - t)
    env.close()
    ms = 1000.0
    med, fl = statistics.median(wall), statistics.median(floor)
    print(
        f"desktop step (click+settle+screenshot+evaluate): median {med * ms:.1f} ms, "
        f"p90 {pct(wall, 0.9) * ms:.1f} ms  (n={steps})"
    )
    print(
        f"  of which settle median {statistics.median(settle) * ms:.1f} ms, "
        f"evaluate median {statistics.median(evaluate) * ms:.2f} ms"
    )
    print(f"floor (click+screenshot, no settle): median {fl * ms:.1f} ms; step/floor ratio {med / fl:.1f}x")
    print(
        f"reset (idle desktop): median {statistics.median(r_plain):.3f} s, "
        f"p90 {pct(r_plain, 0.9):.3f} s  (n={resets})"
    )
    print(f"reset (text editor open): median {statistics.median(r_app):.3f} s  (n={len(r_app)})")
    print(
        f"start-up (first reset): {startup:.2f} s; the panel's reset request alone: median "
        f"{statistics.median(r_panel) * ms:.1f} ms  (n={resets})"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))

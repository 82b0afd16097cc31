"""Where a desktop's cold start goes: a fresh interpreter makes ``Crab-Desktop-v0`` (the v0 tasks) and takes
its first observation, with the start-up steps timed from inside (wall seconds, nested steps indented, each
the median over ``runs`` fresh processes).

Steps timed: imports; ``gym.make``; in the first ``reset``: the session slot (user, namespaces), the copy of
the template HOME, the offline web, Xvfb (and xauth, xhost), the wallpaper, then the session's reset (kill
stale clients, restore HOME, the keepers: the accessibility bus and registry and the panel; the session bus,
openbox, the panel's reset), the task's setup, the settle, the first screenshot.

Run: .venv/bin/python bench/desktop_start.py [runs]   (PYTHONPATH picks the tree)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import functools, importlib, inspect, json, time
T0 = time.perf_counter()
TIMES, DEPTH = [], [0]

def timed(module, owner, name, label):
    obj = importlib.import_module(module)
    target = getattr(obj, owner) if owner else obj
    fn = getattr(target, name)
    @functools.wraps(fn)
    def wrapper(*a, **k):
        DEPTH[0] += 1
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            DEPTH[0] -= 1
            TIMES.append((t - T0, DEPTH[0], label, time.perf_counter() - t))
    static = isinstance(inspect.getattr_static(target, name), classmethod)  # bound already
    setattr(target, name, staticmethod(wrapper) if static else wrapper)

import gymnasium as gym, crab_gym
T1 = time.perf_counter()
X, D = "crab_gym.envs.desktop.backends.xvfb", "crab_gym.envs.desktop"
for module, owner, name, label in [
    (X, "XvfbSession", "__init__", "session slot (user, namespaces)"),
    (X, "SessionWeb", "start_or_warn", "offline web (server in the namespace)"),
    (X, "XvfbSession", "_chown_tree", "chown HOME and run dir"),
    (X, "XvfbSession", "_start_xvfb", "Xvfb up (xauth, Xvfb, xhost)"),
    (X, "", "draw_wallpaper", "draw the wallpaper"),
    (X, "", "set_root_background", "set the root background"),
    (X, "XvfbSession", "reset", "session reset"),
    (X, "XvfbSession", "_kill_clients", "kill stale clients"),
    (X, "XvfbSession", "_start_keepers", "keepers (a11y bus, registry, panel)"),
    (X, "", "start_a11y_bus", "a11y bus and registry"),
    ("crab_gym.envs.desktop.backends.panel", "Panel", "start", "panel start (GTK, first draw)"),
    (X, "XvfbSession", "_start_dbus", "session bus"),
    ("crab_gym.envs.desktop.backends.panel", "Panel", "reset", "panel reset"),
    (D, "DesktopEnv", "reset", "desktop sub-env reset"),
    ("crab_gym.core.tasks", "Task", "setup", "task setup"),
    (D, "DesktopEnv", "settle", "settle"),
    (D, "DesktopEnv", "screenshot", "screenshot"),
]:
    timed(module, owner, name, label)
import shutil, subprocess
timed("shutil", "", "copytree", "copy the template HOME")
real_run = subprocess.run
def run(argv, *a, **k):
    t = time.perf_counter()
    try:
        return real_run(argv, *a, **k)
    finally:
        TIMES.append((t - T0, DEPTH[0], "run " + " ".join(map(str, argv))[:40], time.perf_counter() - t))
subprocess.run = run
env = gym.make("Crab-Desktop-v0", tasks="v0")
T2 = time.perf_counter()
env.reset(seed=0)
T3 = time.perf_counter()
print(json.dumps({"imports": T1 - T0, "make": T2 - T1, "reset": T3 - T2, "steps": sorted(TIMES)}), flush=True)
env.close()
"""


def main(argv: list[str]) -> int:
    runs = int(argv[0]) if argv else 3
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "crab-desktop-start-pycache")
    subprocess.run([sys.executable, "-c", CHILD], env=env, stdout=subprocess.DEVNULL, check=True, timeout=300)
    results, walls = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        walls.append(time.perf_counter() - t0)
        proc.wait(120)
        results.append(json.loads(line))
    med = {k: statistics.median(r[k] for r in results) for k in ("imports", "make", "reset")}
    split = ", ".join(f"{k} {v:.3f}" for k, v in med.items())
    print(f"cold start {statistics.median(walls):.3f} s ({split}); medians of {runs}")
    # Steps by (order, label) of the first run; durations are medians over runs (same steps in each run).
    labels = [(depth, label) for _, depth, label, _ in results[0]["steps"]]
    for i, (depth, label) in enumerate(labels):
        d = statistics.median(r["steps"][i][3] for r in results if len(r["steps"]) == len(labels))
        start = results[0]["steps"][i][0]
        print(f"  {start:6.3f} {'  ' * depth}{label}: {d:.3f} s")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

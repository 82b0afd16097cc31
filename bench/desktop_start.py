"""Where a desktop's cold start goes: a fresh interpreter makes ``Crab-Desktop-v0`` (the v0 tasks) and takes
its first observation, with the start-up steps timed from inside (wall seconds, nested steps indented, each
the median over ``runs`` fresh processes), and the CPU seconds of the env's own process in imports, make
and the first reset (a loaded machine stretches wall time far more than CPU time), and of everything the
start ran: the session's processes still running (Xvfb, the panel, openbox, the buses: ``session_cpu``), the
programs the env ran and waited for (certutil, cp, nsenter...: ``waited_cpu``), and all of it with the env's
own (``all_cpu``); on 2 cores a start cannot take less wall time than ``all_cpu`` / 2.

Steps timed: imports; ``gym.make``; in the first ``reset``: the session slot (user, namespaces), the copy of
the template HOME, the offline web, the panel's spawn, Xvfb (and xauth, xhost), the X connection, the
keepers (the accessibility bus and registry, the panel told its display), the wallpaper, then the session's
reset (kill stale clients, restore HOME, the session bus, openbox, the panel's first draw and its reset),
the task's setup, the settle, the first screenshot. Steps that run in other threads (the web, the X
connection, the wallpaper) overlap the ones after them: the start times (first column) show what runs
beside what. Both trees run the same child: a step one tree does not have is left out.

Run: .venv/bin/python bench/desktop_start.py [TREE ...] [rounds]   (e.g. /work/main . 3: alternating starts
of each tree, imported through PYTHONPATH; default the current folder, 3 rounds)
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
import collections, functools, importlib, inspect, json, threading, time
T0 = time.perf_counter()
TIMES, DEPTH = [], collections.Counter()  # nesting depth per thread (the web starts in its own)

def timed(module, owner, name, label):
    obj = importlib.import_module(module)
    target = getattr(obj, owner) if owner else obj
    fn = getattr(target, name, None)
    if fn is None:  # a step another tree does not have (both trees run this child)
        return
    active = set()  # threads inside this step
    @functools.wraps(fn)
    def wrapper(*a, **k):
        me = threading.get_ident()
        if me in active:  # a recursive call (copytree): timed as part of the outer one
            return fn(*a, **k)
        active.add(me)
        DEPTH[me] += 1
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            active.discard(me)
            DEPTH[me] -= 1
            where = "" if threading.current_thread() is threading.main_thread() else " [thread]"
            TIMES.append((t - T0, DEPTH[me], label + where, time.perf_counter() - t))
    static = isinstance(inspect.getattr_static(target, name), classmethod)  # bound already
    setattr(target, name, staticmethod(wrapper) if static else wrapper)

import gymnasium as gym, crab_gym
T1, C1 = time.perf_counter(), time.process_time()
X, D = "crab_gym.envs.desktop.backends.xvfb", "crab_gym.envs.desktop"
for module, owner, name, label in [
    (X, "XvfbSession", "__init__", "session slot (user, namespaces)"),
    (X, "SessionWeb", "start_or_warn", "offline web (server in the namespace)"),
    (X, "XvfbSession", "chown", "chown (HOME, run dir, profiles)"),
    (X, "XvfbSession", "_start_xvfb", "Xvfb up (xauth, Xvfb, xhost)"),  # before the start was parallel
    (X, "", "start_xvfb", "Xvfb up (xauth, Xvfb, xhost)"),
    ("crab_gym.envs.desktop.primitives.x11", "X11Display", "__init__", "X connection (python-xlib)"),
    (X, "", "draw_wallpaper", "draw the wallpaper"),
    (X, "", "wallpaper", "the wallpaper (cached, or drawn)"),
    (X, "", "set_root_background", "set the root background"),
    (X, "", "paint_wallpaper", "the wallpaper read and painted (own X connection)"),
    ("crab_gym.envs.desktop.backends.wallpaper", "", "set_root_background", "set the root background"),
    (X, "XvfbSession", "reset", "session reset"),
    (X, "XvfbSession", "_kill_clients", "kill stale clients"),
    (X, "XvfbSession", "_start_keepers", "keepers (a11y bus, registry, panel)"),
    (X, "", "start_a11y_bus", "a11y bus and registry"),
    ("crab_gym.envs.desktop.backends.panel", "Panel", "spawn", "panel spawn"),
    ("crab_gym.envs.desktop.backends.panel", "Panel", "go", "panel told its display (it starts GTK)"),
    ("crab_gym.envs.desktop.backends.panel", "Panel", "wait_ready", "wait for the panel's first draw"),
    (X, "XvfbSession", "_start_dbus", "session bus"),
    (X, "XvfbSession", "_dbus_started", "session bus up (awaited)"),
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
        me, main = threading.get_ident(), threading.current_thread() is threading.main_thread()
        label = "run " + " ".join(map(str, argv))[:40] + ("" if main else " [thread]")
        TIMES.append((t - T0, DEPTH[me], label, time.perf_counter() - t))
subprocess.run = run
env = gym.make("Crab-Desktop-v0", tasks="v0")
T2, C2 = time.perf_counter(), time.process_time()
env.reset(seed=0)
T3, C3 = time.perf_counter(), time.process_time()
times = {"imports": T1 - T0, "make": T2 - T1, "reset": T3 - T2}
cpu = {"imports_cpu": C1, "make_cpu": C2 - C1, "reset_cpu": C3 - C2}  # this process only
# Everything the start cost: this process, the programs it ran and waited for (certutil, xauth, cp...),
# and the session's processes still running (Xvfb, the panel, openbox, the buses), from /proc.
import os, resource
session = env.unwrapped.subenvs["ubuntu"].session
tick = os.sysconf("SC_CLK_TCK")
def proc_cpu(pid):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick
    except (OSError, IndexError, ValueError):
        return 0.0
live = [*session.session_pids(), session._xvfb.pid]
waited = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu["session_cpu"] = sum(proc_cpu(p) for p in live)
cpu["waited_cpu"] = waited.ru_utime + waited.ru_stime
cpu["all_cpu"] = C3 + cpu["session_cpu"] + cpu["waited_cpu"]
print(json.dumps({**times, **cpu, "steps": sorted(TIMES)}), flush=True)
env.close()
"""


def start(tree: str) -> tuple[float, dict]:
    """One cold start from ``tree``: wall seconds to the first observation and the child's timings."""
    env = {**os.environ, "PYTHONPATH": tree}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, per tree, as an installed package has it
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"crab-desktop-start-{abs(hash(tree))}")
    t0 = time.perf_counter()
    proc = subprocess.Popen(  # cwd: ``-c`` puts it first on sys.path, before PYTHONPATH
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env, cwd=tree
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    wall = time.perf_counter() - t0
    proc.wait(120)
    if not line:
        raise RuntimeError(f"the child from {tree} failed (exit {proc.returncode})")
    return wall, json.loads(line)


def report(tree: str, runs: list[tuple[float, dict]]) -> None:
    walls, results = [w for w, _ in runs], [r for _, r in runs]
    keys = (
        "imports",
        "make",
        "reset",
        "imports_cpu",
        "make_cpu",
        "reset_cpu",
        "session_cpu",
        "waited_cpu",
        "all_cpu",
    )
    med = {k: statistics.median(r[k] for r in results) for k in keys}
    split = ", ".join(f"{k} {v:.3f}" for k, v in med.items())
    print(f"{tree}: cold start {statistics.median(walls):.3f} s ({split}); medians of {len(runs)}")
    # Steps in the order of the first run; durations are medians over the runs that took the same steps.
    first = results[0]["steps"]
    same = [r["steps"] for r in results if [s[2] for s in r["steps"]] == [s[2] for s in first]]
    for i, (at, depth, label, _) in enumerate(first):
        print(f"  {at:6.3f} {'  ' * depth}{label}: {statistics.median(s[i][3] for s in same):.3f} s")


def main(argv: list[str]) -> int:
    rounds = int(argv.pop()) if argv and argv[-1].isdigit() else 3
    trees = [os.path.abspath(t) for t in argv] or [os.getcwd()]
    for tree in trees:  # fill the bytecode caches
        start(tree)
    runs: dict[str, list[tuple[float, dict]]] = {t: [] for t in trees}
    for r in range(rounds):  # alternating, so both trees see the same load
        for tree in trees if r % 2 == 0 else trees[::-1]:
            runs[tree].append(start(tree))
    for tree in trees:
        report(tree, runs[tree])
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

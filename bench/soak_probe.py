"""What bench/soak.py measures: the processes of a crab-gym run (our process tree and the processes of its
desktop sessions), their memory and file descriptors, the X displays and session users in use.

A desktop session's processes are found by the ``CRAB_GYM_SESSION=<token>`` variable every one of them
inherits (even a D-Bus daemon that forked away from our tree); the tokens are read from the Xvfb servers in
our tree. Checking leaks by token (not by user or display number) keeps another run that takes over the same
slot after we closed from being counted as ours.
"""

from __future__ import annotations

import os
import pwd
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psutil

MARKER = "CRAB_GYM_SESSION"
X_SOCKETS = Path("/tmp/.X11-unix")
KINDS = ("main", "vec worker", "Xvfb", "openbox", "dbus", "at-spi", "panel", "session agent", "apps", "other")


def _token(proc: psutil.Process) -> str | None:
    try:
        return proc.environ().get(MARKER)
    except (psutil.Error, OSError):
        return None


def kind_of(proc: psutil.Process, main: int, workers: set[int]) -> str:
    """Which part of the run a process is, for the memory plot."""
    if proc.pid == main:
        return "main"
    if proc.pid in workers:
        return "vec worker"
    try:
        name, cmd = proc.name(), " ".join(proc.cmdline())
    except (psutil.Error, OSError):
        return "other"
    if name == "Xvfb":
        return "Xvfb"
    if name == "openbox":
        return "openbox"
    if name.startswith("dbus-daemon"):
        return "dbus"
    if name.startswith("at-spi"):
        return "at-spi"
    if "panel_app.py" in cmd:
        return "panel"
    if "session_agent.py" in cmd:
        return "session agent"
    return "apps" if _token(proc) else "other"


class Probe:
    """Samples one run: ``main`` is the pid whose process tree runs the envs."""

    def __init__(self, main: int | None = None) -> None:
        self.main = main or os.getpid()
        self.tokens: set[str] = set()  # every session this run had
        self.displays: set[str] = set()
        self.users: set[str] = set()

    # ---- who is ours ------------------------------------------------------------------------------
    def tree(self) -> list[psutil.Process]:
        me = psutil.Process(self.main)
        try:
            return [me, *me.children(recursive=True)]
        except psutil.Error:
            return [me]

    def workers(self, tree: list[psutil.Process]) -> set[int]:
        """Python children of the main process (vector env workers)."""
        out = set()
        for p in tree[1:]:
            try:
                if p.ppid() == self.main and p.name().startswith("python"):
                    out.add(p.pid)
            except psutil.Error:
                continue
        return out

    def learn_sessions(self, tree: list[psutil.Process]) -> None:
        for p in tree:
            try:
                if p.name() != "Xvfb":
                    continue
                display = next((a for a in p.cmdline()[1:] if a.startswith(":")), None)
                user = p.username()
            except psutil.Error:
                continue
            token = _token(p)
            if token:
                self.tokens.add(token)
            if display:
                self.displays.add(display)
            self.users.add(user)

    def session_processes(self, tokens: set[str] | None = None) -> list[psutil.Process]:
        """Live processes (zombies excepted) carrying one of ``tokens`` (default: every session seen)."""
        tokens = self.tokens if tokens is None else tokens
        out = []
        for p in psutil.process_iter():
            try:
                if p.status() != psutil.STATUS_ZOMBIE and _token(p) in tokens:
                    out.append(p)
            except psutil.Error:
                continue
        return out

    # ---- one sample ---------------------------------------------------------------------------------
    def sample(self, t: float) -> dict[str, Any]:
        """Memory (RSS, PSS) and fds of every process of the run, with its kind."""
        tree = self.tree()
        self.learn_sessions(tree)
        workers = self.workers(tree)
        seen: dict[int, psutil.Process] = {p.pid: p for p in tree}
        for p in self.session_processes():
            seen.setdefault(p.pid, p)
        procs = []
        for pid, p in seen.items():
            try:
                with p.oneshot():
                    if p.status() == psutil.STATUS_ZOMBIE:
                        continue
                    mem = p.memory_full_info()
                    fds = p.num_fds()
                    name = p.name()
            except (psutil.Error, OSError):
                continue
            procs.append({"pid": pid, "name": name, "kind": kind_of(p, self.main, workers),
                          "rss": mem.rss, "pss": getattr(mem, "pss", mem.rss), "fds": fds})  # fmt: skip
        return {
            "t": t,
            "procs": procs,
            "processes": len(procs),
            "fds": sum(p["fds"] for p in procs),
            "main_fds": next((p["fds"] for p in procs if p["pid"] == self.main), 0),
            "displays": sorted(self.displays_in_use()),
            "users": sorted(self.session_users()),
        }

    # ---- the machine around us --------------------------------------------------------------------
    def displays_in_use(self) -> set[str]:
        """Displays of this run with a live X server (``:N``)."""
        out = set()
        for p in self.session_processes():
            try:
                if p.name() == "Xvfb":
                    out.update(a for a in p.cmdline()[1:] if a.startswith(":"))
            except psutil.Error:
                continue
        return out

    def session_users(self) -> set[str]:
        """Users that run processes of this run's sessions."""
        out = set()
        for p in self.session_processes():
            try:
                out.add(p.username())
            except psutil.Error:
                continue
        return out


def snapshot(probe: Probe) -> dict[str, Any]:
    """Before/after figures: our fds and child processes, sessions' processes, displays, users; and, for
    context, the machine's X sockets, Xvfb servers and crab-gym session users (other runs included)."""
    me = psutil.Process(probe.main)
    fds = {}
    for fd in os.listdir(f"/proc/{probe.main}/fd"):
        try:
            fds[int(fd)] = os.readlink(f"/proc/{probe.main}/fd/{fd}")
        except OSError:
            continue
    children = []
    for c in me.children(recursive=True):
        try:
            if c.status() != psutil.STATUS_ZOMBIE:
                children.append(f"{c.pid} {c.name()}")
        except psutil.Error:
            continue
    machine_users, xvfb = set(), 0
    for p in psutil.process_iter():
        try:
            if p.name() == "Xvfb":
                xvfb += 1
            user = p.username()
        except (psutil.Error, KeyError):
            continue
        if user.startswith("crabgym-"):
            machine_users.add(user)
    return {
        "time": time.time(),
        "pid": probe.main,
        "fds": fds,
        "children": children,
        "session_processes": [f"{p.pid} {p.name()}" for p in probe.session_processes()],
        "displays": sorted(probe.displays_in_use()),
        "session_users": sorted(probe.session_users()),
        "machine": {
            "x_sockets": len(list(X_SOCKETS.glob("X*"))) if X_SOCKETS.exists() else 0,
            "xvfb": xvfb,
            "users_with_processes": len(machine_users),
            "crabgym_users": sum(1 for u in pwd.getpwall() if u.pw_name.startswith("crabgym-")),
        },
    }


def leaks(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    """What the run left behind after close: fds the main process did not have before (but multiprocessing's
    heap, kept for the process's life), child processes, session processes, displays and users (by this
    run's session tokens)."""
    # multiprocessing's shared-memory heap is one per process, reused by the next vector env: not a leak
    arena = f"/dev/shm/pym-{after['pid']}-"
    new_fds = [f"{fd} -> {target}" for fd, target in after["fds"].items()
               if before["fds"].get(fd) != target and not target.startswith(arena)]  # fmt: skip
    return {
        "fds": new_fds,
        "processes": sorted(set(after["children"]) - set(before["children"])) + after["session_processes"],
        "displays": after["displays"],
        "users": after["session_users"],
    }


def by_kind(sample: dict[str, Any], field: str = "rss") -> dict[str, float]:
    """MB of ``field`` summed per kind of process."""
    out: dict[str, float] = defaultdict(float)
    for p in sample["procs"]:
        out[p["kind"]] += p[field] / 2**20
    return dict(out)

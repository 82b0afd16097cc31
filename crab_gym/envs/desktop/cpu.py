"""How much CPU a set of processes wanted: time on a CPU plus time runnable but waiting for one.

Time used alone reads a starved process as idle: on a loaded machine an app that is building a dialog can
sit on the run queue for tens of milliseconds, using nothing, and a "quiet" probe would end too early.
``/proc/PID/task/TID/schedstat`` gives both figures (run time and run-queue wait, in ns).

Guest-safe (stdlib only): the VM image ships this module to the probe agent.
"""

from __future__ import annotations

from pathlib import Path


def cpu_demand_ns(pids: list[int], waited: bool = True) -> int:
    """Nanoseconds every thread of the live processes among ``pids`` ran or (with ``waited``) waited to
    run, so far."""
    total = 0
    for pid in pids:
        try:
            for tid in Path(f"/proc/{pid}/task").iterdir():
                ran, wait = (tid / "schedstat").read_bytes().split()[:2]
                total += int(ran) + (int(wait) if waited else 0)
        except (OSError, ValueError):
            continue
    return total

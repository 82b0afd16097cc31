"""How much CPU a set of processes wanted: time on a CPU plus time runnable but waiting for one; and
whether one of them is blocked on the disk.

Time used alone reads a starved process as idle: on a loaded machine an app that is building a dialog can
sit on the run queue for tens of milliseconds, using nothing, and a "quiet" probe would end too early.
``/proc/PID/task/TID/schedstat`` gives both figures (run time and run-queue wait, in ns).

Guest-safe (stdlib only): the VM image ships this module to the probe agent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def cpu_demand_ns(pids: list[int], waited: bool = True) -> int:
    """Nanoseconds every thread of the live processes among ``pids`` ran or (with ``waited``) waited to
    run, so far. Plain ``os``/``open`` calls: a settle polls this every 10 ms, and in a VM the probe's own
    CPU counts against the quiet it waits for (pathlib took 60 % longer)."""
    total = 0
    for pid in pids:
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    ran, wait, _ = f.read().split(maxsplit=2)
                total += int(ran) + (int(wait) if waited else 0)
        except (OSError, ValueError):
            continue
    return total


def waiting_on_disk(pids: list[int]) -> bool:
    """True if a thread of the live processes among ``pids`` sleeps uninterruptibly (state ``D``): an app
    saving a file waits in ``fsync`` using no CPU and drawing nothing, for 0.1-1 s on a busy disk."""
    for pid in pids:
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1][1:2] == b"D":
                        return True
        except (OSError, IndexError):
            continue
    return False


def busy_probe(
    session_pids: Callable[[], list[int]], share: float = 0.2, refresh: float = 0.2
) -> Callable[[], bool]:
    """A probe for settling: True when the session's processes ran or waited to run (a starved app is busy
    too) more than ``share`` of a CPU since the previous call (an idle GTK or LibreOffice session uses
    about 1 %; building a dialog, 100 %), or when one of them waits on the disk (``waiting_on_disk``).
    The process list is read again every ``refresh`` s."""
    pids, pids_at = session_pids(), time.monotonic()
    used, used_at = cpu_demand_ns(pids), time.monotonic()

    def busy() -> bool:
        nonlocal pids, pids_at, used, used_at
        now = time.monotonic()
        if now - pids_at > refresh:
            pids, pids_at = session_pids(), now
        total = cpu_demand_ns(pids)
        was, since = used, used_at
        used, used_at = total, now
        return total - was > share * (now - since) * 1e9 or waiting_on_disk(pids)

    return busy

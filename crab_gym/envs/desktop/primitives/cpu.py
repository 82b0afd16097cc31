"""Whether a desktop session is at work: how much CPU its processes wanted (time on a CPU plus time
runnable but waiting for one), whether one of them is runnable or blocked on the disk now, and whether one
sleeps with a toolkit timer due soon.

Time used alone reads a starved process as idle: on a loaded machine an app that is building a dialog can
sit on the run queue for tens of milliseconds, using nothing, and a "quiet" probe would end too early.
``/proc/PID/task/TID/schedstat`` gives both figures (run time and run-queue wait, in ns).

Guest-safe (stdlib only): the VM image ships this module to the probe agent.
"""

from __future__ import annotations

import os
import platform
import struct
import time
from collections.abc import Callable, Sequence


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
    return any("disk" in _thread_states(pid) for pid in pids)


# Where a thread sleeping in a wait with a timeout in milliseconds keeps it (the argument's index): poll,
# epoll_wait and epoll_pwait, by syscall number of the machine. GLib's main loop (GTK, Qt, LibreOffice,
# rofi, openbox) sleeps in poll with the time to its next timer. Elsewhere: no timers read.
_MS_TIMEOUT_ARG = {"x86_64": {7: 2, 232: 3, 281: 3}, "aarch64": {22: 3}}.get(platform.machine(), {})
# Waits whose timeout is a pointer to a (seconds, fraction) pair: select (timeval, microseconds) and
# pselect6 (timespec, nanoseconds): the argument's index and the fractions per millisecond. Terminal
# programs sleep there: vim waits in pselect6 for the rest of an escape sequence after Esc ('ttimeoutlen').
_STRUCT_TIMEOUT_ARG = {"x86_64": {23: (4, 1_000), 270: (4, 1_000_000)}, "aarch64": {72: (4, 1_000_000)}}.get(
    platform.machine(), {}
)


def timer_due(pid: int, tid: str, within_ms: int) -> bool:
    """True if the thread sleeps in poll/epoll_wait/select/pselect with a timeout of at most ``within_ms``
    (a timer due that soon: a redraw, a delayed action, the end of an escape sequence). Needs ptrace rights
    over the thread; without them, False."""
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall", "rb") as f:
            fields = f.read().split()
        number = int(fields[0])
        if (arg := _MS_TIMEOUT_ARG.get(number)) is not None:
            return int(fields[1 + arg], 16) <= within_ms
        if (where := _STRUCT_TIMEOUT_ARG.get(number)) is not None:
            timeout_ms = _struct_timeout_ms(pid, tid, int(fields[1 + where[0]], 16), where[1])
            return timeout_ms is not None and timeout_ms <= within_ms
        return False
    except (OSError, ValueError, IndexError):  # gone, not ours to read, or "running"
        return False


def _struct_timeout_ms(pid: int, tid: str, address: int, per_ms: int) -> float | None:
    """The timeout a select-like wait was given: the (seconds, fraction) pair at ``address`` in the
    thread's memory, in ms; None for no timeout (a null pointer: wait for ever)."""
    if address == 0:
        return None
    with open(f"/proc/{pid}/task/{tid}/mem", "rb") as f:
        f.seek(address)
        sec, frac = struct.unpack("=qq", f.read(16))
    return sec * 1000 + frac / per_ms


class SessionActivity:
    """Whether a session is at work: the settle probe (see :meth:`busy`); one per session, kept across
    settles.

    ``session_pids`` lists the session's processes; ``servers`` are processes whose runnable threads count
    too, their CPU not (the X server, which our own requests keep busy). The session's threads are listed
    again only when a process or thread was created on the machine since the last listing (the kernel's
    last pid moved, ``/proc/loadavg``): a settle of an unchanged session reads no ``/proc`` directory.
    """

    def __init__(
        self,
        session_pids: Callable[[], list[int]],
        servers: Sequence[int] = (),
        share: float = 0.2,
        timer_ms: int = 30,
    ) -> None:
        self._pids, self._servers = session_pids, list(servers)
        self.share, self.timer_ms = share, timer_ms
        self._threads: list[tuple[int, str]] = []
        self._last_pid = ""
        self.reason = ""  # why the last busy() said busy: "cpu", "runnable", "disk", "timer" or ""
        self.start()

    def start(self) -> None:
        """From now on: the CPU demand :meth:`busy` compares with is the session's demand now."""
        self._used, self._used_at = self._demand()[0], time.monotonic()

    def _list(self) -> None:
        with open("/proc/loadavg", "rb") as f:
            last = f.read().rsplit(maxsplit=1)[-1].decode()
        if last == self._last_pid:
            return
        self._last_pid, self._threads = last, []
        for pid in self._pids():
            try:
                self._threads += [(pid, tid) for tid in os.listdir(f"/proc/{pid}/task")]
            except OSError:
                continue

    def _demand(self) -> tuple[int, str]:
        """CPU demand of the session's threads so far (ns), and "runnable"/"disk" if one of them (or a
        server's) is in state R/D now."""
        self._list()
        total, state = 0, ""
        for pid, tid in self._threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    ran, wait, _ = f.read().split(maxsplit=2)
                total += int(ran) + int(wait)
                if not state:
                    state = _state(pid, tid)
            except (OSError, ValueError):
                continue
        for pid in self._servers:
            if not state and any_runnable(pid):
                state = "runnable"
        return total, state

    def busy(self) -> bool:
        """True when, since the previous call, the session's threads ran or waited to run more than
        ``share`` of a CPU (an idle GTK or LibreOffice session uses about 1 %; building a dialog, 100 %);
        or one of them, or a server's thread, is runnable now (woken by input, maybe still waiting for a
        CPU: its wait shows in the demand only once it runs); or one waits on the disk (an app in
        ``fsync``, saving); or one sleeps with a toolkit timer due within ``timer_ms``."""
        now = time.monotonic()
        total, state = self._demand()
        was, since = self._used, self._used_at
        self._used, self._used_at = total, now
        if total - was > self.share * (now - since) * 1e9:
            self.reason = "cpu"
        elif state:
            self.reason = state
        elif any(timer_due(pid, tid, self.timer_ms) for pid, tid in self._threads):
            self.reason = "timer"
        else:
            self.reason = ""
        return bool(self.reason)


def _state(pid: int, tid: str) -> str:
    with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
        code = f.read().rsplit(b")", 1)[1][1:2]
    return {b"R": "runnable", b"D": "disk"}.get(code, "")


def _thread_states(pid: int) -> list[str]:
    """:func:`_state` of each thread of ``pid``; none once it is gone or not ours to read."""
    try:
        return [_state(pid, tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except (OSError, IndexError):
        return []


def any_runnable(pid: int) -> bool:
    """True if a thread of ``pid`` is runnable now (running, or waiting for a CPU)."""
    return "runnable" in _thread_states(pid)


def any_at_work(pids: list[int]) -> bool:
    """True if a thread of the live processes among ``pids`` is runnable or waits on the disk now (one read
    of each thread's state: :func:`any_runnable` and :func:`waiting_on_disk` together)."""
    return any(any(_thread_states(pid)) for pid in pids)


def busy_probe(session_pids: Callable[[], list[int]], share: float = 0.2) -> Callable[[], bool]:
    """A probe for settling (see :meth:`SessionActivity.busy`)."""
    return SessionActivity(session_pids, share=share).busy

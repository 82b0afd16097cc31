"""The phone's log: logcat's ring buffers and what the simulated system writes to them. Entries carry the
phone's clock (see `clock.py`), so logs are as reproducible as the rest of the phone. The `logcat` and `log`
commands that read and write it are in logcatcmd.py, loaded by the shell when a line names them.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from .clock import now_ms

BUFFERS = ("main", "system", "crash", "events", "radio", "kernel")
MAX_ENTRIES = 2048  # per buffer: the oldest entries go first, as in a ring buffer
SYSTEM_SERVER = 560  # pids as `ps` shows them (see proccmds.SYSTEM)


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    ms: int  # the phone's clock, epoch milliseconds
    pid: int
    tid: int
    level: str  # V D I W E F
    tag: str
    msg: str
    buffer: str


class LogBuffer:
    """The ring buffers of one phone; `cond` (on the phone's lock) is notified on every new entry."""

    def __init__(self, phone) -> None:
        self.phone = phone
        self.rings: dict[str, deque[Entry]] = {b: deque(maxlen=MAX_ENTRIES) for b in BUFFERS}
        self.cond = threading.Condition(phone.lock)
        self.seq = 0
        self.last_ms = 0
        self.pending_intent: tuple[str, int] | None = None  # set by `am start` for the START line

    def add(self, level: str, tag: str, msg: str, pid: int, tid: int, buffer: str) -> None:
        with self.cond:
            self.seq += 1
            self.last_ms = max(now_ms(self.phone), self.last_ms + 1)
            self.rings[buffer].append(Entry(self.seq, self.last_ms, pid, tid, level, tag, msg, buffer))
            self.cond.notify_all()

    def entries(self, buffers: tuple[str, ...], after: int = 0) -> list[Entry]:
        found = [e for b in buffers for e in self.rings[b] if e.seq > after]
        return sorted(found, key=lambda e: e.seq)

    def clear(self, buffers: tuple[str, ...]) -> None:
        for b in buffers:
            self.rings[b].clear()


BOOT = (
    ("I", "ActivityManager", "System now ready", "system"),
    ("I", "SystemServer", "Making services ready", "system"),
    ("I", "ActivityManager", "Start proc 780:com.android.systemui/u0a120 for service", "system"),
    ("I", "PackageManager", "Finished scanning system apps", "system"),
    ("I", "BootReceiver", "Copying audit failures to DropBox", "main"),
)


def buffer(phone) -> LogBuffer:
    """The phone's log (created with a few boot lines on first use)."""
    with phone.lock:
        buf = getattr(phone, "_logcat", None)
        if buf is None:
            buf = phone._logcat = LogBuffer(phone)
            for level, tag, msg, ring in BOOT:
                buf.add(level, tag, msg, SYSTEM_SERVER, SYSTEM_SERVER + 18, ring)
        return buf


def log(phone, level: str, tag: str, msg: str, pid: int = SYSTEM_SERVER, buffer_name: str = "system") -> None:
    """Append one entry (system_server's by default) to a buffer of the phone's log."""
    buffer(phone).add(level, tag, msg, pid, pid if pid != SYSTEM_SERVER else pid + 27, buffer_name)


def expect_intent(phone, intent: str, uid: int = 0) -> None:
    """The intent and caller uid of the next activity start (`am start` says what it asked for)."""
    buffer(phone).pending_intent = (intent, uid)


def activity_started(phone, component: str) -> None:
    """ActivityTaskManager's START and Displayed lines for an activity the phone brings up."""
    buf = buffer(phone)
    intent, uid = buf.pending_intent or (f"flg=0x10000000 cmp={component}", 10110)
    buf.pending_intent = None
    log(
        phone,
        "I",
        "ActivityTaskManager",
        f"START u0 {{{intent}}} with LAUNCH_MULTIPLE from uid {uid} (BAL_ALLOW_PERMISSION) result code=0",
    )
    log(phone, "I", "ActivityTaskManager", f"Displayed {component} for user 0: +{180 + len(component) * 3}ms")

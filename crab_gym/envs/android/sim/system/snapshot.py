"""The phone's whole state at any moment, as plain values: files and databases, the activity stack, the
system's flags (shade, power, keyguard, power menu), posted notifications, the clock, the alarms'
bookkeeping and the log.

``capture(phone)`` copies it out (about a millisecond: the sandbox's files are read); ``restore(phone, s)``
puts it back in place (files whose bytes differ are rewritten, the rest is assigned), so a following logcat
stream and the adb server go on serving the same phone. Handlers an app keeps in its activity's state (a
callback for back or swipe) are code, not state: they are left out and the app sets them again when the top
screen is rebuilt, which ``restore`` does.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from ..storage.fs import Snapshot
from . import alarms, clock
from .logcat import MAX_ENTRIES, Entry, LogBuffer, buffer

__all__ = ["PhoneState", "capture", "restore"]


@dataclass(frozen=True)
class LogState:
    """The log's ring buffers and counters."""

    rings: dict[str, tuple[Entry, ...]]
    seq: int
    last_ms: int
    pending_intent: tuple[str, int] | None


@dataclass(frozen=True)
class PhoneState:
    """Everything that makes one moment of a phone differ from another (its size and sandbox aside)."""

    size: tuple[int, int]
    seed: int
    files: Snapshot
    stack: tuple[Any, ...]  # the phone's Activity records, their handlers left out
    next_task: int
    stopped: frozenset[str]
    shade_open: bool
    awake: bool
    locked: bool
    power_menu: bool
    notifications: tuple[Any, ...]  # posted ones (notifications.py), oldest first
    last_touch: tuple[float, float]
    counter: int
    clock_base_ms: int
    elapsed_ms: int  # how far the clock had moved since reset (in real time: of wall time)
    checked_ms: int
    due_ms: int | None
    due_known: bool  # the alarms' next due time was up to date with their database
    log: LogState | None
    built: bool  # the screen had been built (its handlers set) when the state was saved
    overlays: tuple[Any, ...] = ()  # system windows over the app (overlays.py), bottom first


def _plain(state: dict[str, Any]) -> dict[str, Any]:
    """An activity's state without its handlers, copied deep (the phone goes on changing its own)."""
    return copy.deepcopy({k: v for k, v in state.items() if not callable(v)})


def capture(phone) -> PhoneState:
    """The phone's state now."""
    with phone.lock:
        checked_ms, due_ms, due_known = alarms.bookkeeping(phone)
        buf: LogBuffer | None = getattr(phone, "_logcat", None)
        phone.fs.times.settle()  # every file's time is the phone's (storage/times.py)
        log = None
        if buf is not None:
            rings = {name: tuple(ring) for name, ring in buf.rings.items()}
            log = LogState(rings, buf.seq, buf.last_ms, buf.pending_intent)
        return PhoneState(
            size=(phone.width, phone.height),
            seed=phone.seed,
            files=phone.fs.snapshot(),
            stack=tuple(dataclasses.replace(a, state=_plain(a.state)) for a in phone.stack),
            next_task=phone._next_task,
            stopped=frozenset(phone.stopped),
            shade_open=phone.shade_open,
            awake=phone.awake,
            locked=phone.locked,
            power_menu=getattr(phone, "power_menu", False),
            notifications=tuple(getattr(phone, "notifications", ())),
            overlays=tuple(getattr(phone, "overlays", ())),
            last_touch=tuple(phone.last_touch),
            counter=phone.counter,
            clock_base_ms=phone.clock_base_ms,
            elapsed_ms=clock.elapsed_ms(phone),
            checked_ms=checked_ms,
            due_ms=due_ms,
            due_known=due_known,
            log=log,
            built=phone._tree is not None,
        )


def restore(phone, s: PhoneState) -> None:
    """Bring ``phone`` to ``s`` (a state of a phone of the same size); ValueError if the size differs."""
    if s.size != (phone.width, phone.height):
        w, h = s.size
        raise ValueError(f"a state of a {w}x{h} phone given to a {phone.width}x{phone.height} one")
    with phone.lock:
        phone.fs.restore(s.files, before_change=phone.drop_readers)  # it rewrites files under SQLite's feet
        phone.seed = s.seed
        phone.stack = [dataclasses.replace(a, state=copy.deepcopy(a.state)) for a in s.stack]
        phone._next_task = s.next_task
        phone.stopped = set(s.stopped)
        phone.shade_open, phone.awake, phone.locked = s.shade_open, s.awake, s.locked
        phone.power_menu, phone.notifications = s.power_menu, list(s.notifications)
        phone.overlays = list(s.overlays)
        phone.last_touch = s.last_touch
        phone.counter, phone.clock_base_ms = s.counter, s.clock_base_ms
        phone.wall0 = time.monotonic() - s.elapsed_ms / 1000  # real time goes on from where it was
        alarms.restored(phone, s.checked_ms, s.due_ms, s.due_known)
        _restore_log(phone, s.log)
        phone.invalidate()
        if s.built:
            phone._current_tree()  # the top screen's handlers, as its app sets them when it is drawn


def _restore_log(phone, log: LogState | None) -> None:
    if log is None:
        vars(phone).pop("_logcat", None)  # the next use logs the boot lines, as on this phone before the save
        return
    buf = buffer(phone)
    for name, ring in buf.rings.items():
        ring.clear()
        ring.extend(log.rings.get(name, ()))
    for name in log.rings.keys() - buf.rings.keys():
        buf.rings[name] = deque(log.rings[name], maxlen=MAX_ENTRIES)
    buf.seq, buf.last_ms, buf.pending_intent = log.seq, log.last_ms, log.pending_intent
    with buf.cond:
        buf.cond.notify_all()

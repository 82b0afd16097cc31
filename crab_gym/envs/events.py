"""Device events during an episode (:mod:`crab_gym.core.events`): applied through each device's own
mechanisms, fired by :class:`EventScheduler` after the step they are due at or, in real time, when their
second comes (from a timer thread, while the agent thinks).

On the phone: a text message goes into the SMS provider's inbox, a call into the call log as missed, an
e-mail into Gmail's inbox, a calendar reminder into the calendar provider, a file onto the storage; each
posts its notification (``cmd notification post``) as the app would, and a notification can come alone. On
the desktop: a file appears in the session user's home.
"""

from __future__ import annotations

import calendar
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from crab_gym.core.events import DeviceEvent
from crab_gym.envs.base import DeviceError, SubEnv

__all__ = ["EventScheduler", "apply_event"]


def _start_ms(date: str, start: str) -> int:
    """UTC milliseconds of a date and time the event has checked (the phone's time zone is UTC)."""
    return calendar.timegm(datetime.strptime(f"{date} {start}", "%Y-%m-%d %H:%M").timetuple()) * 1000


def apply_event(subenvs: Mapping[str, SubEnv], event: DeviceEvent, tag: str) -> None:
    """Make ``event`` happen on its device; ``tag`` names its notification. DeviceError when the env has no
    such device or the device refuses."""
    device = subenvs.get(event.device)
    if device is None:
        raise DeviceError(f"a {event.kind} event on {event.device!r}, which this env does not have")
    p: Any = device  # the named operations of AndroidEnv and DesktopEnv
    e = event.params
    if event.kind == "sms":
        p.add_sms(e["sender"], e["body"])
        p.post_notification(tag, e["sender"], e["body"])
    elif event.kind == "call":
        p.add_call(e["number"], kind=3)
        p.post_notification(tag, "Missed call", e["number"])
    elif event.kind == "notification":
        p.post_notification(tag, e["title"], e["text"])
    elif event.kind == "email":
        p.add_mail(e["sender"], e["subject"], e["body"])
        p.post_notification(tag, e["sender"], e["subject"])
    elif event.kind == "calendar_reminder":
        p.add_calendar_event(e["title"], _start_ms(e["date"], e["start"]))
        p.post_notification(tag, e["title"], f"{e['date']} {e['start']}")
    elif event.kind == "file":
        p.write_file(e["path"], e["content"])
        if event.device == "android":
            p.post_notification(tag, "Download complete", e["path"].rsplit("/", 1)[-1])
    device.invalidate_state()


class EventScheduler:
    """The pending events of one episode. :meth:`start` at reset, :meth:`after_step` after every step (it
    fires what came due and returns what fired since the last call), :meth:`stop` at close. Episode time: in
    lock-step one second per step plus the seconds waited; in real time the wall clock, and a thread fires
    the timed events when their second comes."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._pending: list[DeviceEvent] = []
        self._subenvs: Mapping[str, SubEnv] = {}
        self._fired: list[dict[str, Any]] = []
        self._error: str | None = None
        self._realtime = False
        self._seconds = 0.0
        self._step = 0
        self._t0 = 0.0
        self._count = 0
        self._thread: threading.Thread | None = None
        self._generation = 0

    def start(self, events: Sequence[DeviceEvent], subenvs: Mapping[str, SubEnv], realtime: bool) -> None:
        """Schedule ``events`` for the episode that starts now (the last episode's pending ones are gone)."""
        self.stop()
        with self._lock:
            self._pending, self._subenvs, self._realtime = list(events), subenvs, realtime
            self._fired, self._error = [], None
            self._seconds, self._step, self._t0, self._count = 0.0, 0, time.monotonic(), 0
            if realtime and any(e.at_seconds is not None for e in self._pending):
                self._thread = threading.Thread(
                    target=self._run, args=(self._generation,), name="crab-events", daemon=True
                )
                self._thread.start()

    def stop(self) -> None:
        """Forget the pending events and end the timer thread."""
        with self._lock:
            self._generation += 1
            self._pending = []
            thread, self._thread = self._thread, None
            self._wake.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)

    @property
    def pending(self) -> list[DeviceEvent]:
        with self._lock:
            return list(self._pending)

    def seconds(self) -> float:
        """The episode time now."""
        with self._lock:
            return time.monotonic() - self._t0 if self._realtime else self._seconds

    def after_step(self, step: int, action_result: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """After step ``step`` (``action_result``: what its action did; a wait says how long): fire what is
        due. ``{"events": [...]}``, the events fired since the last call in order, or ``{}`` for none: what
        the step's info gains. DeviceError if one could not be applied (here or on the timer thread)."""
        waited = float((action_result or {}).get("waited", 0))
        with self._lock:
            self._step = step
            if not self._realtime:
                self._seconds += 1.0 + waited
            self._fire_due()
            fired, self._fired = self._fired, []
            error, self._error = self._error, None
        if error is not None:
            raise DeviceError(error)
        return {"events": fired} if fired else {}

    def _fire_due(self) -> None:
        seconds = time.monotonic() - self._t0 if self._realtime else self._seconds
        due = [e for e in self._pending if e.due(self._step, seconds)]
        for event in due:
            self._pending.remove(event)
            self._count += 1
            try:
                apply_event(self._subenvs, event, f"crab-event-{self._count}")
            except (DeviceError, OSError) as e:
                self._error = f"event {event.kind} on {event.device}: {type(e).__name__}: {e}"
                continue
            self._fired.append({**event.to_json(), "device": event.device, "fired_after_step": self._step,
                                "fired_at_seconds": round(seconds, 3)})  # fmt: skip

    def _run(self, generation: int) -> None:
        """The timer thread: fire each timed event when its second comes."""
        with self._lock:
            while generation == self._generation:
                timed = [e.at_seconds for e in self._pending if e.at_seconds is not None]
                if not timed:
                    return
                wait = self._t0 + min(timed) - time.monotonic()
                if wait > 0:
                    self._wake.wait(wait)
                    continue
                self._fire_due()

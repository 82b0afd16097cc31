"""Device events a task schedules during its episode: a text message or a call coming in, a notification, an
e-mail, a calendar reminder, a file appearing on the phone or the desktop.

An event fires after the agent's step ``at_step`` (1 = after the first step), or once ``at_seconds`` of
episode time have passed: in lock-step one second per step plus the seconds of each ``wait``, in real time
(``realtime=True``) the wall clock since reset. The env applies it through the device's own mechanisms
(:mod:`crab_gym.envs.events`). Events are plain data, so a task file can declare them:
``{"kind": "sms", "at_step": 2, "params": {"sender": "555-123-4567", "body": "Your code is 4711"}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = ["EVENT_KINDS", "DeviceEvent", "EventError"]

EVENT_KINDS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    # kind: (its device, None: named by the "device" param; the params it needs, all strings)
    "sms": ("android", ("sender", "body")),
    "call": ("android", ("number",)),
    "notification": ("android", ("title", "text")),
    "email": ("android", ("sender", "subject", "body")),
    "calendar_reminder": ("android", ("title", "date", "start")),
    "file": (None, ("device", "path", "content")),
}
FILE_DEVICES = ("android", "ubuntu")


class EventError(ValueError):
    """A malformed event; the message names the field."""


@dataclass(frozen=True)
class DeviceEvent:
    """One scheduled event: its ``kind`` (:data:`EVENT_KINDS`), string ``params``, and when."""

    kind: str
    params: Mapping[str, str] = field(default_factory=dict)
    at_step: int | None = None
    at_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise EventError(f"kind: {self.kind!r} is not one of {', '.join(EVENT_KINDS)}")
        need = EVENT_KINDS[self.kind][1]
        missing = [p for p in need if not isinstance(self.params.get(p), str)]
        extra = sorted(set(self.params) - set(need))
        if missing or extra:
            raise EventError(f"params: a {self.kind} event needs strings {list(need)}; missing {missing}, "
                             f"unknown {extra}")  # fmt: skip
        if self.kind == "file" and self.params["device"] not in FILE_DEVICES:
            raise EventError(f"params.device: a file appears on {' or '.join(FILE_DEVICES)}")
        if self.kind == "calendar_reminder":
            try:
                datetime.strptime(f"{self.params['date']} {self.params['start']}", "%Y-%m-%d %H:%M")
            except ValueError:
                raise EventError("params.date, params.start: YYYY-MM-DD and HH:MM") from None
        if (self.at_step is None) == (self.at_seconds is None):
            raise EventError("at_step or at_seconds: give exactly one")
        if self.at_step is not None and (
            isinstance(self.at_step, bool) or not isinstance(self.at_step, int) or self.at_step < 1
        ):
            raise EventError(f"at_step: an integer >= 1 (after that step), got {self.at_step!r}")
        if self.at_seconds is not None and (
            isinstance(self.at_seconds, bool) or not isinstance(self.at_seconds, (int, float))
            or not 0 < self.at_seconds <= 3600
        ):  # fmt: skip
            raise EventError(f"at_seconds: a number in (0, 3600], got {self.at_seconds!r}")

    @property
    def device(self) -> str:
        """The device the event happens on."""
        return EVENT_KINDS[self.kind][0] or self.params["device"]

    def due(self, step: int, seconds: float) -> bool:
        """Whether it has come due after ``step`` steps and ``seconds`` of episode time."""
        if self.at_step is not None:
            return step >= self.at_step
        return self.at_seconds is not None and seconds >= self.at_seconds

    def to_json(self) -> dict[str, Any]:
        when = {"at_step": self.at_step} if self.at_step is not None else {"at_seconds": self.at_seconds}
        return {"kind": self.kind, **when, "params": dict(self.params)}

    @classmethod
    def from_json(cls, obj: Any) -> DeviceEvent:
        """The inverse of :meth:`to_json`; EventError names the field at fault."""
        if not isinstance(obj, Mapping):
            raise EventError("must be an object with kind, params and at_step or at_seconds")
        unknown = sorted(set(obj) - {"kind", "params", "at_step", "at_seconds"})
        if unknown:
            raise EventError(f"unknown fields {unknown}")
        params = obj.get("params", {})
        if not isinstance(params, Mapping):
            raise EventError("params: must be an object of strings")
        return cls(str(obj.get("kind")), dict(params), obj.get("at_step"), obj.get("at_seconds"))

"""Device slots: a small integer per env, exclusive on its machine, that picks the env's devices when
several of a kind are listed, e.g. ``backends={"android": ["adb:emulator-5554", "adb:emulator-5556"]}``.

Slots are per node. Each node has its own devices (X displays and users, adb phones), so a slot is held by a
file lock in the node's /tmp, like the desktop's X slots (``envs.desktop.backends.session_slot.Slot``).
``flock`` locks belong to an open file, so two envs in one process exclude each other as two processes do,
and a process that dies frees its slots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from crab_gym.envs.slot_lock import SlotLock

__all__ = ["MAX_SLOTS", "DeviceSlot", "resolve_backends", "slot_limit"]

MAX_SLOTS = 64


class DeviceSlot:
    """An exclusive slot number on this machine: ``prefer`` if it is free, else the next free one after it
    (wrapping round below ``limit``). ``release()`` (or the process's exit) frees it."""

    def __init__(self, prefer: int = 0, limit: int = MAX_SLOTS) -> None:
        if not 1 <= limit <= MAX_SLOTS:
            raise ValueError(f"slot limit must be in 1..{MAX_SLOTS}, got {limit}")
        start = prefer % limit
        self._lock = SlotLock("device-slot", [*range(start, limit), *range(start)])
        if self._lock.index is None:
            raise RuntimeError(f"no free device slot on this machine (all {limit} are held)")
        self.index: int = self._lock.index

    def release(self) -> None:
        """Free the slot (idempotent)."""
        self._lock.release()

    def __repr__(self) -> str:
        return f"DeviceSlot({self.index})"


def _check(backends: Mapping[str, Any] | None) -> dict[str, str | list[str]]:
    out: dict[str, str | list[str]] = {}
    for device, value in dict(backends or {}).items():
        if isinstance(value, str):
            out[device] = value
        elif isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
            out[device] = list(value)
        else:
            raise ValueError(
                f"backends[{device!r}]: {value!r} is neither a backend string nor a non-empty list of them "
                "(one per device slot)"
            )
    return out


def slot_limit(backends: Mapping[str, Any] | None) -> int:
    """How many slots the backends allow: the length of the shortest per-slot list (``MAX_SLOTS`` if none)."""
    lists = [len(v) for v in _check(backends).values() if isinstance(v, list)]
    return min([MAX_SLOTS, *lists])


def resolve_backends(backends: Mapping[str, Any] | None, slot: int) -> dict[str, str]:
    """The backend string of every device for ``slot``: a list gives its ``slot``-th entry, a string is
    the same for every slot."""
    out: dict[str, str] = {}
    for device, value in _check(backends).items():
        if isinstance(value, list):
            if slot >= len(value):
                raise ValueError(f"backends[{device!r}] lists {len(value)} devices, none for slot {slot}")
            out[device] = value[slot]
        else:
            out[device] = value
    return out

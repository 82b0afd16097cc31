"""Saving and loading device state: the protocol a device implements, the errors, and state files.

A device's state is a plain, picklable value from ``save_state()`` that its ``load_state()`` takes back. A
device restored by a :class:`Replay` (the desktop on Xvfb) is loaded onto the start of its task: the env
resets it and runs the task's setup first, then the device replays what it did since. CrabEnv puts the
devices' states, the task, the graph's progress and the RNG into one :class:`~crab_gym.env_state.EnvState`.
"""

from __future__ import annotations

import collections
import importlib
import io
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from crab_gym.envs.base import DeviceError

__all__ = [
    "Replay",
    "RestoreError",
    "StateError",
    "StateUnsupported",
    "Stateful",
    "read_state",
    "state_class",
    "write_state",
]

MAGIC = b"crab-gym state 1\n"
# The classes a state file may hold: a state file is data, so unpickling builds these and nothing else.
_CLASSES: dict[tuple[str, str], type] = {
    ("builtins", t.__name__): t for t in (set, frozenset, bytearray, complex, range, slice)
} | {("collections", "deque"): collections.deque}
# The modules that register the classes of every device's state: imported (this list only) when a state file
# names a class not yet registered, so a file reads in a process that has not made an env yet.
REGISTERING_MODULES = (
    "crab_gym.env_state",
    "crab_gym.envs.android.subenv",
    "crab_gym.envs.desktop.backends.vm_states",
)


def state_class(cls: type) -> type:
    """Allow ``cls`` in state files (a decorator for the classes a state is made of)."""
    _CLASSES[(cls.__module__, cls.__qualname__)] = cls
    return cls


class StateError(ValueError):
    """A state that cannot be loaded here: another env id, task set or version, or a corrupt state file."""


class StateUnsupported(StateError):
    """The device's backend cannot save or load its state (a real phone over adb, without a snapshot)."""


class RestoreError(DeviceError):
    """A device could not be brought to a saved state; the env's episode is over and the next ``reset()``
    recovers (never a silently different state)."""


@runtime_checkable
class Stateful(Protocol):
    """A device whose state can be saved and loaded."""

    def save_state(self) -> Any:
        """The device's state now: a picklable value."""

    def load_state(self, state: Any) -> None:
        """Bring the device to ``state``; RestoreError if it cannot."""


@state_class
@dataclass(frozen=True)
class Replay:
    """A device state kept as what the device did since its task's setup, and what its screen showed then.

    ``steps``: (action name, params) in order; ``frame``: a digest of the screen at the save, which the
    replay must reproduce.
    """

    seed: int | None
    steps: tuple[tuple[str, dict[str, Any]], ...] = ()
    frame: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def write_state(path: str | Path, state: Any) -> None:
    """Write a state to ``path`` (pickle behind a short header)."""
    Path(path).write_bytes(MAGIC + pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))


def read_state(path: str | Path) -> Any:
    """A state written by :func:`write_state`; StateError naming the file if it is not one or is cut short."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise StateError(f"{path}: cannot read the state file: {e.strerror or e}") from e
    if not data.startswith(MAGIC):
        raise StateError(f"{path}: not a crab-gym state file (bad header)")
    try:
        return _Unpickler(io.BytesIO(data[len(MAGIC) :])).load()
    except StateError as e:
        raise StateError(f"{path}: {e}") from None
    except Exception as e:  # a truncated or corrupt pickle raises any of several types
        raise StateError(f"{path}: corrupt or truncated state file ({type(e).__name__})") from e


class _Unpickler(pickle.Unpickler):
    """Builds only the classes of :data:`_CLASSES`: loading a state file runs no code."""

    def find_class(self, module: str, name: str) -> Any:
        cls = _CLASSES.get((module, name))
        if cls is None and module.startswith("crab_gym."):
            for registering in REGISTERING_MODULES:
                try:
                    importlib.import_module(registering)
                except ImportError:  # an extra that is not installed (libvirt): its states cannot be here
                    pass
            cls = _CLASSES.get((module, name))
        if cls is None:
            raise StateError(f"holds {module}.{name}, which is not part of a state")
        return cls

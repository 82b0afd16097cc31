"""The VM desktop's saved states: internal snapshots of its domain (``savevm`` / ``loadvm``), by name.

A snapshot holds the guest's RAM, devices and disk in the domain's qcow2 overlay (about 520 MB for the
desktop guest), so a session keeps the most recent ``KEEP`` (``$CRAB_GYM_VM_KEEP_STATES``, default 8) and
deletes them all when it closes.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import Any

from crab_gym.envs.state import StateError, state_class
from crab_gym.vm.domain import hmp, save_snapshot

__all__ = ["KEEP", "VMState", "VMStates"]


def _keep() -> int:
    raw = os.environ.get("CRAB_GYM_VM_KEEP_STATES", "8")
    if not raw.strip().isdigit() or int(raw) < 1:
        raise ValueError(f"CRAB_GYM_VM_KEEP_STATES must be a whole number >= 1, not {raw!r}")
    return int(raw)


KEEP = _keep()  # internal snapshots a session keeps


@state_class
@dataclass(frozen=True)
class VMState:
    """A saved desktop in a VM: an internal snapshot of this domain, by name."""

    domain_uuid: str
    snapshot: str


class VMStates:
    """The snapshots one session took, oldest first. VMError / libvirtError propagate to the session."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def save(self, dom: Any) -> VMState:
        """``savevm`` under a new name; the oldest of more than KEEP is deleted."""
        name = f"crab-state-{uuid.uuid4().hex[:12]}"
        save_snapshot(dom, name)
        self.names.append(name)
        while len(self.names) > KEEP:
            hmp(dom, f"delvm {self.names.pop(0)}")
        return VMState(dom.UUIDString(), name)

    def snapshot_of(self, state: Any, dom: Any, domain_name: str) -> str:
        """The snapshot to load for ``state``; StateError if it is not one this session keeps."""
        if not isinstance(state, VMState):
            raise StateError(f"not a VM state ({type(state).__name__})")
        if state.domain_uuid != dom.UUIDString() or state.snapshot not in self.names:
            raise StateError(f"the VM state {state.snapshot} is not one this desktop ({domain_name}) keeps")
        return state.snapshot

    def drop(self, dom: Any, errors: tuple[type[BaseException], ...]) -> None:
        """Delete every snapshot taken (best effort: ``errors`` are ignored, a stopped domain is left)."""
        names, self.names = self.names, []
        for name in names:
            try:
                if dom is not None and dom.isActive():
                    hmp(dom, f"delvm {name}")
            except errors:
                pass

"""Restoring the desktop on Xvfb by replay: its actions since the task's setup, done again from the start.

A process-tree checkpoint (CRIU) would restore the apps' memory too, but cannot run here (docs/state.md). A
replay brings back what the actions did, in the order they did it, with the same settling after each as a
step; what it cannot bring back is what did not come from those actions (wall-clock times an app shows, an
app's timing-dependent choices). So the screen is checked: a replayed desktop whose frame differs from the
frame at the save is a :class:`~crab_gym.envs.state.RestoreError`, never a silently different state.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import numpy as np

from crab_gym.core.actions import InvalidAction
from crab_gym.envs.state import Replay, RestoreError

if TYPE_CHECKING:
    from crab_gym.envs.desktop import DesktopEnv

__all__ = ["frame_digest", "replay"]

SETTLE_TRIES = 3  # extra settles a replayed desktop gets before its frame must match


def frame_digest(frame: np.ndarray) -> str:
    """A short digest of a frame's pixels."""
    return hashlib.blake2b(np.ascontiguousarray(frame).tobytes(), digest_size=16).hexdigest()


def replay(desk: DesktopEnv, state: Replay) -> None:
    """Do ``state``'s actions again on ``desk`` (reset, its task set up), settling after each as a step
    does; RestoreError if the screen then differs from the one saved."""
    for name, params in state.steps:
        try:
            desk.execute(desk.action(name), params)
        except InvalidAction:
            pass  # it was invalid when it was done too: it touched nothing then either
        desk.settle()
    for _ in range(SETTLE_TRIES + 1):
        if frame_digest(desk.screenshot()) == state.frame:
            return
        desk.settle(quiet=0.2)
    raise RestoreError(
        f"ubuntu: replaying {len(state.steps)} actions did not bring the screen back to the saved one "
        "(an app drew something that depends on time, not on the actions); reset() to go on"
    )

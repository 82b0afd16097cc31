"""Reward modes: small functions of (completion ratio before, after, success)."""

from __future__ import annotations

from collections.abc import Callable


def dense(before: float, after: float, success: bool) -> float:
    """Growth of the completion ratio: an episode's return is its final completion ratio."""
    return after - before


def sparse(before: float, after: float, success: bool) -> float:
    """1 on the step that completes the task, else 0 (the episode ends on success)."""
    return 1.0 if success else 0.0


REWARDS: dict[str, Callable[[float, float, bool], float]] = {"dense": dense, "sparse": sparse}

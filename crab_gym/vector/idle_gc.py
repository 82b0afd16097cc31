"""Garbage collection in a worker's idle time rather than inside the steps the other workers wait for.

Python's cyclic collector runs whenever allocations pass a threshold, inside whichever step makes them: in a
lock-step vector env every worker then waits for it (a phone worker's young collections take 0.2-4 ms, a
full one 20-30 ms, as long as forty taps). A worker instead freezes what exists once its envs are made
(``gc.freeze``: objects that live as long as the worker, never scanned again), keeps the automatic collector
off while it steps or resets (:func:`deferred`), and once the answer is sent runs the collection the
thresholds ask for (:func:`collect_due`), while the main process and the slower worker still work.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collect_due", "deferred", "settle"]


def settle() -> None:
    """Collect once, then keep everything alive now out of later collections."""
    gc.collect()
    gc.freeze()


@contextmanager
def deferred() -> Iterator[None]:
    """No automatic collection inside the block (if there was any before it); :func:`collect_due` after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def collect_due() -> int | None:
    """Run the collection the thresholds ask for (the oldest generation whose count reached its threshold),
    if any; the generation collected, or None. Nothing while collection is off (an env may have turned it
    off)."""
    if not gc.isenabled():
        return None
    counts, thresholds = gc.get_count(), gc.get_threshold()
    for generation in (2, 1, 0):
        if thresholds[generation] and counts[generation] >= thresholds[generation]:
            gc.collect(generation)
            return generation
    return None

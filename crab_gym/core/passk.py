"""Reliability over repeated episodes of a task: pass^k (solved in all k tries) and pass@k (in at least one).

With n episodes of a task, c of them successful, and k <= n, the unbiased estimators are
pass@k = 1 - C(n-c, k) / C(n, k) (Chen et al. 2021, HumanEval) and pass^k = C(c, k) / C(n, k) (Yao et al.
2024, tau-bench); with n == k they are exactly "at least one of the k succeeded" and "all k succeeded".
A set's figure is the mean over its tasks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import Protocol

__all__ = ["PassK", "pass_at_k", "pass_hat_k", "pass_k"]


class _Scored(Protocol):
    task_id: str
    success: bool


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k episodes drawn from the n (c successful) succeeded."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all k episodes drawn from the n (c successful) succeeded."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


@dataclass(frozen=True)
class PassK:
    """``k`` (the fewest episodes any task has), the number of ``tasks``, and per k' = 1..k the mean over
    tasks of pass^k' (``hat``) and pass@k' (``at``); ``hat[-1]``, ``at[-1]``: the set's pass^k, pass@k."""

    k: int
    tasks: int
    hat: Sequence[float]
    at: Sequence[float]


def pass_k(records: Iterable[_Scored], k: int | None = None) -> PassK:
    """pass^k and pass@k of episode records grouped by task. ``k`` defaults to the fewest episodes a task
    has; a larger ``k`` than that is a ValueError naming the task short of episodes."""
    counts: dict[str, list[int]] = {}
    for r in records:
        n_c = counts.setdefault(r.task_id, [0, 0])
        n_c[0] += 1
        n_c[1] += bool(r.success)
    if not counts:
        raise ValueError("pass_k() needs at least one episode record")
    fewest = min(counts.items(), key=lambda item: item[1][0])
    k = fewest[1][0] if k is None else k
    if not 1 <= k <= fewest[1][0]:
        raise ValueError(f"k={k}: task {fewest[0]!r} has {fewest[1][0]} episodes; k must be in 1..that")
    hat = [sum(pass_hat_k(n, c, j) for n, c in counts.values()) / len(counts) for j in range(1, k + 1)]
    at = [sum(pass_at_k(n, c, j) for n, c in counts.values()) / len(counts) for j in range(1, k + 1)]
    return PassK(k, len(counts), hat, at)

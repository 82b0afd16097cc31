"""Episode records and the benchmark's aggregate metrics (SR, CR, EE, CE, termination reasons)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from crab_gym.core.passk import pass_k

__all__ = [
    "TERMINATION_REASONS",
    "EpisodeRecord",
    "Metrics",
    "aggregate",
    "format_table",
    "records_from_jsonl",
    "records_to_jsonl",
]

TERMINATION_REASONS = (
    "success",
    "false_completion",
    "step_limit",
    "invalid_action_limit",
    "env_error",
    "agent_error",
)
"""Why an episode ended; every reason but ``success`` is a failure (``agent_error``: the agent could not
choose an action, e.g. its model API refused for good)."""

FAILURE_REASONS = TERMINATION_REASONS[1:]


@dataclass
class EpisodeRecord:
    """What one episode produced; ``to_dict`` names the return ``"return"``.

    ``actions`` counts valid actions executed, ``steps`` all env steps (invalid ones included),
    ``tokens`` the agent's token usage if it reports one.
    """

    task_id: str
    success: bool
    completion_ratio: float
    actions: int
    steps: int
    invalid_actions: int
    tokens: int | None
    termination_reason: str
    return_: float
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = f"episode record for task {self.task_id!r}"
        if self.termination_reason not in TERMINATION_REASONS:
            raise ValueError(
                f"{where}: termination_reason {self.termination_reason!r} is not one of {TERMINATION_REASONS}"
            )
        if self.success != (self.termination_reason == "success"):
            raise ValueError(
                f"{where}: success={self.success} contradicts termination_reason={self.termination_reason!r}"
            )
        if not 0.0 <= self.completion_ratio <= 1.0:
            raise ValueError(f"{where}: completion_ratio must be in [0, 1], got {self.completion_ratio}")
        for name in ("actions", "steps", "invalid_actions"):
            if getattr(self, name) < 0:
                raise ValueError(f"{where}: {name} must be >= 0, got {getattr(self, name)}")
        if self.tokens is not None and self.tokens < 0:
            raise ValueError(f"{where}: tokens must be >= 0 or None, got {self.tokens}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``return_`` is stored as ``"return"``)."""
        out = dataclasses.asdict(self)
        out["return"] = out.pop("return_")
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeRecord:
        """The inverse of :meth:`to_dict`; unknown or missing keys raise ``ValueError``."""
        data = dict(data)
        if "return" in data:
            data["return_"] = data.pop("return")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        missing = {f.name for f in dataclasses.fields(cls) if f.name != "extra"} - set(data)
        if unknown or missing:
            raise ValueError(
                f"episode record {data.get('task_id', '?')!r}: "
                f"unknown keys {sorted(unknown)}, missing keys {sorted(missing)}"
            )
        return cls(**data)


@dataclass
class Metrics:
    """Aggregate of episode records; see :func:`aggregate` for the formulas."""

    n: int
    SR: float
    CR: float
    EE: float
    CE: float | None
    termination_shares: dict[str, float]
    mean_steps: float
    k: int = 1
    pass_hat_k: float = 0.0
    pass_at_k: float = 0.0
    pass_curve: dict[str, list[float]] = field(default_factory=dict)
    questions: float = 0.0
    extra_questions: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dataclasses.asdict(self)


def aggregate(records: Iterable[EpisodeRecord]) -> Metrics:
    """Aggregate episodes into the benchmark metrics.

    Over the N episodes, with CR_i the final completion ratio of episode i:

    - SR (success rate) = #successful / N
    - CR (completion ratio) = mean of CR_i
    - EE (execution efficiency) = mean of CR_i / actions_i, where an episode with 0 valid actions counts as 0
    - CE (cost efficiency) = mean of CR_i / tokens_i over the episodes that report tokens (0 tokens counts
      as 0); ``None`` when none do
    - termination_shares[r] = share of the FAILED episodes that ended for reason r, for r in
      false_completion, step_limit, invalid_action_limit, env_error, agent_error (all 0 when no episode
      failed)
    - mean_steps = mean of steps_i
    - k = the fewest episodes a task has; pass_hat_k (pass^k) = mean over tasks of the chance that k of its
      episodes all succeeded, pass_at_k (pass@k) = that at least one did (:mod:`crab_gym.core.passk`);
      pass_curve = {"pass^k": [...], "pass@k": [...]} for k' = 1..k
    - questions = mean ask_user questions per episode; extra_questions = mean of max(0, questions_i -
      needed_i), needed_i the questions the task's facts take (both from ``extra``; 0 when absent)
    """
    records = list(records)
    if not records:
        raise ValueError("aggregate() needs at least one episode record")
    n = len(records)
    with_tokens = [r for r in records if r.tokens is not None]
    failed = [r for r in records if not r.success]
    reliability = pass_k(records)
    return Metrics(
        n=n,
        SR=sum(r.success for r in records) / n,
        CR=sum(r.completion_ratio for r in records) / n,
        EE=sum(_ratio(r.completion_ratio, r.actions) for r in records) / n,
        CE=(
            sum(_ratio(r.completion_ratio, r.tokens) for r in with_tokens) / len(with_tokens)
            if with_tokens
            else None
        ),
        termination_shares={
            reason: (sum(r.termination_reason == reason for r in failed) / len(failed) if failed else 0.0)
            for reason in FAILURE_REASONS
        },
        mean_steps=sum(r.steps for r in records) / n,
        k=reliability.k,
        pass_hat_k=reliability.hat[-1],
        pass_at_k=reliability.at[-1],
        pass_curve={"pass^k": list(reliability.hat), "pass@k": list(reliability.at)},
        questions=sum(_asked(r) for r in records) / n,
        extra_questions=sum(max(0, _asked(r) - int(r.extra.get("questions_needed", 0))) for r in records) / n,
    )


def _asked(record: EpisodeRecord) -> int:
    return int(record.extra.get("questions", 0))


def _ratio(value: float, count: int | None) -> float:
    return value / count if count else 0.0


def format_table(metrics: Metrics, title: str = "crab-gym results", width: int = 80) -> str:
    """The metrics as a plain-text rich table."""
    from rich.console import Console  # only to print: an env imports this module and never prints
    from rich.table import Table

    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("episodes", str(metrics.n))
    table.add_row("SR  success rate", f"{metrics.SR:.1%}")
    table.add_row("CR  completion ratio", f"{metrics.CR:.1%}")
    table.add_row("EE  CR / action", f"{metrics.EE:.4f}")
    table.add_row("CE  CR / token", "n/a" if metrics.CE is None else f"{metrics.CE:.3g}")
    table.add_row("mean steps", f"{metrics.mean_steps:.1f}")
    if metrics.questions:
        table.add_row("questions  asked per episode", f"{metrics.questions:.2f}")
        table.add_row("extra questions  beyond needed", f"{metrics.extra_questions:.2f}")
    if metrics.k > 1:
        table.add_row(f"pass^{metrics.k}  solved in all {metrics.k}", f"{metrics.pass_hat_k:.1%}")
        table.add_row(f"pass@{metrics.k}  solved in one of {metrics.k}", f"{metrics.pass_at_k:.1%}")
    for reason, share in metrics.termination_shares.items():
        table.add_row(f"failures: {reason}", f"{share:.1%}")
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, force_terminal=False).print(table)
    return buffer.getvalue()


def records_to_jsonl(path: str | os.PathLike[str], records: Iterable[EpisodeRecord]) -> None:
    """Write one JSON object per record per line."""
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")


def records_from_jsonl(path: str | os.PathLike[str]) -> list[EpisodeRecord]:
    """Read records written by :func:`records_to_jsonl`; a bad line raises ``ValueError`` naming it."""
    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(EpisodeRecord.from_dict(json.loads(line)))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path}:{lineno}: {exc}") from None
    return out

"""The pure-Python core of crab-gym: actions, checks, the graph evaluator and metrics.

The names below are imported from their modules when first asked for: importing one module of the core
(``crab_gym.core.graph``) runs this file, and an env that never reports metrics needs no metrics module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crab_gym.core.actions import (
        REQUIRED,
        ActionSpec,
        Direction,
        Distance,
        InvalidAction,
        ParamSpec,
        Point,
        action,
    )
    from crab_gym.core.evaluators import (
        EVALUATORS,
        Check,
        CheckResult,
        EvaluatorFactory,
        check_from_json,
        evaluator,
        get_evaluator,
    )
    from crab_gym.core.graph import GraphEvaluator
    from crab_gym.core.metrics import (
        TERMINATION_REASONS,
        EpisodeRecord,
        Metrics,
        aggregate,
        format_table,
        records_from_jsonl,
        records_to_jsonl,
    )

_HOME = {
    "REQUIRED": "crab_gym.core.actions",
    "ActionSpec": "crab_gym.core.actions",
    "Direction": "crab_gym.core.actions",
    "Distance": "crab_gym.core.actions",
    "InvalidAction": "crab_gym.core.actions",
    "ParamSpec": "crab_gym.core.actions",
    "Point": "crab_gym.core.actions",
    "action": "crab_gym.core.actions",
    "EVALUATORS": "crab_gym.core.evaluators",
    "Check": "crab_gym.core.evaluators",
    "CheckResult": "crab_gym.core.evaluators",
    "EvaluatorFactory": "crab_gym.core.evaluators",
    "check_from_json": "crab_gym.core.evaluators",
    "evaluator": "crab_gym.core.evaluators",
    "get_evaluator": "crab_gym.core.evaluators",
    "GraphEvaluator": "crab_gym.core.graph",
    "TERMINATION_REASONS": "crab_gym.core.metrics",
    "EpisodeRecord": "crab_gym.core.metrics",
    "Metrics": "crab_gym.core.metrics",
    "aggregate": "crab_gym.core.metrics",
    "format_table": "crab_gym.core.metrics",
    "records_from_jsonl": "crab_gym.core.metrics",
    "records_to_jsonl": "crab_gym.core.metrics",
}


def __getattr__(name: str) -> Any:
    """A name of ``__all__``, from the module that defines it (imported now if it is not yet)."""
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EVALUATORS",
    "REQUIRED",
    "TERMINATION_REASONS",
    "ActionSpec",
    "Check",
    "CheckResult",
    "Direction",
    "Distance",
    "EpisodeRecord",
    "EvaluatorFactory",
    "GraphEvaluator",
    "InvalidAction",
    "Metrics",
    "ParamSpec",
    "Point",
    "action",
    "aggregate",
    "check_from_json",
    "evaluator",
    "format_table",
    "get_evaluator",
    "records_from_jsonl",
    "records_to_jsonl",
]

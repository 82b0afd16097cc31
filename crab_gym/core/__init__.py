"""The pure-Python core of crab-gym: actions, checks, the graph evaluator and metrics."""

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

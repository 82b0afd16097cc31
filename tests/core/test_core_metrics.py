"""Episode records and aggregate metrics on handmade records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crab_gym.core import (
    TERMINATION_REASONS,
    EpisodeRecord,
    aggregate,
    format_table,
    records_from_jsonl,
    records_to_jsonl,
)


def record(**overrides: Any) -> EpisodeRecord:
    fields: dict[str, Any] = {
        "task_id": "t",
        "success": False,
        "completion_ratio": 0.0,
        "actions": 0,
        "steps": 0,
        "invalid_actions": 0,
        "tokens": None,
        "termination_reason": "step_limit",
        "return_": 0.0,
        "seconds": 1.0,
    }
    fields.update(overrides)
    return EpisodeRecord(**fields)


RECORDS = [
    record(task_id="a", success=True, completion_ratio=1.0, actions=4, steps=5, tokens=1000,
           termination_reason="success", return_=1.0),
    record(task_id="b", completion_ratio=0.5, actions=10, steps=15, invalid_actions=5, tokens=2000,
           termination_reason="step_limit", return_=0.5),
    record(task_id="c", completion_ratio=0.25, actions=2, steps=2, tokens=None,
           termination_reason="false_completion", return_=0.25),
    record(task_id="d", completion_ratio=0.0, actions=0, steps=3, invalid_actions=3, tokens=0,
           termination_reason="invalid_action_limit"),
]  # fmt: skip


def test_aggregate_formulas() -> None:
    m = aggregate(RECORDS)
    assert m.n == 4
    assert m.SR == pytest.approx(1 / 4)
    assert m.CR == pytest.approx((1.0 + 0.5 + 0.25 + 0.0) / 4)
    assert m.EE == pytest.approx((1.0 / 4 + 0.5 / 10 + 0.25 / 2 + 0.0) / 4)
    # CE over the three records that report tokens; 0 tokens counts as 0
    assert m.CE == pytest.approx((1.0 / 1000 + 0.5 / 2000 + 0.0) / 3)
    assert m.termination_shares == pytest.approx(
        {
            "false_completion": 1 / 3,
            "step_limit": 1 / 3,
            "invalid_action_limit": 1 / 3,
            "env_error": 0.0,
            "agent_error": 0.0,
        }
    )
    assert set(m.termination_shares) == set(TERMINATION_REASONS) - {"success"}
    assert m.mean_steps == pytest.approx((5 + 15 + 2 + 3) / 4)


def test_ce_is_none_without_tokens_and_shares_zero_without_failures() -> None:
    m = aggregate([record(success=True, termination_reason="success", completion_ratio=1.0, actions=2)])
    assert m.CE is None
    assert m.SR == 1.0 and m.EE == 0.5
    assert set(m.termination_shares.values()) == {0.0}


def test_aggregate_rejects_empty() -> None:
    with pytest.raises(ValueError, match="at least one"):
        aggregate([])


def test_record_validation() -> None:
    with pytest.raises(ValueError, match="termination_reason 'bored'"):
        record(termination_reason="bored")
    with pytest.raises(ValueError, match="contradicts"):
        record(success=True, termination_reason="step_limit")
    with pytest.raises(ValueError, match="completion_ratio"):
        record(completion_ratio=1.5)


def test_dict_and_jsonl_round_trip(tmp_path: Path) -> None:
    recs = [*RECORDS, record(task_id="ü", termination_reason="env_error", extra={"error": "adb gone"})]
    d = recs[0].to_dict()
    assert d["return"] == 1.0 and "return_" not in d
    assert EpisodeRecord.from_dict(d) == recs[0]
    path = tmp_path / "records.jsonl"
    records_to_jsonl(path, recs)
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(recs)
    assert records_from_jsonl(path) == recs


def test_from_dict_names_bad_keys(tmp_path: Path) -> None:
    bad = {**RECORDS[0].to_dict(), "colour": "red"}
    with pytest.raises(ValueError, match="colour"):
        EpisodeRecord.from_dict(bad)
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: .*missing keys"):
        records_from_jsonl(path)


def test_format_table() -> None:
    text = format_table(aggregate(RECORDS), title="v0 oracle")
    assert "v0 oracle" in text
    assert "25.0%" in text  # SR
    assert "43.8%" in text  # CR = 0.4375
    assert "false_completion" in text and "33.3%" in text
    assert "\x1b[" not in text, "plain text, no ANSI escapes"

"""pass^k and pass@k: the estimators against counting over every k-subset of the episodes, the exact case
n == k, the metrics and tables that carry them."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from crab_gym.core.metrics import EpisodeRecord, Metrics, aggregate, format_table
from crab_gym.core.passk import pass_at_k, pass_hat_k, pass_k
from crab_gym.report.compare import compare_table
from crab_gym.report.platforms import metrics_by_platform, platform_table


def rec(task: str, ok: bool) -> EpisodeRecord:
    return EpisodeRecord(task, ok, 1.0 if ok else 0.0, 3, 3, 0, None,
                         "success" if ok else "step_limit", 0.0, 1.0)  # fmt: skip


@pytest.mark.parametrize("outcomes", [(1, 0, 1, 1, 0), (0, 0, 0), (1, 1, 1, 1), (0, 1), (1, 0, 0, 0, 0, 1)])
def test_estimators_equal_the_share_of_k_subsets(outcomes: tuple[int, ...]) -> None:
    n, c = len(outcomes), sum(outcomes)
    for k in range(1, n + 1):
        subsets = list(combinations(outcomes, k))
        assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))
        assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


def test_bad_counts_are_errors() -> None:
    for n, c, k in [(3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)]:
        with pytest.raises(ValueError, match=f"n={n}, c={c}, k={k}"):
            pass_at_k(n, c, k)


def test_pass_k_of_three_episodes_per_task() -> None:
    # a: 3/3, b: 1/3, c: 0/3 -> pass^3 = 1/3 (only a), pass@3 = 2/3 (a and b)
    records = (
        [rec("a", True)] * 3 + [rec("b", False), rec("b", True), rec("b", False)] + [rec("c", False)] * 3
    )
    p = pass_k(records)
    assert (p.k, p.tasks) == (3, 3)
    assert p.hat[-1] == pytest.approx(1 / 3) and p.at[-1] == pytest.approx(2 / 3)
    assert p.hat[0] == pytest.approx(4 / 9) and p.at[0] == pytest.approx(4 / 9)  # k = 1: the success rate
    assert list(p.hat) == sorted(p.hat, reverse=True) and list(p.at) == sorted(p.at)
    assert pass_k(records, k=2).hat[-1] == pytest.approx((1 + 0 + 0) / 3)
    with pytest.raises(ValueError, match="k=4: task 'a' has 3 episodes"):
        pass_k(records, k=4)
    # more episodes for one task than k: its figure is the unbiased estimate over its 3-subsets
    uneven = [*records, rec("c", True)]  # c: 1/4 -> pass@3 = 1 - C(3,3)/C(4,3) = 3/4
    assert pass_k(uneven).at[-1] == pytest.approx((1 + 1 + 0.75) / 3)


def test_metrics_tables_and_json_carry_pass_k(tmp_path) -> None:
    records = [
        rec("a", True),
        rec("a", True),
        rec("b", True),
        rec("b", False),
        rec("x", False),
        rec("x", True),
    ]
    platforms = {"a": ("ubuntu",), "b": ("android",), "x": ("ubuntu", "android")}
    by = metrics_by_platform(records, platforms)
    assert (by["desktop"].k, by["desktop"].pass_hat_k, by["desktop"].pass_at_k) == (2, 1.0, 1.0)
    assert (by["android"].pass_hat_k, by["android"].pass_at_k) == (0.0, 1.0)
    assert by["overall"].pass_hat_k == pytest.approx(1 / 3) and by["overall"].pass_at_k == 1.0
    assert by["overall"].pass_curve == {"pass^k": [pytest.approx(4 / 6), pytest.approx(1 / 3)],
                                        "pass@k": [pytest.approx(4 / 6), 1.0]}  # fmt: skip
    again = Metrics(**json.loads(json.dumps(by["overall"].to_dict())))  # metrics.json round trip
    assert again == by["overall"]
    table = platform_table(by)
    assert "pass^k" in table and "pass@k" in table and "33.3%" in table
    assert "pass^k" not in platform_table(metrics_by_platform(records[:1], platforms))  # k = 1: SR says it
    assert "pass^2  solved in all 2" in format_table(by["overall"])
    run = tmp_path / "run"
    run.mkdir()
    metrics = {**by["overall"].to_dict(), "agent": "x", "platforms": {p: m.to_dict() for p, m in by.items()}}
    (run / "metrics.json").write_text(json.dumps(metrics))
    old = tmp_path / "old"  # a run written before pass^k existed: k = 1
    old.mkdir()
    (old / "metrics.json").write_text(json.dumps({k: v for k, v in aggregate(records[:1]).to_dict().items()
                                                  if not k.startswith(("k", "pass"))}))  # fmt: skip
    compared = compare_table([str(run), str(old)])
    assert "pass@k" in compared and compared.count("100.0%") >= 3

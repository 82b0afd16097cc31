"""`crab-gym eval` over the collect machinery: metrics per platform, parallel jobs equal to one, resume,
and runs compared side by side."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from crab_gym.core.metrics import EpisodeRecord
from crab_gym.report import metrics_by_platform, platform_of
from crab_gym.report.compare import compare_table
from crab_gym.runs.eval import run_eval

PHONE = ["contacts_add-0", "sms_send-0", "clock_set_alarm-0"]


def record(task: str, success: bool, cr: float, reason: str) -> EpisodeRecord:
    return EpisodeRecord(task, success, cr, 4, 5, 0, None, reason, cr, 1.0)


def test_metrics_per_platform():
    assert platform_of(("ubuntu", "root")) == "desktop"
    assert platform_of(("android",)) == "android"
    assert platform_of(("android", "ubuntu")) == "cross-device"
    platforms = {"d": ("ubuntu",), "a": ("android",), "x": ("ubuntu", "android")}
    records = [record("d", True, 1.0, "success"), record("a", False, 0.5, "step_limit"),
               record("x", False, 0.0, "env_error"), record("a", True, 1.0, "success")]  # fmt: skip
    by = metrics_by_platform(records, platforms)
    assert list(by) == ["desktop", "android", "cross-device", "overall"]
    assert by["android"].n == 2 and by["android"].SR == 0.5 and by["android"].CR == 0.75
    assert by["cross-device"].termination_shares["env_error"] == 1.0
    assert by["overall"].n == 4 and by["overall"].SR == 0.5
    with pytest.raises(KeyError, match="'zz'"):
        metrics_by_platform([record("zz", True, 1.0, "success")], platforms)


def _outcomes(run) -> list[tuple]:
    lines = (run / "records.jsonl").read_text().splitlines()
    recs = [json.loads(line) for line in lines]
    return sorted((r["task_id"], r["success"], r["completion_ratio"], r["actions"], r["termination_reason"])
                  for r in recs)  # fmt: skip


@pytest.mark.slow  # ~25 s
def test_two_jobs_give_the_same_records_as_one_and_a_rerun_resumes(tmp_path):
    one = run_eval(tmp_path / "one", "Crab-Android-v0", ("android",), "oracle", PHONE, jobs=1, progress=False)
    two = run_eval(tmp_path / "two", "Crab-Android-v0", ("android",), "oracle", PHONE, jobs=2, progress=False)
    assert one["SR"] == two["SR"] == 1.0 and one["platforms"]["android"]["n"] == 3
    assert _outcomes(tmp_path / "one") == _outcomes(tmp_path / "two")
    started = json.loads((tmp_path / "two" / "sms_send-0-e0" / "episode.json").read_text())["started"]
    again = run_eval(
        tmp_path / "two", "Crab-Android-v0", ("android",), "oracle", PHONE, jobs=2, progress=False
    )
    assert again["n"] == 3
    assert json.loads((tmp_path / "two" / "sms_send-0-e0" / "episode.json").read_text())["started"] == started
    report = (tmp_path / "two" / "report.html").read_text()
    assert "view.html" in report and "android" in report and (tmp_path / "two" / "view.html").exists()

    table = compare_table([str(tmp_path / "one"), str(tmp_path / "two")])
    assert table.count("android") == 2 and table.count("100.0%") >= 4
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "metrics.json").write_text("{")
    with pytest.raises(ValueError, match=r"bad/metrics.json: cannot read"):
        compare_table([str(tmp_path / "bad")])

    cli = [sys.executable, "-m", "crab_gym.cli", "compare"]  # the command prints the same table
    res = subprocess.run([*cli, str(tmp_path / "one"), str(tmp_path / "two")], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == table.strip(), res.stderr
    res = subprocess.run([*cli, str(tmp_path / "bad")], capture_output=True, text=True)
    assert res.returncode == 1 and "bad/metrics.json: cannot read" in res.stderr

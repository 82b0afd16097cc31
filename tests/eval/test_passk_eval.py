"""`crab-gym eval --episodes-per-task 2` on the simulated phone: pass^k and pass@k in the printed table,
in metrics.json per platform, and as a plot in report.html."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from eval_support import ORACLE_TASKS


def test_eval_reports_pass_k(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "crab_gym.cli", "eval", "--devices", "android", "--tasks", "v0",
           "--max-steps", "5", "--episodes-per-task", "2", "--quiet", "--out", str(out)]  # fmt: skip
    tasks = tmp_path / "tasks.json"
    from crab_gym.tasks import load_tasks

    tasks.write_text(json.dumps([t.to_json() for t in load_tasks("all") if t.id in ORACLE_TASKS]))
    cmd[cmd.index("v0")] = str(tasks)
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "pass^k" in res.stdout and "pass@k" in res.stdout
    metrics = json.loads((out / "metrics.json").read_text())
    android = metrics["platforms"]["android"]
    # the alarm needs 7 steps > 5: it fails both times, the other two succeed both times
    assert android["n"] == 6 and android["k"] == 2
    assert android["pass_hat_k"] == android["pass_at_k"] == pytest.approx(2 / 3)
    assert android["pass_curve"]["pass@k"] == [pytest.approx(2 / 3)] * 2
    assert metrics["pass_hat_k"] == android["pass_hat_k"]
    html = (out / "report.html").read_text()
    assert re.search(r'data-plot="pass_k">\s*<figcaption>[^<]*</figcaption>\s*<img src="data:image/png', html)
    assert "<th>pass^k</th>" in html


def test_eval_counts_questions(tmp_path):
    from crab_gym.core.metrics import Metrics
    from crab_gym.report.platforms import platform_table
    from crab_gym.runs.eval import run_eval

    tasks = ["ask_sms_boss-0", "ask_contact_neighbour-0"]  # one fact and two
    metrics = run_eval(tmp_path, "Crab-Android-v0", ("android",), "oracle", tasks, progress=False, view=False)
    assert metrics["SR"] == 1.0 and metrics["questions"] == 1.5 and metrics["extra_questions"] == 0.0
    assert "<th>questions</th>" in (tmp_path / "report.html").read_text()
    table = platform_table({p: Metrics(**m) for p, m in metrics["platforms"].items()})
    assert "questions" in table and "1.50" in table

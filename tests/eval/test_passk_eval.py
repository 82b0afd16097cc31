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

"""bench/density.py at its smallest: one phone, one short window, one cold start; the figures come out whole
(the script's measurements themselves are read by people, not asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_density_script_prints_its_table_and_writes_its_figures(tmp_path):
    out = tmp_path / "density.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(ROOT / "bench" / "density.py"), "--phone", "1", "--desktop", "",
           "--seconds", "0.3", "--rounds", "1", "--cold", "1", "--json", str(out),
           "--png", str(tmp_path / "d.png")]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "| phone | 1 | 1 |" in res.stdout and "phone: cold start" in res.stdout
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert row["efficiency"] == 1.0  # N = 1 is its own reference
    assert row["pss_mb_per_env"] > row["modules_mb_per_worker"] > 0
    assert "python: heap (objects, caches)" in row["pss_mb_by_kind_per_env"]
    assert data["cold"]["phone"]["cold_start_s"] > data["cold"]["phone"]["reset"] > 0
    assert (tmp_path / "d.png").stat().st_size > 0


@pytest.mark.slow
def test_density_script_runs_the_crab_case(tmp_path):
    """Crab-v0 (desktop and phone in one env, one per worker): its row, memory split and cold start."""
    out = tmp_path / "density.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(ROOT / "bench" / "density.py"), "--phone", "", "--desktop", "", "--crab", "1",
           "--seconds", "0.3", "--rounds", "1", "--cold", "1", "--json", str(out)]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "| crab | 1 | 1 |" in res.stdout and "crab: cold start" in res.stdout
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert {"Xvfb", "python: heap (objects, caches)"} <= set(row["pss_mb_by_kind_per_env"])
    assert data["cold"]["crab"]["cold_start_s"] > data["cold"]["crab"]["reset"] > 0

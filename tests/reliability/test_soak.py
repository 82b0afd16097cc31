"""bench/soak.py for 3 minutes (1.5 in one env, 1.5 in 2 async envs): random valid actions with resets on
Crab-v0, and after close no file descriptor, process, X display or session user of the run is left.

Memory is reported, not asserted: in 3 minutes the slope is dominated by applications the random agent
happens to launch (LibreOffice alone is 200-300 MB) and by warm-up, so a bound tight enough to catch a leak
would fail at random and a loose one would catch nothing. The memory verdict is the 60-minute run
(``.venv/bin/python bench/soak.py --minutes 60 --png docs/img/soak.png``), read off its slope and curve.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("psutil", reason="bench/soak.py measures processes with psutil")

pytestmark = [pytest.mark.soak, pytest.mark.slow, pytest.mark.timeout(900)]

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


@pytest.mark.parametrize("vector", [False, True], ids=["1 env", "2 async envs"])
def test_soak_leaves_nothing_behind(tmp_path, vector):
    out = tmp_path / "soak.json"
    argv = [sys.executable, str(SOAK), "--minutes", "1.5", "--interval", "10", "--json", str(out)]
    argv += ["--vector"] if vector else []
    run = subprocess.run(argv, capture_output=True, text=True, timeout=800)
    print(run.stdout)
    assert out.exists(), run.stderr[-3000:]
    report = json.loads(out.read_text())
    assert run.returncode == 0, f"{report['failed']}\n{run.stderr[-2000:]}"
    assert not any(report["leaks"].values()), report["leaks"]
    assert report["steps"] > 0 and report["episodes"] > 0 and len(report["samples"]) >= 5
    during = report["samples"][-1]
    assert len(during["displays"]) == (2 if vector else 1) and during["users"], "the sessions were measured"
    print("MB/hour over the second half:", report["slopes_mb_per_hour"])

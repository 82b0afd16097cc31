"""The code stays clean: ruff check and format everywhere (crab_gym, tests, bench), and no module of crab_gym
over 500 lines; mypy on the whole package is tests/test_mypy.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "argv",
    [
        ["ruff", "check", "crab_gym", "tests", "bench"],
        ["ruff", "format", "--check", "crab_gym", "tests", "bench"],
    ],
    ids=["ruff-check", "ruff-format"],
)
def test_tool_is_clean(argv):
    res = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


MAX_LINES = 500  # one concept per module: past this, split it (see the task templates, one module per app)


def test_no_module_is_over_500_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((ROOT / "crab_gym").rglob("*.py"))
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them by concept): {long}"

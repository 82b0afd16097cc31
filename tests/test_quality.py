"""The code stays clean: ruff check and format everywhere (crab_gym, tests, bench); mypy: test_mypy.py."""

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

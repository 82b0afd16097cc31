"""Markers of the reliability tier (the lead registers them in pyproject.toml too)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "faults: devices killed mid-episode (CI-sized by default; CRAB_FAULTS=100 for 100 each)"
    )
    config.addinivalue_line("markers", "soak: bench/soak.py for a few minutes: no leak after close")

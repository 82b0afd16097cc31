"""Markers of the reliability tier (registered in pyproject.toml too, for runs from another folder)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "faults: devices killed mid-episode (CI-sized by default; CRAB_FAULTS=100 for 100 each)"
    )
    config.addinivalue_line("markers", "soak: bench/soak.py for a few minutes: no leak after close")

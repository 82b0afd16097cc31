"""Fuzz tier: hypothesis property tests of action validation, tool calls, the graph evaluator, task files
and the phone's adbd server.

The default run is the CI slice (a few minutes in all). ``CRAB_FUZZ=long`` runs the long profile, without
the per-test timeout: ``CRAB_FUZZ=long .venv/bin/pytest -m fuzz tests/fuzz``.
"""

from __future__ import annotations

import pytest
from fuzz_support import LONG


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fuzz: hypothesis fuzzing (CI slice by default; CRAB_FUZZ=long for all)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not LONG:
        return
    for item in items:
        if item.get_closest_marker("fuzz"):
            item.add_marker(pytest.mark.timeout(0))  # the long profile runs as long as it takes

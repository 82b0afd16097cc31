"""Fuzz tier: hypothesis property tests of action validation, tool calls, the graph evaluator, task files
and the phone's adbd server.

Each budgeted test runs as ``[ci]`` (the CI slice, a few minutes in all) and ``[long]`` (marked
``fuzz_long``, without the per-test timeout): ``pytest -m fuzz_long tests/fuzz``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fuzz_support import profile


@pytest.fixture(params=["ci", pytest.param("long", marks=pytest.mark.fuzz_long)])
def fuzz_profile(request: pytest.FixtureRequest) -> Iterator[str]:
    """The budget of the test: its CI slice, or its long run."""
    with profile(request.param == "long", request.function):
        yield request.param


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("fuzz_long"):
            item.add_marker(pytest.mark.timeout(0))  # the long profile runs as long as it takes

"""The dialect tests' phone envs (dialect_support.py): one per dialect, shared within a module."""

from __future__ import annotations

import pytest
from dialect_support import DIALECTS, phone_env


@pytest.fixture(scope="module")
def phone_parsers():
    """A reset phone env per dialect that takes any number of invalid actions (and has ask_user)."""
    envs = {d: phone_env(d, max_invalid_actions=10**6, ask_user=True) for d in DIALECTS}
    for env in envs.values():
        env.reset(seed=0, options={"task": "contacts_add-0"})
    yield envs
    for env in envs.values():
        env.close()

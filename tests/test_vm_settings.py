"""The VM desktop's settings from the environment: a malformed one is a one-line error naming it."""

from __future__ import annotations

import pytest

from crab_gym.envs.desktop.backends import vm_states


def test_keep_states_reads_the_environment(monkeypatch):
    monkeypatch.setenv("CRAB_GYM_VM_KEEP_STATES", "3")
    assert vm_states._keep() == 3
    monkeypatch.delenv("CRAB_GYM_VM_KEEP_STATES")
    assert vm_states._keep() == 8


@pytest.mark.parametrize("raw", ["x", "0", "-2", ""])
def test_a_malformed_keep_states_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv("CRAB_GYM_VM_KEEP_STATES", raw)
    with pytest.raises(ValueError, match="CRAB_GYM_VM_KEEP_STATES"):
        vm_states._keep()

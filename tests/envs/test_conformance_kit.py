"""The conformance kit cannot pass vacuously: a backend must give a fingerprint that sees its state."""

from __future__ import annotations

import pytest

from crab_gym.envs.base import SubEnvConformance
from crab_gym.envs.root import RootEnv


class _NoFingerprint(SubEnvConformance):
    def make_subenv(self):
        return RootEnv(time_scale=0.0)

    def mutate(self, sub):
        sub.execute(sub.action("submit"), {"answer": "42"})


class _BlindFingerprint(_NoFingerprint):
    def state_fingerprint(self, sub):
        return "always the same"


class _NoMutation(SubEnvConformance):
    def make_subenv(self):
        return RootEnv(time_scale=0.0)

    def state_fingerprint(self, sub):
        return sub.state()


class _NoneFingerprint(_NoFingerprint):
    def state_fingerprint(self, sub):
        return None


def test_a_backend_without_a_fingerprint_fails_the_pristine_reset_test():
    with pytest.raises(NotImplementedError, match="state_fingerprint"):
        _NoFingerprint().test_reset_is_pristine()


def test_a_fingerprint_of_none_fails():
    with pytest.raises(AssertionError, match="returned None"):
        _NoneFingerprint().test_reset_is_pristine()


def test_a_fingerprint_blind_to_the_mutation_fails():
    with pytest.raises(AssertionError, match="unchanged"):
        _BlindFingerprint().test_reset_is_pristine()


def test_a_backend_without_a_mutation_fails():
    with pytest.raises(NotImplementedError, match="mutate"):
        _NoMutation().test_reset_is_pristine()

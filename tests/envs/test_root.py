"""The root device: submit, complete, wait, and its checks."""

from __future__ import annotations

from crab_gym.envs.base import SubEnvConformance
from crab_gym.envs.root import RootEnv, answer_contains, answer_equals


class TestRootConformance(SubEnvConformance):
    def make_subenv(self):
        return RootEnv(time_scale=0.0)

    def mutate(self, sub):
        sub.execute(sub.action("submit"), {"answer": "42"})

    def state_fingerprint(self, sub):
        return sub.state()


def test_submit_is_checked_case_insensitively():
    r = RootEnv(time_scale=0.0)
    res = r.execute(r.action("submit"), {"answer": " Paris "})
    assert res.info["ends_episode"] and res.output == " Paris "
    assert answer_equals(value="paris").evaluate({"root": r.state()})
    assert answer_contains(text="ari").evaluate({"root": r.state()})
    assert not answer_equals(value="London").evaluate({"root": r.state()})


def test_screenless():
    r = RootEnv()
    assert r.screen_size == (0, 0) and r.screenshot().shape == (0, 0, 3)

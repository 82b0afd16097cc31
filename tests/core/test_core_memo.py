"""cached_read: one call per object and arguments, and nothing kept once the object is gone."""

from __future__ import annotations

import gc
import weakref

import gymnasium as gym

import crab_gym  # noqa: F401
from crab_gym.core.memo import cached_read


class View:
    def __init__(self) -> None:
        self.calls = 0

    @cached_read
    def read(self, path: str, *, big: bool = False) -> list[str]:
        self.calls += 1
        return [path, str(big)]


def test_a_read_runs_once_per_object_and_arguments() -> None:
    a, b = View(), View()
    assert a.read("x") is a.read("x")
    assert a.read("x", big=True) == ["x", "True"]
    assert a.calls == 2
    assert b.read("x") == ["x", "False"] and b.calls == 1  # another object does not share a's results


def test_a_view_and_its_results_die_with_it() -> None:
    v = View()
    v.read("x")
    ref = weakref.ref(v)
    del v
    gc.collect()
    assert ref() is None  # functools.cache on the method kept every view alive for the process's life


def test_a_step_does_not_keep_the_previous_steps_state_views() -> None:
    env = gym.make("Crab-Android-v0", backends={"android": "sim"}, tasks=["contacts_add-0"], max_steps=5)
    try:
        env.reset(seed=0)
        android = env.unwrapped.subenvs["android"]
        tap = env.unwrapped.encode_action("android", "tap", {"point": (0.5, 0.5)})
        env.step(tap)
        first = weakref.ref(android.state())
        android.state().foreground()  # a cached read, as evaluators make
        env.step(tap)
        gc.collect()
        assert first() is None
    finally:
        env.close()

"""crab_gym.vector.infos: infos merged key by key from all envs' records equal what gymnasium's
``VectorEnv._add_info`` builds env by env, dtypes, masks, nesting and key order included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import SyncVectorEnv

from crab_gym.vector.infos import RecordingSyncVectorEnv, merge_infos


class _Gym(SyncVectorEnv):
    def __init__(self, num_envs: int) -> None:  # only _add_info is used: no envs
        self.num_envs = num_envs


def gymnasium_merge(records: list[tuple[int, dict[str, Any]]], num_envs: int) -> dict[str, Any]:
    vec, infos = _Gym(num_envs), {}
    for i, info in records:
        infos = vec._add_info(infos, info, i)
    return infos


def same(a: Any, b: Any) -> bool:
    """Equal values, dtypes and key order, all the way down."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and data_equivalence(a, b, exact=True)
    return data_equivalence(a, b, exact=True)


RECORDS = {
    "phone-like": [
        (i, {"steps": i, "success": i % 2 == 0, "completion_ratio": i / 4, "nodes": [{"id": 0, "ok": False}],
             "action": {"name": "tap", "params": {"point": (0.1 * i, 0.2)}}, "termination_reason": None,
             "action_mask": np.ones((2, 3), dtype=bool), "timings": {"execute": 1e-4 * i}})
        for i in range(5)
    ],  # fmt: skip
    "keys on some envs only, first seen late": [
        (0, {"a": 1}),
        (2, {"a": 2, "b": 1.5, "d": {"x": np.int64(3)}}),
        (4, {"b": 2, "c": "text", "d": {"y": [1, 2]}}),
    ],
    "an int key that later gets a float (truncated, as _add_info does)": [(0, {"n": 1}), (1, {"n": 2.7})],
    "numpy scalars and np.bool_ (an object array there)": [(1, {"f": np.float32(0.5), "b": np.bool_(True)})],
    "same step: final_obs and final_info, then the reset's info": [
        (0, {"final_obs": np.zeros(3), "final_info": {"steps": 4, "success": True}}),
        (0, {"steps": 0}),
        (1, {"steps": 2}),
    ],
    "lists and tuples stay whole in object arrays": [(0, {"v": [1, 2]}), (1, {"v": (3, 4)}), (2, {"v": []})],
    "nested dicts on two envs": [(0, {"k": {"x": 1}}), (1, {"k": {"x": 2}})],
    "arrays alike, on every env and on some": [
        (0, {"m": np.eye(2), "s": np.arange(3)}), (1, {"m": np.eye(2)}),
        (2, {"m": np.zeros((2, 2)), "s": np.ones(3, dtype=np.int64)})],
    "arrays of another dtype than the first (converted, as _add_info does)": [
        (0, {"m": np.ones(3, dtype=bool)}), (1, {"m": np.arange(3)}), (2, {"m": np.array([0.5, 0, 2])})],
    "0-d arrays and a subclass": [(0, {"z": np.array(1.5), "q": np.ma.array([1, 2])}),
                                  (1, {"z": np.array(2.5), "q": np.ma.array([3, 4])})],
    "one type on some envs only: str, float, np.bool_": [(1, {"t": "a", "f": 0.5, "b": np.bool_(False)}),
                                                           (3, {"t": "b", "f": 1.5, "b": np.bool_(True)})],
    "no records": [],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_merged_infos_equal_gymnasium_env_by_env_merge(name):
    records = RECORDS[name]
    assert same(merge_infos(records, 6), gymnasium_merge(records, 6))


def test_order_dependent_infos_are_left_to_gymnasium():
    records = [(0, {"k": 1, "_k": 5}), (1, {"_k": 2})]  # a key beside its own mask's name
    assert same(merge_infos(records, 3), gymnasium_merge(records, 3))
    mixed = [(0, {"k": 1}), (1, {"k": {"x": 1}})]  # a dict on one env, a number on another: gymnasium raises
    with pytest.raises(AttributeError):
        gymnasium_merge(mixed, 2)
    with pytest.raises(AttributeError):
        merge_infos(mixed, 2)


def test_a_recording_sync_vector_env_keeps_its_envs_infos_as_records_at_its_offset():
    import gymnasium as gym  # noqa: PLC0415

    vec = RecordingSyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2, offset=4)
    plain = SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    try:
        _, infos = vec.reset(seed=1)
        assert infos == {}
        records = vec.take_records()
        assert [i for i, _ in records] == [4, 5] and vec.take_records() == []
        _, expected = plain.reset(seed=1)
        assert same(merge_infos([(i - 4, info) for i, info in records], 2), expected)
    finally:
        vec.close()
        plain.close()

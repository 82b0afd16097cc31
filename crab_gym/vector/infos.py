"""A vector env's ``infos`` from its envs' own info dicts, built key by key in the main process.

A worker sends its envs' infos as they are, ``(env index, info)`` records in the order gymnasium's
``SyncVectorEnv`` adds them (:class:`RecordingSyncVectorEnv`), and :func:`merge_infos` builds from all
workers' records the dict ``VectorEnv._add_info`` would have built env by env: every key an array over the
envs (its dtype from the first value, ``None`` or zeros where an env has no such key) with a ``_key`` mask,
nested dicts merged the same way, ``final_obs`` an object array. Merging env by env costs a fresh mask array
per key per env; pickling the merged object arrays costs more than pickling the dicts they were made from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import SyncVectorEnv, VectorEnv

__all__ = ["Record", "RecordingSyncVectorEnv", "merge_infos"]

Record = tuple[int, dict[str, Any]]


class RecordingSyncVectorEnv(SyncVectorEnv):
    """A ``SyncVectorEnv`` whose ``step`` and ``reset`` return empty infos and keep their envs' infos in
    :attr:`records` instead, as ``(offset + env index, info)``, for :func:`merge_infos`."""

    def __init__(self, *args: Any, offset: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offset = offset
        self.records: list[Record] = []

    def take_records(self) -> list[Record]:
        """The records since the last call."""
        out, self.records = self.records, []
        return out

    def _add_info(self, vector_infos: dict, env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        self.records.append((self.offset + env_num, env_info))
        return vector_infos


class _Mixed(Exception):
    """Infos whose merge depends on the order of the records (a key whose values are dicts for some envs and
    not for others; both ``key`` and ``_key``): left to gymnasium's own merge."""


def merge_infos(records: Sequence[Record], num_envs: int) -> dict[str, Any]:
    """What ``VectorEnv._add_info`` gives when called with each record in turn, starting from ``{}``."""
    try:
        return _merge(records, num_envs)
    except _Mixed:
        adder = _Adder(num_envs)
        infos: dict[str, Any] = {}
        for i, info in records:
            infos = adder._add_info(infos, info, i)
        return infos


class _Adder:
    """Just enough of a ``VectorEnv`` for its ``_add_info``."""

    _add_info = VectorEnv._add_info

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs


def _merge(records: Sequence[Record], num_envs: int) -> dict[str, Any]:
    by_key: dict[str, list[tuple[int, Any]]] = {}
    for i, info in records:
        for key, value in info.items():
            by_key.setdefault(key, []).append((i, value))
    if any(f"_{key}" in by_key for key in by_key):
        raise _Mixed("a key and its mask's name")  # the order of the records decides which wins there
    out: dict[str, Any] = {}
    for key, items in by_key.items():
        if key == "final_obs":
            array: Any = np.full(num_envs, None, dtype=object)
            for i, value in items:
                array[i] = value
        else:
            dicts = sum(isinstance(value, dict) for _, value in items)
            if dicts == len(items):
                array = _merge(items, num_envs)
            elif dicts:
                raise _Mixed(key)
            else:
                array = _empty(items[0][1], num_envs)
                for i, value in items:
                    array[i] = value
        mask = np.zeros(num_envs, dtype=np.bool_)
        mask[[i for i, _ in items]] = True
        out[key], out[f"_{key}"] = array, mask
    return out


def _empty(value: Any, num_envs: int) -> np.ndarray:
    """The array ``_add_info`` makes for a key whose first value is ``value``."""
    if type(value) in (int, float, bool) or issubclass(type(value), np.number):
        return np.zeros(num_envs, dtype=type(value))
    if isinstance(value, np.ndarray):
        return np.zeros((num_envs, *value.shape), dtype=value.dtype)
    return np.full(num_envs, None, dtype=object)

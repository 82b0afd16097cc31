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

    _add_info: Any = VectorEnv._add_info  # it uses only self.num_envs and itself

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs


def _merge(records: Sequence[Record], num_envs: int) -> dict[str, Any]:
    """Records grouped by their keys (a step's infos share theirs; a reset's have others), each group taken
    apart column by column; a key's array takes its dtype from its first value in record order, the first
    group's that has it. Where one env has a key twice (``final_info`` beside a reset's), the order of the
    records decides: :class:`_Mixed`."""
    groups: dict[tuple[str, ...], list[Record]] = {}
    for record in records:
        groups.setdefault(tuple(record[1]), []).append(record)
    columns: dict[str, list[tuple[tuple[int, ...], tuple[Any, ...]]]] = {}
    for keys, group in groups.items():
        envs = tuple(i for i, _ in group)
        for key, values in zip(keys, zip(*(info.values() for _, info in group), strict=True), strict=True):
            columns.setdefault(key, []).append((envs, values))
    if any(f"_{key}" in columns for key in columns):
        raise _Mixed("a key and its mask's name")
    every = tuple(range(num_envs))
    out: dict[str, Any] = {}
    for key, parts in columns.items():
        envs, values = (
            parts[0] if len(parts) == 1 else (sum((p[0] for p in parts), ()), sum((p[1] for p in parts), ()))
        )
        if len(set(envs)) < len(envs):
            raise _Mixed(key)
        out[key] = _column(key, envs, values, num_envs, envs == every)
        if envs == every:
            out[f"_{key}"] = np.ones(num_envs, dtype=np.bool_)
        else:
            out[f"_{key}"] = mask = np.zeros(num_envs, dtype=np.bool_)
            mask[list(envs)] = True
    return out


def _column(key: str, envs: tuple[int, ...], values: tuple[Any, ...], num_envs: int, dense: bool) -> Any:
    """One key's array (or merged dict) over the envs; ``dense``: every env has it, in env order."""
    types = set(map(type, values))
    first = type(values[0])
    if key == "final_obs":
        array: np.ndarray = np.full(num_envs, None, dtype=object)
    elif issubclass(first, dict):
        if not all(issubclass(t, dict) for t in types):
            raise _Mixed(key)
        return _merge(list(zip(envs, values, strict=True)), num_envs)
    elif any(issubclass(t, dict) for t in types):
        raise _Mixed(key)
    else:
        array = _empty(values[0], num_envs)
        if array.ndim == 1 and len(types) == 1:  # one type: numpy converts each value as one assignment would
            column = np.fromiter(values, dtype=array.dtype, count=len(values))
            if dense:
                return column
            array[list(envs)] = column
            return array
    for i, value in zip(envs, values, strict=True):
        array[i] = value
    return array


def _empty(value: Any, num_envs: int) -> np.ndarray:
    """The array ``_add_info`` makes for a key whose first value is ``value``."""
    if type(value) in (int, float, bool) or issubclass(type(value), np.number):
        return np.zeros(num_envs, dtype=type(value))
    if isinstance(value, np.ndarray):
        return np.zeros((num_envs, *value.shape), dtype=value.dtype)
    return np.full(num_envs, None, dtype=object)

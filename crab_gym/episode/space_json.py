"""Gymnasium spaces to JSON and back, so a recorded episode carries the spaces of the env it was recorded on.

Covers the spaces crab-gym's envs and wrappers use: Box, Discrete, MultiDiscrete, MultiBinary, Text (and
subclasses such as the tool-call space, stored as the Text they are), Dict and Tuple.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["space_from_json", "space_to_json"]


def _array(value: np.ndarray) -> Any:
    """A bound as a scalar when it is the same everywhere (Box(0, 255, shape)), else as a nested list."""
    flat = np.asarray(value).reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return _scalar(flat[0])
    return np.asarray(value).tolist()


def _scalar(v: Any) -> Any:
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and not np.isfinite(v):
        return "inf" if v > 0 else "-inf"
    return v


def space_to_json(space: spaces.Space) -> dict[str, Any]:
    """A JSON-ready description of ``space``; TypeError for a space kind it does not know."""
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": {k: space_to_json(s) for k, s in space.spaces.items()}}
    if isinstance(space, spaces.Tuple):
        return {"type": "Tuple", "spaces": [space_to_json(s) for s in space.spaces]}
    if isinstance(space, spaces.Box):
        return {
            "type": "Box",
            "shape": list(space.shape),
            "dtype": str(space.dtype),
            "low": _array(space.low),
            "high": _array(space.high),
        }
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": np.asarray(space.nvec).tolist(), "dtype": str(space.dtype)}
    if isinstance(space, spaces.MultiBinary):
        return {"type": "MultiBinary", "n": np.asarray(space.n).tolist()}
    if isinstance(space, spaces.Text):
        return {
            "type": "Text",
            "min_length": int(space.min_length),
            "max_length": int(space.max_length),
            "charset": "".join(sorted(space.character_set)),
        }
    raise TypeError(f"cannot store a space of type {type(space).__name__} as JSON")


def _bound(value: Any) -> Any:
    if isinstance(value, str):
        return float(value)
    if isinstance(value, list):
        return np.asarray(value, dtype=np.float64)
    return value


def space_from_json(data: dict[str, Any], where: str = "space") -> spaces.Space:
    """The space described by :func:`space_to_json`; ValueError naming ``where`` if it is malformed."""
    try:
        kind = data["type"]
        if kind == "Dict":
            return spaces.Dict({k: space_from_json(v, f"{where}.{k}") for k, v in data["spaces"].items()})
        if kind == "Tuple":
            return spaces.Tuple([space_from_json(v, f"{where}[{i}]") for i, v in enumerate(data["spaces"])])
        if kind == "Box":
            dtype = np.dtype(data["dtype"])
            shape = tuple(data["shape"])
            low = np.broadcast_to(_bound(data["low"]), shape).astype(dtype)
            high = np.broadcast_to(_bound(data["high"]), shape).astype(dtype)
            return spaces.Box(low, high, shape, dtype)
        if kind == "Discrete":
            return spaces.Discrete(int(data["n"]), start=int(data.get("start", 0)))
        if kind == "MultiDiscrete":
            return spaces.MultiDiscrete(data["nvec"], dtype=np.dtype(data.get("dtype", "int64")))
        if kind == "MultiBinary":
            return spaces.MultiBinary(data["n"])
        if kind == "Text":
            return spaces.Text(
                int(data["max_length"]), min_length=int(data["min_length"]), charset=data["charset"]
            )
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{where}: malformed space ({type(e).__name__}: {e})") from None
    raise ValueError(f"{where}: unknown space type {data.get('type')!r}")

"""FlattenActions: MultiDiscrete actions and a flat Dict of Boxes, for Stable-Baselines3 and other RL tools.

Action: ``MultiDiscrete`` over (device, action, then one block per parameter of the wrapped env's action
Dict, in name order): a point (a ``Box`` of 2) is two dims (x cell, y cell of a grid; the cell centre is the
point), a ``Discrete`` parameter (a Literal, a bool, a bounded int, a Set-of-Marks element id) one dim of
its own, a ``MultiDiscrete`` one dim per slot (0 = unused), a ``Text`` one dim indexing the text candidates
of the episode. Over the CrabEnv a position is a grid cell; over SetOfMarks it is an element id. Every
parameter has its own dims because one action may need several at once (swipe: direction and distance;
drag: start and end). A dim an action does not use is ignored; ``dims`` names them. A device/action pair
that does not exist, an element that is not on the screen, or a text index past the candidates (an empty
text), is an invalid action of the env (counted, no device touched).

Text candidates come from the instruction at reset: quoted strings, paths, tokens with digits, then other
words, in order of appearance, without duplicates (``info["text_candidates"]`` at reset).

Observation: the inner observation flattened to one level (``android_screen``, ``instruction``; keys joined
with ``_`` since torch module names cannot hold dots), Boxes only: frames under a ``screen`` key are shrunk
with Pillow to ``screen_size`` (an int: longest side, aspect kept; ``(w, h)``: exact; None: unchanged), and
every other Box is one vector (Set-of-Marks boxes ``(N, 4)`` become ``(4N,)``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from crab_gym.spaces import decode_instruction, resize_frame
from crab_gym.wrappers.set_of_marks import element_param

__all__ = ["FlattenActions", "text_candidates"]

_QUOTED = re.compile(r"(?<!\w)'([^'\n]+?)'(?!\w)|\"([^\"\n]+?)\"|“([^”\n]+?)”|‘([^’\n]+?)’")
_PATH = re.compile(r"(?<![\w/~])(?:~/|/)[\w.~/+-]*\w")
_STRIP = ".,;:!?()[]{}<>\"'“”‘’"


def text_candidates(instruction: str, limit: int | None = None) -> list[str]:
    """Strings an agent may need to type, taken from the instruction: quoted, paths, numbers, words."""
    quoted = [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(instruction)]
    paths = _PATH.findall(instruction)
    tokens = [t.strip(_STRIP) for t in instruction.split()]
    tokens = [t for t in tokens if t]
    numeric = [t for t in tokens if any(c.isdigit() for c in t)]
    words = [t for t in tokens if not any(c.isdigit() for c in t)]
    out = list(dict.fromkeys(s for s in quoted + paths + numeric + words if s.strip()))
    return out[:limit] if limit is not None else out


def _flat_spaces(space: spaces.Dict, prefix: str = "") -> dict[str, tuple[tuple[str, ...], spaces.Space]]:
    """{flat key: (path in the nested observation, space)} for the Box, Discrete and MultiDiscrete leaves."""
    out: dict[str, tuple[tuple[str, ...], spaces.Space]] = {}
    for key, sub in space.spaces.items():
        flat = f"{prefix}_{key}" if prefix else key
        if isinstance(sub, spaces.Dict):
            for k, (path, leaf) in _flat_spaces(sub, flat).items():
                out[k] = ((key, *path), leaf)
        elif isinstance(sub, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete)):
            out[flat] = ((key,), sub)
    return out


class FlattenActions(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The env with a MultiDiscrete action and a flat Dict-of-Box observation (see the module docstring).

    It reads the wrapped env's action space -- ``Tuple(device, action, Dict(params))``, as CrabEnv and
    SetOfMarks define it -- and builds actions by name with the wrapped env's ``encode_action``.
    """

    def __init__(
        self,
        env: gym.Env,
        grid: tuple[int, int] = (16, 16),
        max_text_candidates: int = 32,
        screen_size: int | tuple[int, int] | None = 128,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, grid=grid, max_text_candidates=max_text_candidates, screen_size=screen_size
        )
        gym.Wrapper.__init__(self, env)
        self._encode_action = env.get_wrapper_attr("encode_action")
        device, action, params = _action_parts(env.action_space)
        self.grid = (int(grid[0]), int(grid[1]))
        self.max_text_candidates = int(max_text_candidates)
        self.text_candidates: list[str] = []
        self.params: list[tuple[str, str, spaces.Space]] = []  # (name, kind, space), name order
        self.dims: list[str] = ["device", "action"]
        sizes = [int(device.n), int(action.n)]
        for name, space in sorted(params.spaces.items()):
            kind = _kind(name, space)
            self.params.append((name, kind, space))
            if kind == "point":
                self.dims += [f"{name}.x", f"{name}.y"]
                sizes += list(self.grid)
            elif kind == "discrete":
                assert isinstance(space, spaces.Discrete)  # as _kind found
                self.dims.append(name)
                sizes.append(int(space.n))
            elif kind == "slots":
                assert isinstance(space, spaces.MultiDiscrete)  # as _kind found
                nvec = [int(n) for n in space.nvec]
                self.dims += [f"{name}[{i}]" for i in range(len(nvec))]
                sizes += nvec
            else:  # text
                self.dims.append(name)
                sizes.append(self.max_text_candidates)
        self.action_space = spaces.MultiDiscrete(sizes)
        self._nvec = sizes
        assert isinstance(env.observation_space, spaces.Dict), env.observation_space
        self._leaves = _flat_spaces(env.observation_space)
        self._sizes: dict[str, tuple[int, int] | None] = {}
        entries: dict[str, spaces.Space] = {}
        for key, (path, leaf) in self._leaves.items():
            if isinstance(leaf, spaces.Discrete):
                entries[key] = spaces.Box(int(leaf.start), int(leaf.start) + int(leaf.n) - 1, (1,), np.int64)
            elif isinstance(leaf, spaces.MultiDiscrete):
                entries[key] = spaces.Box(0, np.asarray(leaf.nvec) - 1, leaf.shape, np.int64)
            elif (
                path[-1] == "screen"
                and screen_size is not None
                and len(shape := tuple(leaf.shape or ())) == 3
            ):
                size = _fit(shape[1], shape[0], screen_size)
                self._sizes[key] = size
                entries[key] = spaces.Box(0, 255, (size[1], size[0], shape[2]), np.uint8)
            elif isinstance(leaf, spaces.Box) and path[-1] != "screen" and len(leaf.shape) != 1:
                # vectors for RL libraries: marks (N, 4) -> (4N,), a count () -> (1,)
                n = int(np.prod(leaf.shape))
                low, high = leaf.low.reshape(n), leaf.high.reshape(n)
                entries[key] = spaces.Box(low, high, (n,), leaf.dtype)  # type: ignore[arg-type]  # np.dtype is fine: Box calls np.dtype()
            else:
                entries[key] = leaf
        self.observation_space = spaces.Dict(entries)
        self._shapes = {k: tuple(e.shape or ()) for k, e in entries.items()}

    # ---- actions ------------------------------------------------------------------------------
    def decode(self, action: Any) -> tuple:
        """The wrapped env's action tuple (device, action, params) for a MultiDiscrete action."""
        a = [int(v) for v in np.asarray(action, dtype=np.int64).reshape(-1)]
        if len(a) != len(self.dims):
            raise ValueError(
                f"a flat action has {len(self.dims)} dims ({', '.join(self.dims)}); got {len(a)}"
            )
        gx, gy = self.grid
        params: dict[str, Any] = {}
        i = 2
        for name, kind, space in self.params:
            if kind == "point":
                params[name] = np.array([(a[i] + 0.5) / gx, (a[i + 1] + 0.5) / gy], dtype=np.float32)
                i += 2
            elif kind == "discrete":
                assert isinstance(space, spaces.Discrete)
                params[name] = int(space.start) + a[i]
                i += 1
            elif kind == "slots":
                assert isinstance(space, spaces.MultiDiscrete)
                k = len(space.nvec)
                params[name] = np.asarray(a[i : i + k], dtype=np.int64)
                i += k
            else:  # text
                params[name] = self.text_candidates[a[i]] if 0 <= a[i] < len(self.text_candidates) else ""
                i += 1
        return (a[0], a[1], params)

    def encode(self, device: str, action: str, params: Mapping[str, Any] | None = None) -> np.ndarray:
        """The MultiDiscrete action nearest to (device, action, python params), built by the wrapped env's
        ``encode_action`` (over SetOfMarks a point becomes the id of the mark there): points snap to their
        cell; a text must be one of the current ``text_candidates`` (else ValueError)."""
        dev, act, full = self._encode_action(device, action, params)
        given = set(params or {})
        gx, gy = self.grid
        out = [int(dev), int(act)]
        for name, kind, space in self.params:
            v = full[name]
            if kind == "point":
                x, y = (float(t) for t in np.asarray(v).reshape(-1))
                out += [min(int(x * gx), gx - 1), min(int(y * gy), gy - 1)]
            elif kind == "discrete":
                assert isinstance(space, spaces.Discrete)
                out.append(int(np.asarray(v).item()) - int(space.start))
            elif kind == "slots":
                out += [int(t) for t in np.asarray(v).reshape(-1)]
            elif name in given:
                if v not in self.text_candidates[: self.max_text_candidates]:
                    raise ValueError(
                        f"{name}={v!r} is not a text candidate; candidates: {self.text_candidates}"
                    )
                out.append(self.text_candidates.index(v))
            else:
                out.append(0)
        return np.asarray(out, dtype=np.int64)

    def action_masks(self) -> np.ndarray:
        """Per-dim masks, concatenated (sb3-contrib MaskablePPO's MultiDiscrete format): text dims offer
        only the current candidates, element dims only ids some screen has now. Which (device, action)
        pairs exist cannot be said per dim: see ``env.unwrapped.action_masks()``."""
        marks = self._mark_counts()
        parts = [np.ones(n, dtype=bool) for n in self._nvec[:2]]
        for name, kind, space in self.params:
            if kind == "point":
                parts += [np.ones(n, dtype=bool) for n in self.grid]
            elif kind == "slots":
                assert isinstance(space, spaces.MultiDiscrete)
                parts += [np.ones(int(n), dtype=bool) for n in space.nvec]
            elif kind == "text":
                m = np.ones(self.max_text_candidates, dtype=bool)
                if self.text_candidates:
                    m[len(self.text_candidates) :] = False
                parts.append(m)
            else:
                assert isinstance(space, spaces.Discrete)
                m = np.ones(int(space.n), dtype=bool)
                if marks.get(name):  # element ids start at space.start; the first marks[name] exist
                    m[marks[name] :] = False
                parts.append(m)
        return np.concatenate(parts)

    def _mark_counts(self) -> dict[str, int]:
        """{element parameter: most marks on any screen now}, when SetOfMarks is below."""
        try:
            marks = self.env.get_wrapper_attr("marks")
            point_params = self.env.get_wrapper_attr("point_params")
        except AttributeError:
            return {}
        most = max((len(m) for m in marks.values()), default=0)
        return {element_param(p): most for p in point_params}

    # ---- the loop -----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        text = info.get("instruction")
        if not isinstance(text, str):
            text = decode_instruction(obs["instruction"])
        self.text_candidates = text_candidates(text, self.max_text_candidates)
        info["text_candidates"] = list(self.text_candidates)
        return self.observation(obs), info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(self.decode(action))
        return self.observation(obs), reward, terminated, truncated, info

    def observation(self, obs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for key, (path, leaf) in self._leaves.items():
            value: Any = obs
            for part in path:
                value = value[part]
            if isinstance(leaf, (spaces.Discrete, spaces.MultiDiscrete)):
                out[key] = np.asarray(value, dtype=np.int64).reshape(self._shapes[key])
            elif (size := self._sizes.get(key)) is not None:
                out[key] = _resize(np.asarray(value), size)
            else:
                out[key] = np.array(value, dtype=leaf.dtype, copy=True).reshape(self._shapes[key])
        return out


def _action_parts(space: spaces.Space) -> tuple[spaces.Discrete, spaces.Discrete, spaces.Dict]:
    parts: Sequence[spaces.Space] = getattr(space, "spaces", ())
    if not (
        isinstance(space, spaces.Tuple)
        and len(parts) == 3
        and isinstance(parts[0], spaces.Discrete)
        and isinstance(parts[1], spaces.Discrete)
        and isinstance(parts[2], spaces.Dict)
    ):
        raise TypeError(
            "FlattenActions needs the Tuple(device, action, Dict(params)) action of CrabEnv or SetOfMarks "
            f"below it; got {space}"
        )
    return parts[0], parts[1], parts[2]


def _kind(name: str, space: spaces.Space) -> str:
    if isinstance(space, spaces.Box) and space.shape == (2,):
        return "point"
    if isinstance(space, spaces.Discrete):
        return "discrete"
    if isinstance(space, spaces.MultiDiscrete) and len(space.shape) == 1:
        return "slots"
    if isinstance(space, spaces.Text):
        return "text"
    raise TypeError(f"FlattenActions: parameter {name!r} with space {space} has no flat encoding")


def _fit(w: int, h: int, size: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(size, int):
        scale = min(1.0, size / max(w, h))
        return max(1, round(w * scale)), max(1, round(h * scale))
    return int(size[0]), int(size[1])


def _resize(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An (H, W, C) frame at ``size`` (w, h), C 3 (RGB) or 1 (grayscale); never the input object itself."""
    out = resize_frame(frame, size)
    return out.copy() if out is frame else out

"""FlattenActions: MultiDiscrete actions and a flat Dict of Boxes, for Stable-Baselines3 and other RL tools.

Action: ``MultiDiscrete`` over (device, action, then one block per parameter of the env's action Dict, in
name order): a point parameter is two dims (x cell, y cell of a grid; the cell centre is the point), a
Discrete parameter (a Literal, a bool, a bounded int) one dim of its own, a list-of-Literal parameter one dim
per slot (0 = unused), a text parameter one dim indexing the text candidates of the episode. Every parameter
has its own dims because one action may need several at once (swipe: direction and distance; drag: start
and end). A dim an action does not use is ignored; ``dims`` names them. A device/action pair that does not
exist, or a text index past the candidates (an empty text), is an invalid action of the env (counted, no
device touched).

Text candidates come from the instruction at reset: quoted strings, paths, tokens with digits, then other
words, in order of appearance, without duplicates (``info["text_candidates"]`` at reset).

Observation: the inner observation flattened to one level (``android_screen``, ``instruction``; keys joined
with ``_`` since torch module names cannot hold dots), Boxes only; frames under a ``screen`` key are shrunk
with Pillow to ``screen_size`` (an int: longest side, aspect kept; ``(w, h)``: exact; None: unchanged).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from crab_gym.spaces import decode_instruction

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
    """CrabEnv with a MultiDiscrete action and a flat Dict-of-Box observation (see the module docstring).

    Apply it to the CrabEnv or over wrappers that leave the action alone (not SetOfMarks): it decodes
    actions with the env's own codec.
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
        self.codec = env.unwrapped.codec  # type: ignore[attr-defined]
        if env.action_space != self.codec.space:
            raise TypeError(
                "FlattenActions decodes actions with CrabEnv's own action tuple, but a wrapper below it "
                f"changed the action space (to {env.action_space}); apply FlattenActions to the CrabEnv"
            )
        self.grid = (int(grid[0]), int(grid[1]))
        self.max_text_candidates = int(max_text_candidates)
        self.text_candidates: list[str] = []
        self.dims: list[str] = ["device", "action"]
        sizes = [len(self.codec.subenvs), self.codec.max_actions]
        for name, c in sorted(self.codec.codecs.items()):
            if c.kind == "point":
                self.dims += [f"{name}.x", f"{name}.y"]
                sizes += list(self.grid)
            elif c.kind in ("choice", "int"):
                self.dims.append(name)
                sizes.append(int(c.space.n))
            elif c.kind == "choices":
                nvec = [int(n) for n in c.space.nvec]
                self.dims += [f"{name}[{i}]" for i in range(len(nvec))]
                sizes += nvec
            elif c.kind == "text":
                self.dims.append(name)
                sizes.append(self.max_text_candidates)
            else:
                raise TypeError(f"FlattenActions: parameter {name!r} of kind {c.kind!r} has no flat encoding")
        self.action_space = spaces.MultiDiscrete(sizes)
        self._nvec = sizes
        self._leaves = _flat_spaces(env.observation_space)  # type: ignore[arg-type]
        self._sizes: dict[str, tuple[int, int] | None] = {}
        entries: dict[str, spaces.Space] = {}
        for key, (path, leaf) in self._leaves.items():
            if isinstance(leaf, spaces.Discrete):
                entries[key] = spaces.Box(int(leaf.start), int(leaf.start + leaf.n - 1), (1,), np.int64)
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
            else:
                entries[key] = leaf
        self.observation_space = spaces.Dict(entries)
        self._shapes = {k: tuple(e.shape or ()) for k, e in entries.items()}

    # ---- actions ------------------------------------------------------------------------------
    def decode(self, action: Any) -> tuple:
        """The env's action tuple (device, action, params) for a MultiDiscrete action."""
        a = [int(v) for v in np.asarray(action, dtype=np.int64).reshape(-1)]
        if len(a) != len(self.dims):
            raise ValueError(
                f"a flat action has {len(self.dims)} dims ({', '.join(self.dims)}); got {len(a)}"
            )
        gx, gy = self.grid
        params: dict[str, Any] = {}
        i = 2
        for name, c in sorted(self.codec.codecs.items()):
            if c.kind == "point":
                params[name] = np.array([(a[i] + 0.5) / gx, (a[i + 1] + 0.5) / gy], dtype=np.float32)
                i += 2
            elif c.kind in ("choice", "int"):
                params[name] = int(getattr(c.space, "start", 0)) + a[i]
                i += 1
            elif c.kind == "choices":
                k = len(c.space.nvec)
                params[name] = np.asarray(a[i : i + k], dtype=np.int64)
                i += k
            else:  # text
                params[name] = self.text_candidates[a[i]] if 0 <= a[i] < len(self.text_candidates) else ""
                i += 1
        return (a[0], a[1], params)

    def encode(self, device: str, action: str, params: Mapping[str, Any] | None = None) -> np.ndarray:
        """The MultiDiscrete action nearest to (device, action, python params): points snap to their cell;
        a text must be one of the current ``text_candidates`` (else ValueError)."""
        dev, act, full = self.codec.encode(device, action, params)
        given = set(params or {})
        gx, gy = self.grid
        out = [dev, act]
        for name, c in sorted(self.codec.codecs.items()):
            v = full[name]
            if c.kind == "point":
                x, y = (float(t) for t in np.asarray(v).reshape(-1))
                out += [min(int(x * gx), gx - 1), min(int(y * gy), gy - 1)]
            elif c.kind in ("choice", "int"):
                out.append(int(v) - int(getattr(c.space, "start", 0)))
            elif c.kind == "choices":
                out += [int(t) for t in v]
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
        only the current candidates. Which (device, action) pairs exist cannot be said per dim: see
        ``env.unwrapped.action_masks()``."""
        parts = []
        for name, n in zip(self.dims, self._nvec, strict=True):
            m = np.ones(int(n), dtype=bool)
            kind = self.codec.codecs[name].kind if name in self.codec.codecs else ""
            if kind == "text" and self.text_candidates:
                m[len(self.text_candidates) :] = False
            parts.append(m)
        return np.concatenate(parts)

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
            elif self._sizes.get(key) is not None:
                out[key] = _resize(np.asarray(value), self._sizes[key])  # type: ignore[arg-type]
            else:
                out[key] = np.array(value, dtype=leaf.dtype, copy=True)
        return out


def _fit(w: int, h: int, size: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(size, int):
        scale = min(1.0, size / max(w, h))
        return max(1, round(w * scale)), max(1, round(h * scale))
    return int(size[0]), int(size[1])


def _resize(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    if (frame.shape[1], frame.shape[0]) == size:
        return frame.copy()
    img = Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8))
    return np.asarray(img.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0), dtype=np.uint8)

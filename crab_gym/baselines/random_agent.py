"""A random agent that draws only valid (device, action) pairs, with text drawn from the instruction."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.env_protocol import crab_of
from crab_gym.spaces import decode_instruction


class RandomAgent:
    """Uniform over existing (device, action) pairs; points uniform; text from instruction words."""

    name = "random"

    def __init__(
        self,
        env: gym.Env,
        seed: int | None = None,
        allow_ending: bool = False,
        devices: Sequence[str] | None = None,
    ) -> None:
        self.env = crab_of(env)
        self.rng = np.random.default_rng(seed)
        self.allow_ending = allow_ending  # complete()/submit() end the episode at once
        self.devices = None if devices is None else set(devices)  # None: every device, root included

    def act(self, obs: Any, info: dict[str, Any]) -> tuple:
        codec = self.env.codec
        mask = codec.mask()
        if self.devices is not None:
            for i, sub in enumerate(codec.subenvs):
                if sub.name not in self.devices:
                    mask[i] = False
        if not self.allow_ending:
            root = [s.name for s in codec.subenvs].index("root")
            for j, spec in enumerate(codec.subenvs[root].actions):
                if spec.name in ("complete", "submit"):
                    mask[root, j] = False
        pairs = np.argwhere(mask)
        dev, act = pairs[self.rng.integers(len(pairs))]
        spec = codec.subenvs[dev].actions[act]
        words = re.findall(r"[\w~./-]+", decode_instruction(obs["instruction"])) or ["a"]
        params: dict[str, Any] = {}
        for p in spec.params:
            c = codec.codecs[p.name]
            if c.kind == "text":
                params[p.name] = " ".join(self.rng.choice(words, size=self.rng.integers(1, 4)))
            elif c.kind == "point":
                params[p.name] = self.rng.random(2).astype(np.float32)
            else:
                c.space.seed(int(self.rng.integers(2**31)))
                params[p.name] = c.space.sample()
        full = {n: c.default() for n, c in codec.codecs.items()}
        full.update(params)
        return (int(dev), int(act), full)

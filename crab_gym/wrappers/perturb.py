"""Perturb: robustness and safety testing. At seeded random steps it puts up a pop-up, a notification, a
permission dialog or an update prompt, or plants an instruction ("ignore your task and ...") in a message,
a note or a file, on the devices the task uses (what and how: crab_gym/wrappers/perturbations.py).

Each perturbation is reported in ``info["perturbations"]`` at the step it appears (kind, device, what, how
to dismiss it), and the observation of that step already shows it. Every step's info also carries
``injections`` (planted so far) and ``injections_obeyed`` (how many of them the devices' state shows were
obeyed), which ``crab-gym eval --perturb`` turns into an injection-obeyed rate. The threat model:
docs/threat-model.md.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.env_protocol import crab_of
from crab_gym.envs.base import DeviceError
from crab_gym.wrappers.perturbations import KINDS, Perturbation, inject, obeyed

log = logging.getLogger(__name__)
DEVICES = ("android", "ubuntu")


class Perturb(gym.Wrapper):
    """Inject perturbations: after each step, with probability ``rate``, one of ``kinds`` (see KINDS) on one
    of the task's devices, at most ``max_per_episode`` an episode. ``seed`` and the episode's reset seed
    decide where and what, so a run is repeatable."""

    def __init__(
        self,
        env: gym.Env,
        rate: float = 0.2,
        kinds: Sequence[str] = KINDS,
        seed: int = 0,
        max_per_episode: int = 3,
    ) -> None:
        super().__init__(env)
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown or not kinds:
            raise ValueError(f"Perturb: unknown kinds {unknown}; valid: {list(KINDS)}")
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"Perturb: rate must be in [0, 1], got {rate}")
        self.rate, self.kinds, self.seed, self.max_per_episode = rate, tuple(kinds), seed, max_per_episode
        self._rng = np.random.default_rng(seed)
        self._injected: list[Perturbation] = []
        self._step = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        crab = crab_of(self.env)
        task_key = crab.task.id if crab.task is not None else ""
        self._rng = np.random.default_rng([self.seed, seed or 0, zlib.crc32(task_key.encode())])
        self._injected, self._step = [], 0
        info.update(perturbations=[], injections=0, injections_obeyed=0)
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._step += 1
        new: list[Perturbation] = []
        if not (terminated or truncated) and self._due():
            p = self._inject()
            if p is not None:
                new.append(p)
                obs = crab_of(self.env).observe()
        info["perturbations"] = [p.as_dict() for p in new]
        info["injections"] = sum(p.kind == "injection" for p in self._injected)
        info["injections_obeyed"] = self._obeyed()
        return obs, reward, terminated, truncated, info

    def _due(self) -> bool:
        return len(self._injected) < self.max_per_episode and bool(self._rng.random() < self.rate)

    def _inject(self) -> Perturbation | None:
        crab = crab_of(self.env)
        used = crab.task.platforms if crab.task is not None else ()
        devices = [d for d in DEVICES if d in crab.subenvs and d in used] or [
            d for d in DEVICES if d in crab.subenvs
        ]
        if not devices:
            return None
        device = devices[int(self._rng.integers(len(devices)))]
        kind = self.kinds[int(self._rng.integers(len(self.kinds)))]
        if kind == "injection" and any(p.kind == kind and p.device == device for p in self._injected):
            return None  # one planted instruction per device: its obeyed state is then its own
        try:
            p = inject(crab.subenvs[device], kind, self._step, int(self._rng.integers(1 << 30)))
        except (DeviceError, OSError) as e:
            log.warning("Perturb: could not put a %s on %s: %s", kind, device, e)
            return None
        self._injected.append(p)
        return p

    def _obeyed(self) -> int:
        subenvs = crab_of(self.env).subenvs
        return sum(obeyed(subenvs[p.device], p) for p in self._injected if p.kind == "injection")

    @property
    def injected(self) -> list[dict[str, Any]]:
        """Every perturbation of this episode so far (what ``info["perturbations"]`` reported, in order)."""
        return [p.as_dict() for p in self._injected]

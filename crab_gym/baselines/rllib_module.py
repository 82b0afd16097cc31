"""The PPO network of :mod:`crab_gym.baselines.ppo` as an RLlib ``RLModule`` (new API stack), so RLlib
trains the same network on the same PolicyView observations as SB3 does.

``CrabPPOModule``: SB3's on-policy layout with shared features — :class:`~crab_gym.baselines.ppo_features.
ScreenWords` on the screen (channel-first, scaled to [0, 1], as SB3 hands it over) and the vectors, one
tanh layer each for the actor and the critic (``hidden`` units), then the actor's head: with elements,
the pointer head of ``ElementPolicy`` over the raw boxes; with the grid, a linear layer. The action
distribution is RLlib's MultiCategorical over the MultiDiscrete ``[kind, where]``. Initialised as SB3's
``ortho_init``: orthogonal weights (gain sqrt 2 for the features and the two layers, 1 for the value, 0.01
for the grid head), zero biases; the pointer head keeps its own init, as in ElementPolicy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchMultiCategorical
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from crab_gym.baselines.ppo_features import ScreenWords, _PointerHead

__all__ = ["CrabPPOModule", "greedy_actions"]


def _screen_first(space: spaces.Dict) -> spaces.Dict:
    """The observation space as ScreenWords reads it: the screen channel-first."""
    screen = space["screen"]
    assert isinstance(screen, spaces.Box) and screen.shape is not None
    h, w, c = screen.shape
    entries = dict(space.spaces)
    entries["screen"] = spaces.Box(0.0, 1.0, (c, h, w), dtype=np.float32)
    return spaces.Dict(entries)


def _orthogonal(layer: nn.Module, gain: float) -> None:
    """SB3's ``init_weights``: a linear or convolution layer gets orthogonal weights and zero biases."""
    if isinstance(layer, (nn.Linear, nn.Conv2d)):
        nn.init.orthogonal_(layer.weight, gain=gain)
        if layer.bias is not None:
            nn.init.zeros_(layer.bias)


class CrabPPOModule(TorchRLModule, ValueFunctionAPI):
    """ScreenWords, SB3's actor and critic layers, and the pointer head (elements) or a linear one (grid)."""

    def setup(self) -> None:
        obs_space, act_space = self.observation_space, self.action_space
        assert isinstance(obs_space, spaces.Dict), obs_space
        assert isinstance(act_space, spaces.MultiDiscrete), act_space
        model_config = self.model_config if isinstance(self.model_config, dict) else {}
        hidden = int(model_config.get("hidden", 128))
        self.nvec = [int(n) for n in act_space.nvec]
        self.features = ScreenWords(_screen_first(obs_space))
        self.marks_dim = self.features.marks_dim
        dim = self.features.features_dim
        self.actor = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh())
        self.value = nn.Linear(hidden, 1)
        self.head: nn.Module
        if self.marks_dim:
            self.head = _PointerHead(hidden, self.nvec[0], self.nvec[1])
        else:
            self.head = nn.Linear(hidden, sum(self.nvec))
            _orthogonal(self.head, 0.01)
        for part in (self.features, self.actor, self.critic):
            part.apply(lambda layer: _orthogonal(layer, float(np.sqrt(2))))
        _orthogonal(self.value, 1.0)

    def _features(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        inputs = {k: v.float() for k, v in obs.items()}
        inputs["screen"] = obs["screen"].permute(0, 3, 1, 2).float() / 255.0
        return self.features(inputs)

    def _logits(self, features: torch.Tensor) -> torch.Tensor:
        latent = self.actor(features)
        if self.marks_dim:  # the pointer head reads the raw boxes beside the latent, as ElementPolicy's
            latent = torch.cat([latent, features[:, -self.marks_dim :]], dim=1)
        return self.head(latent)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(self._features(batch[Columns.OBS]))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        features = self._features(batch[Columns.OBS])  # shared with the critic, as SB3's on-policy default
        return {Columns.ACTION_DIST_INPUTS: self._logits(features), Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._features(batch[Columns.OBS])
        return self.value(self.critic(embeddings)).squeeze(-1)

    def get_inference_action_dist_cls(self) -> Any:
        return TorchMultiCategorical.get_partial_dist_cls(input_lens=self.nvec)  # type: ignore[misc]  # RLlib types the classmethod's cls as an instance

    def get_exploration_action_dist_cls(self) -> Any:
        return self.get_inference_action_dist_cls()

    def get_train_action_dist_cls(self) -> Any:
        return self.get_inference_action_dist_cls()


def greedy_actions(module: CrabPPOModule, obs: dict[str, Any]) -> Any:
    """The most likely ``[kind, where]`` of one observation (numpy arrays): the deterministic policy."""
    batch = {k: torch.as_tensor(v)[None] for k, v in obs.items()}
    with torch.no_grad():
        logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS][0]
    parts = torch.split(logits, module.nvec)
    return torch.stack([p.argmax() for p in parts]).numpy()

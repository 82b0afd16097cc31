"""The PPO network for PolicyView: a small features extractor, and a pointer head for element taps.

``ScreenWords``: a three-layer CNN reads the screen (SB3 hands it over channel-first, scaled to [0, 1]); a
linear layer reads the vectors (the bag of words; when present, the recent steps and the elements' boxes);
``relu(screen) * (1 + tanh(vector))`` gates the screen features by the instruction and the recent steps (so
one policy can act differently on one screen for different instructions), concatenated with the vector
features; with elements, the raw boxes are appended for the pointer head.

``ElementPolicy`` (for ``[kind, element]`` actions): the kind's logits come from the policy's latent as
usual; an element's logit scores its box against the latent — one small function shared by all elements, so
"the button at the bottom right" is learnt once for every screen, whatever its number there — and an
element the screen does not have gets none of the probability. Small on purpose: PPO on two CPU cores
spends much of its time here.
"""

from __future__ import annotations

from typing import Any, cast

import torch
from gymnasium import spaces
from stable_baselines3.common.policies import MultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn

__all__ = ["ElementPolicy", "ScreenWords"]

_ABSENT = -1e4  # the logit of an element the screen does not have


class ScreenWords(BaseFeaturesExtractor):
    """Features of ``{"screen": (C, H, W), "words": (V,)[, "recent": (R,)][, "marks": (4E,)]}``: gated CNN
    features, features of the vectors, then the raw marks (``marks_dim`` of them; 0 without)."""

    def __init__(self, observation_space: spaces.Dict, screen_dim: int = 128, words_dim: int = 64) -> None:
        self.vectors = [k for k in ("words", "recent", "marks") if k in observation_space.spaces]
        shapes = {k: space.shape or () for k, space in observation_space.spaces.items()}
        marks_dim = int(shapes["marks"][0]) if "marks" in observation_space.spaces else 0
        super().__init__(observation_space, features_dim=screen_dim + words_dim + marks_dim)
        self.marks_dim = marks_dim
        screen = shapes["screen"]
        n_vec = sum(int(shapes[k][0]) for k in self.vectors)
        self.cnn = nn.Sequential(
            nn.Conv2d(int(screen[0]), 16, 5, stride=2, padding=2),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            n = int(self.cnn(torch.zeros(1, *screen)).shape[1])
        self.screen = nn.Linear(n, screen_dim)
        self.gate = nn.Linear(n_vec, screen_dim)
        self.words = nn.Sequential(nn.Linear(n_vec, words_dim), nn.ReLU())

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        s = torch.relu(self.screen(self.cnn(obs["screen"])))
        v = torch.cat([obs[k] for k in self.vectors], dim=1)
        parts = [s * (1.0 + torch.tanh(self.gate(v))), self.words(v)]
        if self.marks_dim:
            parts.append(obs["marks"])
        return torch.cat(parts, dim=1)


class _PassMarks(nn.Module):
    """SB3's MlpExtractor, with the raw marks (the features' tail) passed on beside the actor's latent."""

    def __init__(self, inner: MlpExtractor, marks_dim: int) -> None:
        super().__init__()
        self.inner, self.marks_dim = inner, marks_dim
        self.latent_dim_pi = inner.latent_dim_pi + marks_dim
        self.latent_dim_vf = inner.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.inner.forward_actor(features), features[:, -self.marks_dim :]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.inner.forward_critic(features)


class _PointerHead(nn.Module):
    """Logits of ``[kind, element]``: the kind's from the latent, an element's from its box and the latent."""

    def __init__(self, latent_dim: int, kinds: int, elements: int, hidden: int = 64) -> None:
        super().__init__()
        self.latent_dim, self.elements = latent_dim, elements
        self.kind = nn.Linear(latent_dim, kinds)
        self.query = nn.Linear(latent_dim, hidden)
        self.key = nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.score = nn.Linear(hidden, 1)
        for layer in (self.kind, self.score):  # near-uniform at the start, as SB3 does for its heads
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, latent_and_marks: torch.Tensor) -> torch.Tensor:
        latent, marks = latent_and_marks[:, : self.latent_dim], latent_and_marks[:, self.latent_dim :]
        boxes = marks.reshape(marks.shape[0], self.elements, 4)
        h = torch.relu(self.key(boxes) + self.query(latent)[:, None, :])
        logits = self.score(h).squeeze(-1).masked_fill(boxes[..., 2] <= 0, _ABSENT)
        return torch.cat([self.kind(latent), logits], dim=1)


class ElementPolicy(MultiInputActorCriticPolicy):
    """SB3's MultiInputActorCriticPolicy with ScreenWords and a pointer head over the screen's elements."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", ScreenWords)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        marks_dim = cast(ScreenWords, self.features_extractor).marks_dim  # the default extractor
        self.mlp_extractor = _PassMarks(self.mlp_extractor, marks_dim)  # type: ignore[assignment]  # SB3 says MlpExtractor; this has its interface

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        assert isinstance(self.action_space, spaces.MultiDiscrete), self.action_space
        kinds, elements = (int(n) for n in self.action_space.nvec)
        marks_dim = cast(ScreenWords, self.features_extractor).marks_dim
        if marks_dim != 4 * elements:
            raise ValueError(
                f"ElementPolicy needs 4 box values per element: marks {marks_dim}, elements {elements}"
            )
        self.action_net = _PointerHead(self.mlp_extractor.latent_dim_pi - marks_dim, kinds, elements)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]  # SB3 types it type[Optimizer]: the base takes no lr

"""RLlib's PPO learner with SB3's two optimisation details, so ``--engine rllib`` optimises as SB3's PPO:

- advantages standardised per minibatch over its real timesteps (SB3's ``normalize_advantage``), where
  RLlib's GAE connector standardises once over the whole train batch, the artificial timestep it appends
  to every episode chunk for the bootstrap value included. Episodes here are 5 steps at most, so about a
  fifth of those rows are artificial; their advantages (masked out of the loss) still moved the mean and
  the scale. Standardising a minibatch's real rows again gives SB3's figures exactly (an affine map of the
  advantages does not change their standardised values).
- Adam with ``eps=1e-5`` (SB3's on-policy default) instead of torch's 1e-8.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.core.columns import Columns
from ray.rllib.evaluation.postprocessing import Postprocessing

__all__ = ["CrabPPOLearner", "minibatch_advantages"]

ADAM_EPS = 1e-5  # SB3's ActorCriticPolicy sets it for Adam


def minibatch_advantages(advantages: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """``advantages`` standardised over the rows ``mask`` keeps (all without one), as SB3 does per
    minibatch: mean 0, unbiased std 1 (eps 1e-8); one row or none is returned as it is."""
    real = advantages if mask is None else advantages[mask.bool()]
    if real.numel() < 2:
        return advantages
    return (advantages - real.mean()) / (real.std() + 1e-8)


class CrabPPOLearner(PPOTorchLearner):
    """PPOTorchLearner with per-minibatch advantage standardisation and SB3's Adam epsilon."""

    def configure_optimizers_for_module(self, module_id: Any, config: Any = None) -> None:
        params = self.get_parameters(self.module[module_id])
        optimizer = torch.optim.Adam(params, eps=ADAM_EPS)
        self.register_optimizer(
            module_id=module_id, optimizer=optimizer, params=params, lr_or_lr_schedule=config.lr
        )

    def compute_loss_for_module(
        self, *, module_id: Any, config: Any, batch: dict[str, Any], fwd_out: dict[str, Any]
    ) -> Any:
        batch = dict(batch)
        batch[Postprocessing.ADVANTAGES] = minibatch_advantages(
            batch[Postprocessing.ADVANTAGES], batch.get(Columns.LOSS_MASK)
        )
        return super().compute_loss_for_module(
            module_id=module_id, config=config, batch=batch, fwd_out=fwd_out
        )

"""PPO on the rl-phone families through RLlib (new API stack): ``crab-gym train --engine rllib``.

The same run as :mod:`crab_gym.baselines.ppo`'s, with RLlib collecting: ``config.env_runners`` EnvRunners
(Ray actors, a process each) of ``config.envs_per_runner`` envs each, every env :func:`ppo.make_env`'s
PolicyView on the training seeds (same observations, actions and reward as SB3's), and the same network
(:class:`~crab_gym.baselines.rllib_module.CrabPPOModule`) learnt in the driver. The hyperparameters map to
SB3's: a train batch of ``n_steps`` per env, minibatches of ``batch_size``, ``n_epochs``, SB3's value-loss
weight (0.5) and gradient clip (0.5), no KL term, no value clipping; SB3's orthogonal init (the module),
advantages standardised per minibatch and Adam's epsilon (:class:`~crab_gym.baselines.rllib_learner.
CrabPPOLearner`).

A run folder holds ``config.json`` (``engine: "rllib"``), ``curve.json`` and ``rllib/`` (the Algorithm's
checkpoint: resume with ``Algorithm.from_checkpoint``); :func:`ppo.load` reads it back as a model whose
``predict`` is the greedy policy, so :func:`ppo.evaluate` and ``crab-gym train --eval`` serve both engines.
Needs the ``ray`` and ``sb3`` extras.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.baselines import ppo
from crab_gym.baselines.ppo import PPOConfig

__all__ = [
    "ENV_NAME",
    "RLlibModel",
    "algo_config",
    "build_algo",
    "init_ray",
    "load_model",
    "runner_envs",
    "runner_nodes",
    "train",
]

ENV_NAME = "crab-rl-phone"  # the PolicyView env, registered with ray.tune for the EnvRunners
_MODULE_PATH = ("learner_group", "learner", "rl_module", "default_policy")


class _RunnerSeeds(gym.Wrapper):
    """RLlib seeds env i of runner w at its first reset with ``seed + w + i``, so runner 1's second env and
    runner 2's first would draw the same tasks and phone seeds; this mixes the runner into the seed."""

    def __init__(self, env: gym.Env, worker_index: int) -> None:
        super().__init__(env)
        self.worker_index = worker_index

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        if seed is not None:
            seed = seed * 1000 + self.worker_index
        return self.env.reset(seed=seed, options=options)


def _make_env(ctx: Any) -> Any:
    """One EnvRunner env: PolicyView on the training split (its seed then comes from RLlib's first reset)."""
    config = PPOConfig.from_json(dict(ctx["ppo"]))
    worker = int(getattr(ctx, "worker_index", 0))
    return _RunnerSeeds(ppo.make_env(config, "train", seed=config.seed * 1000 + worker), worker)


def algo_config(config: PPOConfig) -> Any:
    """RLlib's PPOConfig for a crab-gym PPOConfig (vocabulary filled)."""
    from ray.rllib.algorithms.ppo import PPOConfig as RLlibPPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from crab_gym.baselines.rllib_learner import CrabPPOLearner
    from crab_gym.baselines.rllib_module import CrabPPOModule

    envs = config.env_runners * config.envs_per_runner
    return (
        RLlibPPOConfig()
        .environment(ENV_NAME, env_config={"ppo": config.to_json()})
        .env_runners(
            num_env_runners=config.env_runners,
            num_envs_per_env_runner=config.envs_per_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length=config.n_steps,
        )
        .learners(num_learners=0)  # the learner runs in the driver, on its CPU
        .training(
            train_batch_size_per_learner=config.n_steps * envs,
            minibatch_size=config.batch_size,
            num_epochs=config.n_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            entropy_coeff=config.ent_coef,
            clip_param=config.clip_range,
            vf_loss_coeff=0.5,  # SB3's vf_coef
            grad_clip=0.5,  # SB3's max_grad_norm
            grad_clip_by="global_norm",
            use_kl_loss=False,
            vf_clip_param=float("inf"),
            learner_class=CrabPPOLearner,  # SB3's per-minibatch advantages and Adam epsilon
        )
        .rl_module(rl_module_spec=RLModuleSpec(module_class=CrabPPOModule, model_config={"hidden": 128}))
        .debugging(seed=config.seed)
    )


def init_ray(num_cpus: int, address: str = "") -> None:
    """``ray.init``: a local Ray of ``num_cpus`` CPUs (or join ``address``), its workers at this process's
    niceness. Ray starts them 15 nicer than itself by default, so on a shared machine the EnvRunners, which
    step the envs, would lose the CPU to everything else, the driver's learner included."""
    import ray

    os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(address=address or None, num_cpus=None if address else num_cpus, include_dashboard=False,
             log_to_driver=False)  # fmt: skip


def build_algo(config: PPOConfig) -> Any:
    """The PPO Algorithm of ``config`` (vocabulary filled) on the running Ray: its EnvRunners start here."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, _make_env)
    return algo_config(config).build_algo()


def runner_envs(algo: Any) -> list[int]:
    """How many envs each remote EnvRunner of ``algo`` steps, as the runners report it."""
    return list(algo.env_runner_group.foreach_env_runner(lambda r: r.num_envs, local_env_runner=False))


def runner_nodes(algo: Any) -> list[str]:
    """The Ray node id of each remote EnvRunner of ``algo``: more than one only on a cluster of nodes."""

    def node(runner: Any) -> str:  # nested: pickled by value for the runners
        import ray

        return str(ray.get_runtime_context().get_node_id())

    return list(algo.env_runner_group.foreach_env_runner(node, local_env_runner=False))


class RLlibModel:
    """A trained CrabPPOModule with SB3's ``predict``: what :func:`ppo.model_policy` calls."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def predict(self, obs: dict[str, np.ndarray], deterministic: bool = True) -> tuple[np.ndarray, None]:
        from crab_gym.baselines.rllib_module import greedy_actions

        if not deterministic:
            raise ValueError("RLlibModel.predict: only the greedy (deterministic) policy")
        return greedy_actions(self.module, obs), None


def load_model(folder: Path) -> RLlibModel:
    """The policy of a run folder's ``rllib/`` checkpoint; ValueError naming the path if it is not one."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from crab_gym.baselines.rllib_module import CrabPPOModule

    path = folder.resolve() / "rllib"  # RLlib reads a relative path as a URI without a scheme
    module_path = path.joinpath(*_MODULE_PATH)
    if not module_path.is_dir():
        raise ValueError(
            f"{module_path}: missing (an RLlib run folder holds the Algorithm checkpoint in rllib/)"
        )
    try:
        module = RLModule.from_checkpoint(module_path)
    except Exception as e:  # a truncated or foreign checkpoint
        raise ValueError(f"{module_path}: not an RLlib module checkpoint ({type(e).__name__}: {e})") from None
    if not isinstance(module, CrabPPOModule):
        raise ValueError(f"{module_path}: a {type(module).__name__}, not crab-gym's CrabPPOModule")
    module.eval()
    return RLlibModel(module)


def train(
    config: PPOConfig,
    out: str | Path | None = None,
    eval_every: int = 0,
    eval_episodes: int = 16,
    on_eval: Callable[[dict[str, Any]], None] | None = None,
    address: str = "",
) -> tuple[RLlibModel, list[dict[str, Any]], dict[str, float]]:
    """Train for ``config.timesteps`` env steps (whole train batches); evaluate on held-out seeds at 0,
    every ``eval_every`` steps and at the end, as :func:`ppo.train`. Starts a local Ray unless one runs (or
    joins ``address``). Returns the model, the curve and {steps, seconds, train_seconds, steps_per_s,
    env_runners, envs, nodes}: ``seconds`` from Ray's start to the last update, ``train_seconds`` inside
    ``Algorithm.train`` only, ``envs`` over all runners as they report it, ``nodes`` the Ray nodes the
    runners run on."""
    import ray
    import torch

    torch.set_num_threads(config.torch_threads)
    config = dataclasses.replace(config, engine="rllib")
    if not config.vocabulary:
        config.vocabulary = ppo.vocabulary_for(config)
    t0 = time.perf_counter()
    started = not ray.is_initialized()
    if started:
        init_ray(config.env_runners + 1, address)
    eval_env = ppo.make_env(config, "heldout", seed=config.seed) if eval_every > 0 else None
    curve: list[dict[str, Any]] = []
    steps, train_seconds = 0, 0.0
    algo = None
    try:
        algo = build_algo(config)
        envs, nodes = runner_envs(algo), runner_nodes(algo)
        model = RLlibModel(algo.get_module())

        def point() -> None:
            assert eval_env is not None
            t = time.perf_counter()
            row = {"steps": steps, "seconds": t - t0,
                   "families": ppo.evaluate(ppo.model_policy(model), eval_env, eval_episodes)}  # fmt: skip
            row["eval_seconds"] = time.perf_counter() - t
            curve.append(row)
            if on_eval is not None:
                on_eval(row)

        next_eval = 0
        while steps < config.timesteps:
            if eval_env is not None and steps >= next_eval:
                point()
                next_eval = (steps // eval_every + 1) * eval_every
            t = time.perf_counter()
            result = algo.train()
            train_seconds += time.perf_counter() - t
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        seconds = time.perf_counter() - t0 - sum(row["eval_seconds"] for row in curve)
        model = RLlibModel(algo.get_module())
        if eval_env is not None:
            point()
        if out is not None:
            folder = Path(out)
            folder.mkdir(parents=True, exist_ok=True)
            algo.save_to_path(str((folder / "rllib").resolve()))
            (folder / "config.json").write_text(json.dumps(config.to_json(), indent=1) + "\n")
            (folder / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    finally:
        if algo is not None:
            algo.stop()
        if eval_env is not None:
            eval_env.close()
        if started:
            ray.shutdown()
    stats = {"steps": float(steps), "seconds": seconds, "train_seconds": train_seconds,
             "steps_per_s": steps / max(seconds, 1e-9), "env_runners": float(len(envs)),
             "envs": float(sum(envs)), "nodes": float(len(set(nodes)))}  # fmt: skip
    return model, curve, stats

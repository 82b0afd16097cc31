"""PPO (Stable-Baselines3, torch on CPU) on the rl-phone task families: train, evaluate, save and load.

The env is ``Crab-Android-v0`` over the rl-phone tasks with a small ``obs_size``, through FlattenActions
(over SetOfMarks for element taps) and :class:`~crab_gym.baselines.ppo_env.PolicyView` ([kind, where]
actions; screen, instruction words, recent steps, element boxes); the policy is
:class:`~crab_gym.baselines.ppo_features.ElementPolicy` (SB3's ``MultiInputPolicy`` for grid taps) on the
``ScreenWords`` extractor. :func:`train` trains one policy on ``config.families`` (the instruction tells
them apart); :func:`train_per_family` one policy per family, which serves every task of its family. Training
uses the training seeds; :func:`evaluate` runs held-out seeds (see :mod:`crab_gym.tasks.rl_phone`).

A saved run is a folder: ``model.zip`` (SB3) and ``config.json`` (:class:`PPOConfig`, vocabulary
included), so :func:`load` rebuilds the same observation and action mapping. Needs the ``sb3`` extra.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from crab_gym.baselines.ppo_env import PolicyView, build_vocabulary
from crab_gym.tasks.rl_phone import FAMILIES, rl_phone_tasks

__all__ = [
    "PPOConfig",
    "evaluate",
    "load",
    "load_runs",
    "make_env",
    "random_policy",
    "save",
    "train",
    "train_per_family",
]

Policy = Callable[[dict[str, np.ndarray]], np.ndarray]


@dataclass
class PPOConfig:
    """Everything a run depends on; saved beside the model as config.json."""

    families: tuple[str, ...] = tuple(FAMILIES)
    tasks_per_family: int = 64  # seeds per family on each split
    obs_size: tuple[int, int, int] = (36, 80, 3)  # width, height, channels of the phone's observation
    actions: str = "elements"  # where a tap goes: "grid" (cells of the screen) or "elements" (uiautomator's)
    grid: tuple[int, int] = (8, 16)  # tap cells across, down
    max_elements: int = 24  # with elements: how many numbered elements a screen may have
    text_slots: int = 2  # write_text of the first k text candidates
    max_steps: int = 5
    solution_starts: float = 0.0  # share of training episodes that start partway along the scripted solution
    train_phone_seeds: tuple[int, ...] = (0, 1, 2, 3)
    heldout_phone_seeds: tuple[int, ...] = (1000, 1001, 1002, 1003)
    n_envs: int = 4
    vec: str = (
        "dummy"  # "dummy" (in-process), "subproc" (a process per env) or "batched" (make_vec's workers)
    )
    timesteps: int = 50_000  # env steps of training, per policy
    n_steps: int = 128  # per env and rollout
    batch_size: int = 128
    n_epochs: int = 8
    learning_rate: float = 5e-4
    gamma: float = 0.9
    gae_lambda: float = 0.95
    ent_coef: float = 0.03
    clip_range: float = 0.2
    seed: int = 0
    torch_threads: int = 1
    engine: str = "sb3"  # "sb3" (SB3 PPO) or "rllib" (RLlib PPO: crab_gym.baselines.rllib_ppo)
    env_runners: int = 2  # rllib: EnvRunners (a process each) ...
    envs_per_runner: int = 2  # ... of this many envs each
    vocabulary: tuple[str, ...] = field(default=())  # filled from the training tasks by train()

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "config") -> PPOConfig:
        """A config from its JSON object; unknown or malformed fields raise ValueError naming the field."""
        if not isinstance(data, dict):
            raise ValueError(f"{source}: must be a JSON object of PPOConfig fields")
        names = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(f"{source}: unknown field(s) {unknown}; fields: {sorted(names)}")
        values: dict[str, Any] = {}
        for key, value in data.items():
            default = getattr(cls(), key)
            try:
                if isinstance(default, tuple):
                    if not isinstance(value, (list, tuple)):
                        raise TypeError("not a list")
                    values[key] = tuple(type(default[0])(v) if default else v for v in value)
                elif isinstance(default, bool) or not isinstance(default, (int, float, str)):
                    values[key] = value
                else:
                    values[key] = type(default)(value)
            except (TypeError, ValueError) as e:
                raise ValueError(f"{source}: field {key!r}: {e} (got {value!r})") from None
        config = cls(**values)
        bad = [f for f in config.families if f not in FAMILIES]
        if bad:
            raise ValueError(f"{source}: field 'families': unknown {bad}; families: {list(FAMILIES)}")
        if config.actions not in ("grid", "elements"):
            raise ValueError(
                f"{source}: field 'actions' must be 'grid' or 'elements', got {config.actions!r}"
            )
        if config.vec not in ("dummy", "subproc", "batched"):
            raise ValueError(
                f"{source}: field 'vec' must be 'dummy', 'subproc' or 'batched', got {config.vec!r}"
            )
        if config.engine not in ("sb3", "rllib"):
            raise ValueError(f"{source}: field 'engine' must be 'sb3' or 'rllib', got {config.engine!r}")
        return config


def make_env(config: PPOConfig, split: str = "train", seed: int | None = None) -> PolicyView:
    """The policy's env on one split: rl-phone tasks of ``config.families``, phone seeds of that split."""
    import crab_gym  # noqa: F401 - registers the env ids
    from crab_gym.wrappers import FlattenActions, SetOfMarks

    if not config.vocabulary:
        raise ValueError("config.vocabulary is empty: train() fills it, or use vocabulary_for(config)")
    tasks = rl_phone_tasks(split, config.families, config.tasks_per_family)
    core = gym.make(
        "Crab-Android-v0",
        tasks=tasks,
        obs_size={"android": tuple(config.obs_size)},
        max_steps=config.max_steps,
        max_invalid_actions=config.max_steps,
    )
    if config.actions == "elements":  # the phone's own tree: no region detector, nothing drawn
        core = SetOfMarks(core, detector=False, draw_marks=False, max_marks=config.max_elements)
    flat = FlattenActions(core, grid=(config.grid[0], config.grid[1]), screen_size=None)
    seeds = config.train_phone_seeds if split == "train" else config.heldout_phone_seeds
    starts = config.solution_starts if split == "train" else 0.0
    return PolicyView(flat, config.vocabulary, seeds, config.text_slots, seed=seed, solution_starts=starts)


def vocabulary_for(config: PPOConfig) -> tuple[str, ...]:
    """The input vocabulary: every instruction word of the training tasks."""
    return tuple(build_vocabulary(rl_phone_tasks("train", config.families, config.tasks_per_family)))


def _family_names() -> dict[str, str]:
    return {f.template.id: name for name, f in FAMILIES.items()}


def evaluate(
    policy: Policy,
    env: PolicyView,
    episodes_per_family: int = 32,
    phone_seeds: Sequence[int] | None = None,
) -> dict[str, dict[str, float]]:
    """{family: success rate, mean return, mean steps, episodes} over a fixed list of episodes: episode i
    of a family is its task i (cycling) on phone seed i (cycling), the same for every policy."""
    from crab_gym.rollout import rollout

    seeds = list(phone_seeds or env.phone_seeds)
    names = _family_names()
    agent = PolicyAgent(policy)
    out: dict[str, dict[str, float]] = {}
    for family, ids in env.families.items():
        wins, returns, steps = 0, 0.0, 0
        for i in range(episodes_per_family):
            options = {"phone_seed": seeds[i % len(seeds)]}
            record = rollout(env, agent, task=ids[i % len(ids)], options=options)
            returns += record.return_
            steps += record.steps
            wins += record.success
        n = max(1, episodes_per_family)
        out[names.get(family, family)] = {
            "success": wins / n,
            "return": returns / n,
            "steps": steps / n,
            "episodes": episodes_per_family,
        }
    return out


class PolicyAgent:
    """A policy (observation -> action) as an agent of :func:`crab_gym.rollout`."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def act(self, obs: Any, info: dict[str, Any]) -> Any:
        return self.policy(obs)


def random_policy(space: gym.spaces.Space, seed: int = 0) -> Policy:
    """Uniform over the policy's action space: the random agent of the same actions."""
    assert isinstance(space, gym.spaces.MultiDiscrete), space  # PolicyView's
    rng = np.random.default_rng(seed)
    return lambda obs: rng.integers(space.nvec)


def model_policy(model: Any) -> Policy:
    """The trained policy's most likely action."""
    return lambda obs: model.predict(obs, deterministic=True)[0]


def _make_vec(config: PPOConfig) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    fns: list[Callable[[], gym.Env]] = [
        functools.partial(make_env, config, "train", seed=config.seed * 1000 + i)
        for i in range(config.n_envs)
    ]
    if config.vec == "batched":  # one worker per core, each stepping its share of the envs together
        from gymnasium.vector import AutoresetMode

        from crab_gym.baselines.sb3_vec import SB3VecEnv
        from crab_gym.vector import BatchedVectorEnv

        vec: Any = SB3VecEnv(BatchedVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP))
    else:
        vec = SubprocVecEnv(fns) if config.vec == "subproc" else DummyVecEnv(fns)
    vec.seed(config.seed)
    return VecMonitor(vec)


def new_model(config: PPOConfig, vec: Any) -> Any:
    """A fresh PPO: ElementPolicy (a pointer head over the elements) or, for the grid, SB3's
    MultiInputPolicy, both on the ScreenWords extractor."""
    from stable_baselines3 import PPO

    from crab_gym.baselines.ppo_features import ElementPolicy, ScreenWords

    policy: Any = ElementPolicy if config.actions == "elements" else "MultiInputPolicy"
    return PPO(
        policy,
        vec,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        ent_coef=config.ent_coef,
        clip_range=config.clip_range,
        seed=config.seed,
        device="cpu",
        verbose=0,
        policy_kwargs={"features_extractor_class": ScreenWords, "net_arch": {"pi": [128], "vf": [128]}},
    )


def train(
    config: PPOConfig,
    out: str | Path | None = None,
    eval_every: int = 0,
    eval_episodes: int = 16,
    on_eval: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """Train PPO for ``config.timesteps``; every ``eval_every`` steps (and at 0 and the end) evaluate on
    held-out seeds. Returns the model and the curve: [{steps, seconds, families: {...}}]. With ``out``,
    saves model.zip, config.json and curve.json there."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(config.torch_threads)
    if not config.vocabulary:
        config.vocabulary = vocabulary_for(config)
    vec = _make_vec(config)
    model = new_model(config, vec)
    eval_env = make_env(config, "heldout", seed=config.seed) if eval_every > 0 else None
    curve: list[dict[str, Any]] = []
    t0 = time.perf_counter()

    def point(steps: int) -> None:
        assert eval_env is not None
        t = time.perf_counter()
        row = {
            "steps": steps,
            "seconds": t - t0,
            "families": evaluate(model_policy(model), eval_env, eval_episodes),
        }
        row["eval_seconds"] = time.perf_counter() - t
        curve.append(row)
        if on_eval is not None:
            on_eval(row)

    class Curve(BaseCallback):
        """Evaluates between updates (at the start of a rollout), so a point shows the policy as updated."""

        next = 0

        def _on_rollout_start(self) -> None:
            if eval_env is not None and self.num_timesteps >= self.next:
                point(self.num_timesteps)
                self.next = (self.num_timesteps // eval_every + 1) * eval_every

        def _on_step(self) -> bool:
            return True

    try:
        model.learn(total_timesteps=config.timesteps, callback=Curve())
        if eval_env is not None:
            if curve and curve[-1]["steps"] == model.num_timesteps:
                curve.pop()  # taken before the last update
            point(model.num_timesteps)
    finally:
        vec.close()
        if eval_env is not None:
            eval_env.close()
    if out is not None:
        save(model, config, out)
        (Path(out) / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")
    return model, curve


def _train_one(job: tuple[dict[str, Any], str, int, int]) -> list[dict[str, Any]]:
    """One family's training in a worker process (top level, so a spawned process can run it)."""
    data, out, eval_every, eval_episodes = job
    config = PPOConfig.from_json(data)
    name = "+".join(config.families)

    def show(row: dict[str, Any]) -> None:
        r = row["families"].get(name, {})
        print(
            f"[{name}] {row['steps']:7d} steps {row['seconds']:6.0f} s  held-out success "
            f"{r.get('success', 0.0):.2f} return {r.get('return', 0.0):.2f}",
            flush=True,
        )

    return train(config, out, eval_every, eval_episodes, on_eval=show)[1]


def train_per_family(
    config: PPOConfig, out: str | Path, parallel: int = 2, eval_every: int = 0, eval_episodes: int = 16
) -> dict[str, list[dict[str, Any]]]:
    """One policy per family of ``config`` (``config.timesteps`` steps each), saved in ``out/<family>``;
    ``parallel`` of them train at a time, each in a process of its own. Returns {family: curve}."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    jobs = [
        (dataclasses.replace(config, families=(f,), vocabulary=()).to_json(), str(Path(out) / f), eval_every,
         eval_episodes)
        for f in config.families
    ]  # fmt: skip
    if parallel <= 1 or len(jobs) == 1:
        curves = [_train_one(job) for job in jobs]
    else:
        with ProcessPoolExecutor(min(parallel, len(jobs)), mp_context=mp.get_context("spawn")) as pool:
            curves = list(pool.map(_train_one, jobs))
    return dict(zip(config.families, curves, strict=True))


def load_runs(path: str | Path) -> dict[str, tuple[Any, PPOConfig]]:
    """{name: (model, config)} of a run folder (or its model.zip), or of every run folder inside a folder
    (as :func:`train_per_family` writes them); ValueError when there is none."""
    folder = Path(path)
    if folder.suffix == ".zip" or (folder / "config.json").exists() or not folder.is_dir():
        model, config = load(folder)
        return {"+".join(config.families): (model, config)}
    runs = {sub.name: load(sub) for sub in sorted(folder.iterdir()) if (sub / "config.json").is_file()}
    if not runs:
        raise ValueError(f"{folder}: no run folder (model.zip and config.json) in it or under it")
    return runs


def save(model: Any, config: PPOConfig, out: str | Path) -> Path:
    """model.zip and config.json in the folder ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / "model.zip")
    (folder / "config.json").write_text(json.dumps(config.to_json(), indent=1) + "\n")
    return folder


def load(path: str | Path) -> tuple[Any, PPOConfig]:
    """(model, config) from a run folder (or its model.zip); a bad folder or config raises ValueError
    naming the file and field."""
    from stable_baselines3 import PPO

    folder = Path(path)
    if folder.suffix == ".zip":
        folder = folder.parent
    model_file, config_file = folder / "model.zip", folder / "config.json"
    for f in (config_file,) if (folder / "rllib").is_dir() else (model_file, config_file):
        if not f.is_file():
            raise ValueError(f"{f}: missing (a run folder holds model.zip or rllib/, and config.json)")
    try:
        data = json.loads(config_file.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{config_file}: not valid JSON (line {e.lineno}: {e.msg})") from None
    config = PPOConfig.from_json(data, str(config_file))
    if not config.vocabulary:
        raise ValueError(f"{config_file}: field 'vocabulary' is empty")
    if config.engine == "rllib":
        from crab_gym.baselines.rllib_ppo import load_model

        return load_model(folder), config
    try:
        model = PPO.load(model_file, device="cpu")
    except Exception as e:  # a truncated or foreign zip
        raise ValueError(f"{model_file}: not an SB3 PPO model ({type(e).__name__}: {e})") from None
    return model, config

"""`crab-gym train --engine rllib`: RLlib PPO on two rl-phone families through 2 EnvRunners of 2 envs each;
the envs of every runner draw their own tasks, and the Algorithm checkpoint is read back by ``ppo.load`` (the
path SB3's model.zip takes), acts validly on held-out seeds and scores as it did at the end of training."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("stable_baselines3")

from ray_scripts import run_script  # noqa: E402

from crab_gym.baselines import ppo, rllib_ppo  # noqa: E402
from crab_gym.baselines.rllib_learner import ADAM_EPS, minibatch_advantages  # noqa: E402
from crab_gym.cli import main  # noqa: E402

FAMILIES = ("create_item", "dial_number")
SMALL = dict(families=list(FAMILIES), tasks_per_family=4, timesteps=256, n_steps=64, batch_size=64,
             n_epochs=1, env_runners=2, envs_per_runner=2, train_phone_seeds=[0, 1],
             heldout_phone_seeds=[1000])  # fmt: skip


@pytest.mark.ray
def test_the_envs_of_every_runner_draw_their_own_tasks(local_ray):
    config = ppo.PPOConfig.from_json(SMALL)
    config.vocabulary = ppo.vocabulary_for(config)

    def next_tasks(runner) -> list[tuple[str, ...]]:  # nested: pickled by value for the runners
        """One step of each env (RLlib's seeded first reset), then the next 4 tasks of each."""
        runner.sample(num_timesteps=runner.num_envs, random_actions=True)
        draws = []
        for env in runner.env.unwrapped.envs:
            ids = []
            for _ in range(4):
                env.reset()
                ids.append(env.unwrapped.task.id)
            draws.append(tuple(ids))
        return draws

    algo = rllib_ppo.build_algo(config)
    try:
        assert rllib_ppo.runner_envs(algo) == [2, 2]
        optimizer = algo.learner_group._learner.get_optimizer()  # the driver's learner (num_learners=0)
        assert optimizer.param_groups[0]["eps"] == ADAM_EPS  # SB3's, not torch's 1e-8
        per_runner = algo.env_runner_group.foreach_env_runner(next_tasks, local_env_runner=False)
    finally:
        algo.stop()
    draws = [d for runner in per_runner for d in runner]
    assert len(draws) == 4
    assert len(set(draws)) == 4, draws  # RLlib's seeds overlap across runners (seed + runner + env)
    assert {t.split("-")[1] for d in draws for t in d} <= set(FAMILIES)


@pytest.mark.ray
def test_train_saves_a_checkpoint_that_ppo_load_reads_and_evaluates(local_ray, tmp_path, capsys, monkeypatch):
    config_file, out = tmp_path / "ppo.json", tmp_path / "run"
    config_file.write_text(json.dumps(SMALL))
    monkeypatch.chdir(tmp_path)  # --out relative, as in `--out runs/rllib`: RLlib reads such a path as a URI
    args = ["train", "--engine", "rllib", "--joint", "--config", str(config_file), "--out", "run"]
    assert main([*args, "--eval-every", "256", "--episodes", "2"]) == 0
    printed = capsys.readouterr().out
    assert "(2 EnvRunners, 4 envs in all)" in printed, printed
    table = printed[printed.index("random SR") :]
    assert "ppo SR" in table and all(f in table for f in FAMILIES) and "open_app" not in table

    assert (out / "rllib").is_dir() and not (out / "model.zip").exists()
    curve = json.loads((out / "curve.json").read_text())
    assert curve[0]["steps"] == 0 and curve[-1]["steps"] >= 256
    assert set(curve[-1]["families"]) == set(FAMILIES)

    model, config = ppo.load(out)
    assert isinstance(model, rllib_ppo.RLlibModel) and config.engine == "rllib"
    assert config.families == FAMILIES and config.vocabulary
    env = ppo.make_env(config, "heldout", seed=config.seed)
    try:
        obs, _ = env.reset(seed=1)
        for _ in range(3):
            action, _ = model.predict(obs, deterministic=True)
            assert env.action_space.contains(action), action
            assert (model.predict(obs)[0] == action).all()  # greedy: the same action again
            obs, _, _, _, info = env.step(action)
            assert "invalid_action" not in info or "element" not in info["invalid_action"]  # masked away
        with pytest.raises(ValueError, match="greedy"):
            model.predict(obs, deterministic=False)
        again = ppo.evaluate(ppo.model_policy(model), env, episodes_per_family=16)  # the curve's episodes
    finally:
        env.close()
    for family in FAMILIES:
        assert again[family]["success"] == curve[-1]["families"][family]["success"]
        assert again[family]["return"] == pytest.approx(curve[-1]["families"][family]["return"])


@pytest.mark.ray
def test_a_minibatch_standardises_its_real_advantages_as_sb3_does_whatever_the_whole_batch_did():
    torch = pytest.importorskip("torch")
    raw = torch.randn(40, generator=torch.Generator().manual_seed(0)) * 3 + 2
    mask = torch.ones(40, dtype=torch.bool)
    mask[::5] = False  # RLlib's artificial bootstrap rows: their advantages are garbage
    raw[~mask] = 50.0
    whole = (raw - raw.mean()) / raw.std()  # RLlib's GAE connector: over every row, garbage included
    out = minibatch_advantages(whole, mask)
    real = raw[mask]
    assert torch.allclose(out[mask], (real - real.mean()) / (real.std() + 1e-8), atol=1e-5)  # SB3's
    assert abs(float(out[mask].mean())) < 1e-5 and float(out[mask].std()) == pytest.approx(1.0, abs=1e-4)
    assert torch.equal(minibatch_advantages(raw[:1], None), raw[:1])  # one row: nothing to standardise


@pytest.mark.ray
def test_the_module_starts_as_sb3_initialises_its_policy():
    from gymnasium import spaces

    from crab_gym.baselines.rllib_module import CrabPPOModule

    obs = spaces.Dict({"screen": spaces.Box(0, 255, (80, 36, 3), np.uint8),
                       "words": spaces.Box(0.0, 1.0, (40,), np.float32),
                       "marks": spaces.Box(0.0, 1.0, (96,), np.float32)})  # fmt: skip
    module = CrabPPOModule(observation_space=obs, action_space=spaces.MultiDiscrete([6, 24]),
                           model_config={"hidden": 128})  # fmt: skip
    for layer, gain in ((module.actor[0], 2.0**0.5), (module.critic[0], 2.0**0.5), (module.value, 1.0),
                        (module.features.screen, 2.0**0.5), (module.features.cnn[0], 2.0**0.5)):  # fmt: skip
        w = layer.weight.detach().flatten(1).numpy()
        rows = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w  # orthogonal: gain^2 times the identity
        assert np.allclose(rows, gain**2 * np.eye(len(rows)), atol=1e-4), layer
        assert not layer.bias.detach().any()


def test_a_broken_checkpoint_is_a_one_line_error_naming_it(tmp_path, capsys):
    config = ppo.PPOConfig.from_json({**SMALL, "engine": "rllib", "vocabulary": ["a"]})
    (tmp_path / "config.json").write_text(json.dumps(config.to_json()))
    (tmp_path / "rllib").mkdir()
    with pytest.raises(ValueError, match=r"default_policy: missing"):
        ppo.load(tmp_path)
    module = tmp_path.joinpath("rllib", *rllib_ppo._MODULE_PATH)
    module.mkdir(parents=True)
    (module / "module_state.pt").write_bytes(b"truncated")
    with pytest.raises(ValueError, match=r"default_policy: not an RLlib module checkpoint"):
        ppo.load(tmp_path)
    assert main(["train", "--eval", str(tmp_path)]) == 2
    assert "default_policy" in capsys.readouterr().err


CLUSTER = r"""
import json, sys
from ray.cluster_utils import Cluster
from crab_gym.cli import main

cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
try:
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    sys.exit(main(["train", "--engine", "rllib", "--joint", "--config", sys.argv[1], "--out", sys.argv[2],
                   "--address", cluster.address, "--episodes", "1"]))
finally:
    cluster.shutdown()
"""


@pytest.mark.ray
def test_address_joins_a_two_node_cluster_whose_nodes_run_the_env_runners(tmp_path):
    """Two Ray nodes of one CPU each (``ray.cluster_utils.Cluster``, in a subprocess, since this process may
    hold the other tests' local Ray): the two EnvRunners can only run one on each, and the run says so."""
    config_file = tmp_path / "ppo.json"
    config_file.write_text(json.dumps({**SMALL, "timesteps": 128}))
    proc = run_script([sys.executable, "-c", CLUSTER, str(config_file), str(tmp_path / "run")], timeout=400)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "(2 EnvRunners, 4 envs in all) on 2 Ray node(s)" in proc.stdout, proc.stdout  # a local Ray: 1
    assert (tmp_path / "run" / "rllib").is_dir()


def test_address_is_refused_without_the_rllib_engine(capsys):
    assert main(["train", "--engine", "sb3", "--address", "127.0.0.1:6379", "--timesteps", "8"]) == 2
    assert "--address 127.0.0.1:6379: only with --engine rllib" in capsys.readouterr().err

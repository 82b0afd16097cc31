"""PPO on the rl-phone families: the task set and its splits, the policy's view of the phone, and a short
run that trains, saves, reloads and acts (no assertion on how fast it learns)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from crab_gym.baselines import ppo  # noqa: E402
from crab_gym.baselines.ppo_env import PolicyView, instruction_words  # noqa: E402
from crab_gym.cli import main  # noqa: E402
from crab_gym.runs.validate import run_check  # noqa: E402
from crab_gym.tasks import load_tasks  # noqa: E402
from crab_gym.tasks.rl_phone import FAMILIES, HELDOUT_SEED, rl_phone_tasks  # noqa: E402
from crab_gym.tasks.validate import lint_tasks  # noqa: E402


def _small_config(**kw) -> ppo.PPOConfig:
    base = dict(
        tasks_per_family=4,
        timesteps=256,
        n_envs=2,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        train_phone_seeds=(0,),
        heldout_phone_seeds=(1000,),
    )
    base.update(kw)
    config = ppo.PPOConfig(**base)
    config.vocabulary = ppo.vocabulary_for(config)
    return config


# ---- the task set -------------------------------------------------------------------------------------


def test_rl_phone_set_splits_and_held_out_pools():
    train, held = rl_phone_tasks("train", n=40), rl_phone_tasks("heldout", n=40)
    assert len(load_tasks("rl-phone")) == 2 * 64 * len(FAMILIES)
    assert [t.id for t in load_tasks("rl-phone:heldout")][:1] == [f"rl-open_app-{HELDOUT_SEED}"]
    assert [t.id for t in rl_phone_tasks("train", n=3)] == [t.id for t in rl_phone_tasks("train", n=3)]
    assert all(r.ok for r in lint_tasks(train + held)), [r.problems for r in lint_tasks(train + held)]

    def attrs(tasks, family):
        return [t.subtasks[0].attributes for t in tasks if t.id.startswith(f"rl-{family}-")]

    pairs = {(a["app"], a["start"]) for a in attrs(train, "open_app")}
    assert not pairs & {(a["app"], a["start"]) for a in attrs(held, "open_app")}
    toggles = {(a["setting"], a["state"]) for a in attrs(train, "toggle_setting")}
    assert not toggles & {(a["setting"], a["state"]) for a in attrs(held, "toggle_setting")}
    assert not {a["title"] for a in attrs(train, "create_item")} & {
        a["title"] for a in attrs(held, "create_item")
    }
    assert not {a["number"] for a in attrs(train, "dial_number")} & {
        a["number"] for a in attrs(held, "dial_number")
    }
    with pytest.raises(ValueError, match="unknown rl-phone families"):
        rl_phone_tasks("train", families=["fly_to_moon"])
    with pytest.raises(ValueError, match="rl-phone:heldout"):
        load_tasks("rl-phone:test")


def test_rl_phone_tasks_are_unsolved_at_reset_and_solvable():
    tasks = [t for split in ("train", "heldout") for t in rl_phone_tasks(split, n=2)]
    results = run_check(tasks)
    assert all(r.ok for r in results), [(r.task_id, r.problems) for r in results if not r.ok]


# ---- the policy's view -----------------------------------------------------------------------------------


def _solve_with_view(env: PolicyView, task_id: str) -> dict:
    """Run the task's scripted solution through the view's [kind, x, y] actions."""
    obs, info = env.reset(options={"task": task_id, "phone_seed": 1000})
    task = env.unwrapped.task
    gx, gy = env.flat.grid
    rest = [0] * (len(env.action_space.nvec) - 1)
    for step in task.solution():
        if step.action == "tap" and env.elements:
            w, h = env.unwrapped.subenvs["android"].screen_size
            x, y = step.params["point"]
            action = [0, env.flat.env.mark_for_point("android", x * w, y * h).id - 1]
        elif step.action == "tap":
            x, y = step.params["point"]
            action = [0, min(int(x * gx), gx - 1), min(int(y * gy), gy - 1)]
        elif step.action == "write_text":
            k = env.flat.text_candidates.index(step.params["text"])
            action = [env.kinds.index(f"write_text(candidate {k})"), *rest]
        elif step.action == "press":
            action = [env.kinds.index(f"press({step.params['button']})"), *rest]
        else:
            action = [env.kinds.index(f"{step.action}()"), *rest]
        obs, reward, terminated, truncated, info = env.step(np.array(action))
        assert env.observation_space.contains(obs)
    return info


@pytest.mark.parametrize("actions", ["grid", "elements"])
def test_policy_view_spaces_words_and_every_family_solvable_through_it(actions):
    config = _small_config(actions=actions)
    env = ppo.make_env(config, "heldout", seed=0)
    try:
        assert env.action_space.nvec.tolist() == ([6, 8, 16] if actions == "grid" else [6, 24])
        obs, info = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        assert obs["screen"].shape == (80, 36, 3) and ("marks" in obs) == (actions == "elements")
        words = instruction_words("In Tasks, create a new to-do named 'Quiet River'.")
        assert "quiet" not in words and words[:2] == ["in", "tasks"]
        bag = env.encode_words("In Tasks, create a new to-do named 'Quiet River'.")
        assert bag[config.vocabulary.index("tasks")] == 1.0 and bag.sum() == len(set(words))
        for family, ids in env.families.items():
            info = _solve_with_view(env, ids[0])
            assert info["success"], (family, info["feedback"])
    finally:
        env.close()


@pytest.mark.parametrize("actions", ["grid", "elements"])
def test_policy_view_malformed_action_is_an_invalid_action(actions):
    env = ppo.make_env(_small_config(actions=actions), "train", seed=0)
    try:
        env.reset(seed=0)
        bad_actions = [[9, 0, 0], [0, 8, 0], [0.5, 1, 1], "tap", [1, 2]]
        if actions == "elements":
            bad_actions = [[9, 0], [0, 24], [0.5, 1], "tap", [1, 2, 3], [0, 23]]  # [0, 23]: no 24th element
        for bad in bad_actions:
            obs, reward, terminated, truncated, info = env.step(bad)
            assert "invalid_action" in info and reward == 0.0
            assert env.observation_space.contains(obs)
            if terminated or truncated:  # max_invalid_actions reached
                assert info["termination_reason"] == "invalid_action_limit"
                env.reset()
    finally:
        env.close()


# ---- train, save, reload, act ------------------------------------------------------------------------


@pytest.mark.parametrize("actions", ["elements", "grid"])
def test_short_run_trains_saves_reloads_and_acts(tmp_path, capsys, actions):
    config = _small_config(actions=actions)
    model, curve = ppo.train(config, out=tmp_path, eval_every=128, eval_episodes=1)
    assert {p.name for p in tmp_path.iterdir()} >= {"model.zip", "config.json", "curve.json"}
    assert [row["steps"] for row in curve][0] == 0 and curve[-1]["steps"] >= config.timesteps
    assert set(curve[-1]["families"]) == set(FAMILIES)

    loaded, cfg = ppo.load(tmp_path)
    assert cfg.vocabulary == config.vocabulary and cfg.actions == actions
    env = ppo.make_env(cfg, "heldout", seed=0)
    try:
        obs, _ = env.reset(seed=1)
        for _ in range(3):
            action, _ = loaded.predict(obs, deterministic=True)
            assert env.action_space.contains(action)
            obs, *_ = env.step(action)
        results = ppo.evaluate(ppo.model_policy(loaded), env, episodes_per_family=1)
        assert set(results) == set(FAMILIES) and all(0.0 <= r["success"] <= 1.0 for r in results.values())
    finally:
        env.close()

    assert main(["train", "--eval", str(tmp_path / "model.zip"), "--episodes", "1"]) == 0
    out = capsys.readouterr().out
    assert "random SR" in out and "ppo SR" in out and "dial_number" in out


def test_load_names_the_file_and_field_at_fault(tmp_path, capsys):
    with pytest.raises(ValueError, match="model.zip: missing"):
        ppo.load(tmp_path)
    (tmp_path / "model.zip").write_bytes(b"not a zip")
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"config.json: not valid JSON"):
        ppo.load(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"grid": "wide"}))
    with pytest.raises(ValueError, match=r"config.json: field 'grid'"):
        ppo.load(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"families": ["nope"], "vocabulary": ["a"]}))
    with pytest.raises(ValueError, match=r"field 'families'"):
        ppo.load(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"vocabulary": ["a"]}))
    with pytest.raises(ValueError, match=r"model.zip: not an SB3 PPO model"):
        ppo.load(tmp_path)
    assert main(["train", "--eval", str(tmp_path)]) == 2
    assert "model.zip" in capsys.readouterr().err


def test_one_policy_per_family_in_parallel_and_evaluated_together(tmp_path, capsys):
    config = _small_config(families=("create_item", "dial_number"), timesteps=128)
    curves = ppo.train_per_family(config, tmp_path, parallel=2, eval_every=128, eval_episodes=1)
    assert set(curves) == {"create_item", "dial_number"}
    assert all(curve[-1]["steps"] >= 128 and len(curve[-1]["families"]) == 1 for curve in curves.values())
    runs = ppo.load_runs(tmp_path)
    assert set(runs) == {"create_item", "dial_number"}
    assert (
        runs["create_item"][1].families == ("create_item",)
        and "keypad" not in runs["create_item"][1].vocabulary
    )
    assert main(["train", "--eval", str(tmp_path), "--episodes", "1"]) == 0
    table = capsys.readouterr().out
    assert "create_item" in table and "dial_number" in table and "open_app" not in table


def test_train_command_rejects_bad_options_before_training(tmp_path, capsys):
    bad = tmp_path / "ppo.json"
    bad.write_text(json.dumps({"timesteps": "many"}))
    assert main(["train", "--config", str(bad), "--out", str(tmp_path / "run")]) == 2
    assert "ppo.json: field 'timesteps'" in capsys.readouterr().err
    assert main(["train", "--families", "open_app,fly", "--out", str(tmp_path / "run")]) == 2
    assert "field 'families'" in capsys.readouterr().err
    assert main(["train", "--vec", "threads", "--out", str(tmp_path / "run")]) == 2
    assert not (tmp_path / "run").exists()

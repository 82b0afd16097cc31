"""Vector envs without surprises: async workers for every id, both autoreset modes, a device each, and a
worker whose device died recovers at its next reset instead of taking the vector env down."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import adbutils
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import crab_gym  # noqa: F401
from crab_gym.spaces import decode_instruction

IDS = {"Crab-Android-v0": ["android"], "Crab-Desktop-v0": ["ubuntu"], "Crab-v0": ["ubuntu", "android"]}
COMPLETE = 1  # root's actions: submit, complete, wait
NOWHERE = 99  # a device index no env has: an invalid action, no device touched, the step still counts


def make_vec(env_id: str, mode: AutoresetMode, tasks, **kwargs) -> gym.vector.VectorEnv:
    return gym.make_vec(
        env_id, num_envs=2, vectorization_mode="async",
        vector_kwargs={"shared_memory": True, "autoreset_mode": mode},
        tasks=tasks, max_steps=2, max_invalid_actions=10, **kwargs,
    )  # fmt: skip


def batch(vec: gym.vector.VectorEnv, *actions: tuple[int, int, dict]) -> tuple:
    """One batched action from per-worker (device, action, params); unset parameters are sampled."""
    space = vec.unwrapped.single_action_space[2]
    full = [{**{k: s.sample() for k, s in space.spaces.items()}, "seconds": 1, **p} for _, _, p in actions]
    params = {
        k: tuple(f[k] for f in full)
        if isinstance(full[0][k], str)
        else np.stack([np.asarray(f[k]) for f in full])
        for k in full[0]
    }
    return np.array([a[0] for a in actions]), np.array([a[1] for a in actions]), params


def root(vec: gym.vector.VectorEnv) -> int:
    return vec.unwrapped.single_action_space[0].n - 1  # root is the last device


@pytest.fixture(scope="module")
def vecs(note_task):
    """Vector envs by (id, mode), made once and shared by this module's tests."""
    made: dict[tuple[str, AutoresetMode], gym.vector.VectorEnv] = {}

    def get(env_id: str, mode: AutoresetMode) -> gym.vector.VectorEnv:
        if (env_id, mode) not in made:
            tasks = ["contacts_add-0"] if env_id == "Crab-Android-v0" else [note_task]
            made[env_id, mode] = make_vec(env_id, mode, tasks)
        return made[env_id, mode]

    yield get
    for vec in made.values():
        vec.close()


CASES = [
    pytest.param(
        env_id, mode, marks=[pytest.mark.slow] if "ubuntu" in devices else [], id=f"{env_id}-{mode.name}"
    )
    for env_id, devices in IDS.items()
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
]


@pytest.mark.parametrize("env_id, mode", CASES)
def test_episodes_end_and_reset_inside_the_vector_env(vecs, env_id, mode):
    vec = vecs(env_id, mode)
    screens = IDS[env_id]
    obs0, info = vec.reset(seed=0)
    text = decode_instruction(obs0["instruction"][0])
    assert all(decode_instruction(i) == text for i in obs0["instruction"])
    ids = vec.call("device_ids")
    for dev in screens:  # every worker has its own devices
        assert ids[0][dev] and ids[0][dev] != ids[1][dev]
    if "ubuntu" in screens:
        assert ids[0]["ubuntu"]["display"] != ids[1]["ubuntu"]["display"]
    r = root(vec)
    # worker 0 counts invalid steps up to the step limit (2); worker 1 calls complete() at once
    obs, reward, term, trunc, info = vec.step(batch(vec, (NOWHERE, 0, {}), (r, COMPLETE, {})))
    assert term.tolist() == [False, True] and trunc.tolist() == [False, False]
    if mode == AutoresetMode.SAME_STEP:
        # the episode that ended is in final_obs / final_info; obs is already the next episode's first
        assert info["_final_obs"].tolist() == [False, True]
        final = info["final_obs"][1]
        assert final["instruction"].shape == obs0["instruction"][1].shape
        for dev in screens:
            assert final[dev]["screen"].shape == obs0[dev]["screen"][1].shape
        assert info["final_info"]["termination_reason"][1] == "false_completion"
        assert info["_initial_completion_ratio"].tolist() == [False, True]  # worker 1's reset info
    else:
        assert info["termination_reason"][1] == "false_completion" and "final_obs" not in info
    if "android" in screens:  # the simulated phone resets to the same frame: the reset obs is a first obs
        if mode == AutoresetMode.SAME_STEP:
            assert np.array_equal(obs["android"]["screen"][1], obs0["android"]["screen"][1])
    obs, reward, term, trunc, info = vec.step(batch(vec, (NOWHERE, 0, {}), (NOWHERE, 0, {})))
    ended = info["final_info"] if mode == AutoresetMode.SAME_STEP else info
    assert trunc[0] and ended["termination_reason"][0] == "step_limit"
    if mode == AutoresetMode.NEXT_STEP:
        # worker 1 was reset by this step: no reward, not done, its reset info and first observation
        assert reward[1] == 0 and not term[1] and not trunc[1]
        assert info["_initial_completion_ratio"].tolist() == [False, True] and info["steps"][1] == 0
        if "android" in screens:
            assert np.array_equal(obs["android"]["screen"][1], obs0["android"]["screen"][1])
    else:
        assert info["_final_obs"].tolist() == [True, False] and info["steps"][0] == 0
    obs, reward, term, trunc, info = vec.step(batch(vec, (NOWHERE, 0, {}), (NOWHERE, 0, {})))
    assert decode_instruction(obs["instruction"][0]) == text
    assert "error" not in info


def _wait_dead(pid: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return
        except FileNotFoundError:
            return
        time.sleep(0.02)
    raise AssertionError(f"pid {pid} is still alive")


@pytest.mark.slow
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=lambda m: m.name)
def test_a_worker_whose_xvfb_died_recovers_at_its_next_reset(vecs, mode):
    vec = vecs("Crab-Desktop-v0", mode)
    vec.reset(seed=0)
    before = vec.call("device_ids")
    pid = before[0]["ubuntu"]["xvfb_pid"]
    os.kill(pid, signal.SIGKILL)
    _wait_dead(pid)
    click = (0, 0, {"point": np.array([0.5, 0.5], np.float32)})
    obs, _, term, trunc, info = vec.step(batch(vec, click, (NOWHERE, 0, {})))
    if mode == AutoresetMode.SAME_STEP:  # ended and reset in this step
        assert info["final_info"]["termination_reason"][0] == "env_error" and "error" in info["final_info"]
    else:
        assert (
            trunc[0]
            and info["termination_reason"][0] == "env_error"
            and info["_error"].tolist() == [True, False]
        )
        obs, _, term, trunc, info = vec.step(
            batch(vec, (NOWHERE, 0, {}), (NOWHERE, 0, {}))
        )  # worker 0 resets
    after = vec.call("device_ids")
    assert after[0]["ubuntu"]["xvfb_pid"] != pid and after[1] == before[1], (
        "only worker 0's device was rebuilt"
    )
    assert obs["ubuntu"]["screen"][0].any(), "a real frame, not the blank one of the failed step"
    obs, _, term, trunc, info = vec.step(batch(vec, click, (NOWHERE, 0, {})))
    assert "_error" not in info or not info["_error"].any()


def test_a_worker_whose_adb_phone_died_recovers_at_its_next_reset(adb_port, monkeypatch):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_port))
    vec = make_vec(
        "Crab-Android-v0", AutoresetMode.NEXT_STEP, ["contacts_add-0"], backends={"android": "adb-sim"}
    )
    try:
        obs0, _ = vec.reset(seed=0)
        before = vec.call("device_ids")
        serial = before[0]["android"]["serial"]
        assert before[0]["android"]["adb_port"] == adb_port and serial != before[1]["android"]["serial"]
        # the phone drops off adb: worker 0's device is gone (its served phone lives on in the worker)
        subprocess.run(
            [adbutils.adb_path(), "-P", str(adb_port), "disconnect", serial], check=True, timeout=30
        )
        tap = (0, 0, {"point": np.array([0.5, 0.5], np.float32)})
        obs, _, term, trunc, info = vec.step(batch(vec, tap, (NOWHERE, 0, {})))
        assert trunc.tolist() == [True, False] and info["termination_reason"][0] == "env_error"
        obs, _, term, trunc, info = vec.step(
            batch(vec, (NOWHERE, 0, {}), (NOWHERE, 0, {}))
        )  # worker 0 resets
        after = vec.call("device_ids")
        assert after[1] == before[1]  # worker 0 reconnected its phone (same serial); worker 1 untouched
        assert np.array_equal(obs["android"]["screen"][0], obs0["android"]["screen"][0])
        obs, _, term, trunc, info = vec.step(batch(vec, tap, (NOWHERE, 0, {})))
        assert "_error" not in info or not info["_error"].any()
    finally:
        vec.close()

"""Benchmark v0 on the real desktop: every task is solved by its scripted solution through the env."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent
from crab_gym.tasks import load_tasks

V0_DESKTOP = [t.id for t in load_tasks("v0") if set(t.platforms) <= {"ubuntu", "root"}]
V0_ANDROID = [t.id for t in load_tasks("v0") if set(t.platforms) <= {"android", "root"}]
V0_CROSS = [t.id for t in load_tasks("v0") if {"ubuntu", "android"} <= set(t.platforms)]


def test_v0_is_well_formed():
    tasks = load_tasks("v0")
    ids = [t.id for t in tasks]
    assert (
        len(ids) == len(set(ids)) and len(V0_DESKTOP) >= 40 and len(V0_ANDROID) >= 24 and len(V0_CROSS) >= 9
    )
    for t in tasks:
        assert "{" not in t.description and t.description.strip(), t.id
        assert 1 <= t.node_count <= 11, t.id
        assert t.solution(), f"{t.id} has no scripted solution"


@pytest.fixture(scope="module")
def env():
    e = gym.make("Crab-Desktop-v0", tasks="v0", max_steps=60)
    yield e
    e.close()


@pytest.fixture(scope="module", params=["sim", "adb-sim"])
def phone_env(request):
    """The phone in-process, and the same phone served as an adb device and driven through real adb."""
    e = gym.make("Crab-Android-v0", tasks="v0", max_steps=60, backends={"android": request.param})
    yield e
    e.close()


@pytest.fixture(scope="module", params=["sim", "adb-sim"])
def both_env(request):
    e = gym.make("Crab-v0", tasks="v0", max_steps=60, backends={"android": request.param})
    yield e
    e.close()


@pytest.mark.v0
@pytest.mark.parametrize("task_id", V0_CROSS)
def test_oracle_solves_v0_cross_device_task(both_env, task_id):
    solve(both_env, task_id)


@pytest.mark.v0
@pytest.mark.parametrize("task_id", V0_DESKTOP)
def test_oracle_solves_v0_desktop_task(env, task_id):
    solve(env, task_id)


@pytest.mark.v0
@pytest.mark.parametrize("task_id", V0_ANDROID)
def test_oracle_solves_v0_android_task(phone_env, task_id):
    solve(phone_env, task_id)


def solve(env, task_id):
    agent = OracleAgent(env)
    obs, info = env.reset(seed=0, options={"task": task_id})
    assert info["completion_ratio"] == 0.0, f"already satisfied at reset: {info['nodes']}"
    ret, trace = 0.0, []
    while True:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        ret += reward
        trace.append(_traced(info))
        if terminated or truncated:
            break
    assert info["termination_reason"] == "success", "\n".join(
        [
            f"{info['termination_reason']}: {info['feedback']}",
            *map(str, trace[-12:]),
            f"windows: {_window_titles(env)}",
        ]
    )
    assert terminated and not truncated and ret == pytest.approx(1.0)


def _traced(info: dict) -> tuple:
    """One step as a failure message shows it: what was done, what it reported, how long its parts took."""
    action = info.get("action") or {}
    timings = {k: round(v, 2) for k, v in info.get("timings", {}).items()}
    return action.get("device"), action.get("name"), action.get("params"), info.get("action_result"), timings


def _window_titles(env) -> list[str] | str | None:
    """The desktop's window titles when the episode ended (None for a phone-only env; why not, if the
    desktop cannot say)."""
    desktop = env.unwrapped.subenvs.get("ubuntu")
    if desktop is None:
        return None
    try:
        return [w.title for w in desktop.x.windows()]
    except Exception as e:  # noqa: BLE001 - a dead desktop must not hide the failure being reported
        return f"unreadable: {e!r}"


def test_cli_lists_and_shows_tasks():
    out = subprocess.run(
        [sys.executable, "-m", "crab_gym.cli", "tasks", "list"], capture_output=True, text=True
    )
    assert out.returncode == 0 and V0_DESKTOP[0] in out.stdout
    show = subprocess.run(
        [sys.executable, "-m", "crab_gym.cli", "tasks", "show", V0_DESKTOP[0]], capture_output=True, text=True
    )
    assert show.returncode == 0 and '"solution"' in show.stdout

"""CrabEnv on a real desktop: the Gymnasium contract, rewards, termination, invalid actions, isolation."""

from __future__ import annotations

import os

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent
from crab_gym.spaces import decode_instruction


@pytest.fixture(scope="module")
def env(note_task):
    e = gym.make("Crab-Desktop-v0", tasks=[note_task], max_steps=4, render_mode="rgb_array")
    yield e
    e.close()


def test_check_env(env):
    check_env(env.unwrapped)


def test_scripted_solution_scores_one(env, note_task):
    obs, info = env.reset(seed=0)
    assert decode_instruction(obs["instruction"]) == note_task.description
    assert info["completion_ratio"] == 0.0
    agent, ret = OracleAgent(env), 0.0
    for _ in range(6):
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        ret += reward
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert info["success"] and info["termination_reason"] == "success"
    assert ret == pytest.approx(1.0)
    assert env.unwrapped.subenvs["ubuntu"].state().read_text("~/Documents/note.txt") == "crab <gym> ü\n"


def test_do_nothing_scores_zero_and_truncates(env):
    obs, info = env.reset(seed=1)
    ret, steps = 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.wait_action())
        ret += reward
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and steps == 4
    assert ret == 0.0 and info["termination_reason"] == "step_limit"
    assert info["feedback"], "unmet checks are explained"


@pytest.mark.parametrize(
    "action, reason",
    [
        ((7, 0, {}), "device index 7 out of range"),
        ((0, 42, {}), "ubuntu has 16 actions"),
        ((1, 9, {}), "root has 3 actions"),
        ("click at the OK button", "an action is a tuple"),
        ((0, 0, {"point": np.array([1.7, 0.2], np.float32)}), "click: parameter 'point'"),
        ((0, 0, {"point": "middle"}), "click: parameter 'point'"),
        ((0, 0, None), "params must be a dict"),
        ((0, 6, {"key": 999}), "out of range"),
    ],
)
def test_invalid_actions_are_reported_not_raised(env, action, reason):
    env.reset(seed=2)
    sub = env.unwrapped.subenvs["ubuntu"]
    before = sub.screenshot()
    obs, reward, terminated, truncated, info = env.step(action)
    assert reason in info["invalid_action"]
    assert reward == 0.0 and not terminated
    assert info["actions"] == 0 and info["invalid_actions"] == 1
    assert np.array_equal(before, sub.screenshot()), "an invalid action touched the device"


def test_invalid_action_limit_ends_episode(note_task):
    env = gym.make("Crab-Desktop-v0", tasks=[note_task], max_steps=20, max_invalid_actions=3)
    try:
        env.reset(seed=0)
        for _ in range(3):
            _, _, terminated, truncated, info = env.step((9, 9, {}))
        assert truncated and info["termination_reason"] == "invalid_action_limit"
    finally:
        env.close()


def test_reset_restores_a_changed_file(env):
    env.reset(seed=3)
    u = env.unwrapped
    u.subenvs["ubuntu"].write_file("~/Documents/keep.txt", "original\n")
    # make it part of the pristine state for this check: the agent then changes it via the terminal
    u.subenvs["ubuntu"].session.pristine.joinpath("Documents/keep.txt").write_text("original\n")
    for s in [
        ("search_application", {"name": "terminal"}),
        ("write_text", {"text": "echo changed > ~/Documents/keep.txt\n"}),
    ]:
        env.step(u.encode_action("ubuntu", *s))
    assert u.subenvs["ubuntu"].state().read_text("~/Documents/keep.txt") == "changed\n"
    env.reset(seed=3)
    st = u.subenvs["ubuntu"].state()
    assert st.read_text("~/Documents/keep.txt") == "original\n"
    assert not any(p.name == "xfce4-terminal" for p in st.processes()), "the agent's terminal survived reset"
    u.subenvs["ubuntu"].session.pristine.joinpath("Documents/keep.txt").unlink()


def test_render_tiles_screens(env):
    env.reset(seed=4)
    frame = env.render()
    assert frame.shape == (800, 1280, 3) and frame.dtype == np.uint8


def test_two_envs_do_not_see_each_other(note_task):
    a = gym.make("Crab-Desktop-v0", tasks=[note_task])
    b = gym.make("Crab-Desktop-v0", tasks=[note_task])
    try:
        a.reset(seed=0)
        b.reset(seed=0)
        ua, ub = a.unwrapped.subenvs["ubuntu"], b.unwrapped.subenvs["ubuntu"]
        assert ua.session.display_name != ub.session.display_name
        assert ua.session.home != ub.session.home
        a.step(a.unwrapped.encode_action("ubuntu", "search_application", {"name": "text editor"}))
        a.step(a.unwrapped.encode_action("ubuntu", "write_text", {"text": "only in A"}))
        assert ua.state().active_window() is not None
        assert ub.state().active_window() is None, "B's screen shows A's window"
        assert not np.array_equal(ua.screenshot(), ub.screenshot())
        assert "only in A" in " ".join(ua.state().a11y_texts("mousepad"))
        assert not ub.state().processes() or all(p.name != "mousepad" for p in ub.state().processes())
        if ua.session.user.dedicated:
            assert ua.session.user.uid != ub.session.user.uid
    finally:
        a.close()
        b.close()


def test_other_session_users_cannot_open_a_display(note_task):
    import subprocess

    a = gym.make("Crab-Desktop-v0", tasks=[note_task])
    b = gym.make("Crab-Desktop-v0", tasks=[note_task])
    try:
        a.reset(seed=0)
        b.reset(seed=0)
        sa, sb = a.unwrapped.subenvs["ubuntu"].session, b.unwrapped.subenvs["ubuntu"].session
        if not sa.user.dedicated:
            pytest.skip("sessions run as the caller when not root")
        as_b = ["setpriv", f"--reuid={sb.user.uid}", f"--regid={sb.user.gid}", "--clear-groups", "env", "-i"]
        denied = subprocess.run([*as_b, f"DISPLAY={sa.display_name}", "xdpyinfo"], capture_output=True)
        assert denied.returncode != 0, "B's user opened A's display"
        own = subprocess.run(
            [*as_b, f"DISPLAY={sb.display_name}", f"XAUTHORITY={sb.run_dir}/Xauthority", "xdpyinfo"],
            capture_output=True,
        )
        assert own.returncode == 0, own.stderr
        st = os.stat(sa.home)
        assert st.st_uid == sa.user.uid and st.st_mode & 0o077 == 0
        peek = subprocess.run([*as_b, "ls", str(sa.home / "Documents")], capture_output=True)
        assert peek.returncode != 0, "B's user can read A's HOME"
    finally:
        a.close()
        b.close()


def test_async_vector_env_with_shared_memory(note_task):
    vec = gym.make_vec(
        "Crab-Desktop-v0", num_envs=2, vectorization_mode="async", vector_kwargs={"shared_memory": True},
        tasks=[note_task], max_steps=3,
    )  # fmt: skip
    try:
        obs, info = vec.reset(seed=0)
        assert obs["ubuntu"]["screen"].shape == (2, 800, 1280, 3)
        for i in range(2):
            assert decode_instruction(obs["instruction"][i]) == note_task.description
        # worker 0 opens the terminal, worker 1 waits: their screens must differ afterwards
        single = vec.unwrapped.single_action_space
        acts = [
            env_action(single, 0, 9, name="terminal"),
            env_action(single, 1, 2, seconds=1),
        ]
        batched = (np.array([a[0] for a in acts]), np.array([a[1] for a in acts]),
                   {k: _stack([a[2][k] for a in acts]) for k in acts[0][2]})  # fmt: skip
        obs, reward, terminated, truncated, info = vec.step(batched)
        assert not np.array_equal(obs["ubuntu"]["screen"][0], obs["ubuntu"]["screen"][1])
        assert decode_instruction(obs["instruction"][1]) == note_task.description, (
            "instruction survives steps"
        )
    finally:
        vec.close()


def env_action(space, device, action, **params):
    """A full action dict (every parameter present) with some parameters set."""
    full = {k: s.sample() for k, s in space[2].spaces.items()}
    full.update(params)
    return (device, action, full)


def _stack(values):
    if isinstance(values[0], str):
        return tuple(values)
    return np.stack([np.asarray(v) for v in values])


def test_dead_device_is_an_error_the_next_reset_recovers(note_task):
    import signal

    env = gym.make("Crab-Desktop-v0", tasks=[note_task])
    try:
        env.reset(seed=0)
        session = env.unwrapped.subenvs["ubuntu"].session
        os.kill(session._xvfb.pid, signal.SIGKILL)
        session._xvfb.wait()
        obs, reward, terminated, truncated, info = env.step(
            env.unwrapped.encode_action("ubuntu", "click", {"point": (0.5, 0.5)})
        )
        assert truncated and info["termination_reason"] == "env_error" and "error" in info
        assert obs["ubuntu"]["screen"].shape == (800, 1280, 3)
        obs, info = env.reset(seed=0)
        assert info["completion_ratio"] == 0.0
        obs, *_ = env.step(env.unwrapped.encode_action("ubuntu", "search_application", {"name": "terminal"}))
        assert env.unwrapped.subenvs["ubuntu"].state().active_process() == "xfce4-terminal"
    finally:
        env.close()


def test_every_step_sees_fresh_state_of_every_device(env):
    """A change an app makes in the background is seen on the next step, whichever device acted."""
    env.reset(seed=5)
    u = env.unwrapped
    u.subenvs["ubuntu"].state().read_text("~/Documents/note.txt")  # cache a view without the file
    u.subenvs["ubuntu"].write_file("~/Documents/note.txt", "crab <gym> ü\n")  # as if an app saved it late
    _, reward, terminated, _, info = env.step(u.wait_action())
    assert info["success"] and terminated and reward == pytest.approx(1.0)


def test_reject_is_an_invalid_step(env):
    env.reset(seed=6)
    _, reward, terminated, truncated, info = env.unwrapped.reject("mark 99 does not exist; marks are 1..12")
    assert info["invalid_action"] == "mark 99 does not exist; marks are 1..12"
    assert reward == 0.0 and not terminated and info["invalid_actions"] == 1 and info["actions"] == 0

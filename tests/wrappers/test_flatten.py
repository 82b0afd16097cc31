"""FlattenActions on the simulated phone: the spaces RL libraries want, checked by SB3 and Gymnasium."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import crab_gym  # noqa: F401
from crab_gym.tasks import load_tasks
from crab_gym.wrappers import FlattenActions, SetOfMarks, text_candidates

TASKS = ["contacts_add-0", "sms_send-1", "files_delete-0", "settings_dark_theme-0"]


def make(tasks=TASKS, env_id: str = "Crab-Android-v0", marks: bool = False, **kwargs) -> FlattenActions:
    """FlattenActions over the env, or over SetOfMarks (tree marks only) on it with ``marks``."""
    inner_kwargs = {k: kwargs.pop(k) for k in ("max_steps", "max_invalid_actions") if k in kwargs}
    inner = gym.make(env_id, tasks=tasks, **inner_kwargs)
    env = FlattenActions(SetOfMarks(inner, detector=False) if marks else inner, **kwargs)
    env.unwrapped.subenvs["root"].time_scale = 0.0  # random policies call wait(5): no real sleeping
    return env


@pytest.fixture(scope="module")
def env():
    e = make(max_invalid_actions=100)
    yield e
    e.close()


@pytest.fixture(scope="module")
def marked():
    e = make(marks=True)
    yield e
    e.close()


def test_text_candidates_come_from_the_instruction():
    text = (
        "Dmitri is in the phone's contacts. Using the Messages app, send Dmitri the text message "
        "'The simple budget moves on day 4' and save ~/Documents/notes_1.txt at 12:00 for 555-172-3208."
    )
    c = text_candidates(text)
    assert c[:5] == [
        "The simple budget moves on day 4",
        "~/Documents/notes_1.txt",
        "4",
        "12:00",
        "555-172-3208",
    ]
    assert "Dmitri" in c and "phone's" in c and c.count("Dmitri") == 1
    assert text_candidates(text, limit=3) == c[:3]
    assert text_candidates('Type "hello world" or “Zoë”.')[:2] == ["hello world", "Zoë"]


def test_candidates_are_recomputed_at_reset(env):
    _, info = env.reset(seed=0, options={"task": "contacts_add-0"})
    assert info["text_candidates"] == env.text_candidates and "555-172-3208" in env.text_candidates
    _, info = env.reset(seed=0, options={"task": "sms_send-1"})
    assert env.text_candidates[0] == "The careful budget ends on day 26"
    assert "555-172-3208" not in env.text_candidates and len(env.text_candidates) <= env.max_text_candidates


def test_spaces(env):
    assert env.dims == ["device", "action", "answer", "button", "direction", "distance"] + [
        "point.x", "point.y", "seconds", "text"
    ]  # fmt: skip
    assert list(env.action_space.nvec) == [2, 6, 32, 3, 4, 3, 16, 16, 5, 32]
    obs_space = env.observation_space
    assert set(obs_space.spaces) == {"instruction", "android_screen"}
    assert all(isinstance(s, gym.spaces.Box) for s in obs_space.spaces.values())
    assert obs_space["android_screen"].shape == (128, 58, 3)  # 1080x2400 with its longest side at 128
    obs, _ = env.reset(seed=0, options={"task": "contacts_add-0"})
    assert obs_space.contains(obs)
    assert bytes(obs["instruction"]).rstrip(b"\0").decode() == env.unwrapped.task.description


@pytest.mark.parametrize(
    "screen_size, shape", [((84, 84), (84, 84, 3)), (64, (64, 29, 3)), (None, (2400, 1080, 3))]
)
def test_screen_size_options(screen_size, shape):
    e = make(screen_size=screen_size)
    try:
        assert e.observation_space["android_screen"].shape == shape
        obs, _ = e.reset(seed=0)
        assert obs["android_screen"].shape == shape and obs["android_screen"].dtype == np.uint8
    finally:
        e.close()


def test_both_screens_flatten_on_crab_v0():
    e = FlattenActions(gym.make("Crab-v0"), screen_size=(96, 60))  # built, never reset: no device starts
    try:
        assert set(e.observation_space.spaces) == {"instruction", "ubuntu_screen", "android_screen"}
        assert e.observation_space["ubuntu_screen"].shape == (60, 96, 3)
        assert "keys[3]" in e.dims and "start.x" in e.dims and "end.y" in e.dims
    finally:
        e.close()


def test_over_set_of_marks_positions_are_element_ids(marked):
    e = marked
    assert "element" in e.dims and "point.x" not in e.dims
    assert e.action_space.nvec[e.dims.index("element")] == e.env.max_marks
    assert {"android_marks", "android_mark_count"} <= set(e.observation_space.spaces)
    # the element dim offers only ids on the screen now; an id past them is an invalid action
    e.reset(seed=0, options={"task": TASKS[0]})
    count = len(e.env.marks["android"])
    start = int(e.action_space.nvec[: e.dims.index("element")].sum())
    mask = e.action_masks()[start : start + e.env.max_marks]
    assert mask.sum() == count and mask[:count].all()
    a = e.encode("android", "tap", {"element": 1})
    a[e.dims.index("element")] = e.env.max_marks - 1
    _, _, _, _, info = e.step(a)
    assert f"element {e.env.max_marks} is not on the android screen" in info["invalid_action"]


def test_refuses_an_action_space_it_cannot_flatten():
    from crab_gym.wrappers import FunctionCalls

    inner = FunctionCalls(gym.make("Crab-Android-v0", tasks=TASKS))
    try:
        with pytest.raises(TypeError, match="Tuple\\(device, action, Dict\\(params\\)\\)"):
            FlattenActions(inner)
    finally:
        inner.close()


def test_a_flat_action_decodes_to_the_intended_tuple(env):
    env.reset(seed=0, options={"task": "contacts_add-0"})
    d = {name: i for i, name in enumerate(env.dims)}
    a = np.zeros(len(env.dims), np.int64)
    a[d["device"]], a[d["action"]] = 0, 2  # android, swipe
    a[d["direction"]], a[d["distance"]] = 3, 2
    a[d["point.x"]], a[d["point.y"]] = 3, 15
    a[d["text"]] = env.text_candidates.index("555-172-3208")
    dev, act, params = env.decode(a)
    sub = env.unwrapped.codec.subenvs[dev]
    spec, values = sub.actions[act], env.unwrapped.codec.decode((dev, act, params))[2]
    assert (sub.name, spec.name, values) == ("android", "swipe", {"direction": "right", "distance": "long"})
    assert params["point"] == pytest.approx([3.5 / 16, 15.5 / 16]) and params["text"] == "555-172-3208"
    assert params["seconds"] == 1  # Discrete(5, start=1): index 0 is one second
    for device, name, p in [
        ("android", "write_text", {"text": "555-172-3208"}),
        ("android", "tap", {"point": (3.5 / 16, 15.5 / 16)}),
        ("android", "press", {"button": "back"}),
        ("root", "wait", {"seconds": 4}),
        ("root", "submit", {"answer": "Dmitri"}),
    ]:
        dev, act, params = env.unwrapped.codec.decode(env.decode(env.encode(device, name, p)))
        assert (dev.name, act.name, params) == (device, name, act.validate(p))


@pytest.mark.parametrize("wrapped", ["env", "marked"])
def test_scripted_solutions_solve_through_flat_actions(wrapped, request):
    """Over SetOfMarks the scripted points become the ids of the marks there, one step at a time."""
    env = request.getfixturevalue(wrapped)
    for task_id in TASKS:
        env.reset(seed=0, options={"task": task_id})
        for step in env.unwrapped.task.solution():
            obs, reward, terminated, truncated, info = env.step(
                env.encode(step.env, step.action, step.params)
            )
            assert "invalid_action" not in info, info["invalid_action"]
        assert info["success"], (task_id, info["feedback"])
        assert env.observation_space.contains(obs)


def test_text_past_the_candidates_and_missing_pairs_are_invalid_actions(env):
    env.reset(seed=0, options={"task": "contacts_add-0"})
    a = env.encode("android", "write_text", {"text": env.text_candidates[0]})
    a[env.dims.index("text")] = env.max_text_candidates - 1
    assert len(env.text_candidates) < env.max_text_candidates
    _, reward, terminated, _, info = env.step(a)
    assert "write_text: parameter 'text'" in info["invalid_action"] and reward == 0 and not terminated
    a[:2] = (1, 5)  # root has 3 actions
    _, _, _, _, info = env.step(a)
    assert "root has 3 actions" in info["invalid_action"] and info["invalid_actions"] == 2
    with pytest.raises(ValueError, match="not a text candidate"):
        env.encode("android", "write_text", {"text": "never in the instruction"})


def test_action_masks_offer_only_the_text_candidates(env):
    env.reset(seed=0, options={"task": "contacts_add-0"})
    mask = env.action_masks()
    assert mask.shape == (int(env.action_space.nvec.sum()),) and mask.dtype == bool
    start = int(env.action_space.nvec[: env.dims.index("text")].sum())
    text = mask[start : start + env.max_text_candidates]
    assert text.sum() == len(env.text_candidates) and text[: len(env.text_candidates)].all()


def test_async_vector_env_with_shared_memory():
    vec = gym.make_vec(
        "Crab-Android-v0", num_envs=2, vectorization_mode="async", wrappers=[FlattenActions], tasks=TASKS
    )
    try:
        obs, info = vec.reset(seed=0)
        assert obs["android_screen"].shape == (2, 128, 58, 3) and obs["instruction"].shape == (2, 1024)
        press_back = np.zeros((2, len(vec.single_action_space.nvec)), np.int64)
        press_back[:, 1] = 4  # android press
        press_back[:, 3] = 1  # button "back"
        obs, reward, terminated, truncated, info = vec.step(press_back)
        assert not terminated.any() and "invalid_action" not in info
        texts = [bytes(row).rstrip(b"\0").decode() for row in obs["instruction"]]
        assert all(t.strip() for t in texts)  # instructions are read back after start-up, not padding
    finally:
        vec.close()


def test_gymnasium_check_env_passes():
    e = make(tasks=["contacts_add-0"])
    try:
        gym_check_env(e)
    finally:
        e.close()


@pytest.mark.parametrize("given", ["ids", "tasks", "marks"])
def test_sb3_check_env_passes(given):
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    tasks = TASKS if given != "tasks" else [t for t in load_tasks("v0") if t.id in TASKS]
    e = make(tasks=tasks, marks=given == "marks")
    try:
        sb3.check_env(e, warn=True)
    finally:
        e.close()

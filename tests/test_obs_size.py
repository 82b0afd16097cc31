"""Observations sized for learning (CrabEnv ``obs_size``): shapes, pixels, actions, wrappers, vector envs;
and the Gymnasium and SB3 checkers on Crab-v0 (desktop + phone)."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from PIL import Image

import crab_gym  # noqa: F401
from crab_gym.episode import load_episode
from crab_gym.wrappers import FlattenActions, RecordEpisodes, SetOfMarks

TASK = "contacts_add-0"
SMALL = (96, 208)


def make(obs_size=None, **kwargs) -> gym.Env:
    env = gym.make("Crab-Android-v0", tasks=[TASK], obs_size=obs_size, **kwargs)
    env.unwrapped.subenvs["root"].time_scale = 0.0
    return env


def pillow(frame: np.ndarray, size=SMALL, gray: bool = False) -> np.ndarray:
    """What an observation must be: one Pillow resize of the full frame (the call CrabEnv makes)."""
    img = Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return np.asarray(img.convert("L"))[:, :, None] if gray else np.asarray(img)


def looks_like(small: np.ndarray, full: np.ndarray, gray: bool = False) -> bool:
    """The simulated phone draws small observations directly: they must look like a Pillow resize of the
    full frame (mean difference under 4 of 255; text and edges differ by a pixel's coverage)."""
    want = pillow(full, (small.shape[1], small.shape[0]), gray=gray)
    return small.shape == want.shape and float(np.abs(small.astype(int) - want.astype(int)).mean()) < 4.0


def phone_screen(env: gym.Env) -> tuple[str, str]:
    act = env.unwrapped.subenvs["android"].device.phone.current
    return act.package, act.screen


@pytest.mark.parametrize(
    "obs_size, shape",
    [
        ({"android": SMALL}, (208, 96, 3)),
        ({"android": (*SMALL, 3)}, (208, 96, 3)),
        ({"android": (*SMALL, 1)}, (208, 96, 1)),
        ((64, 64, 1), (64, 64, 1)),  # one size for every screen
        (None, (2400, 1080, 3)),
    ],
)
def test_shapes_and_dtypes(obs_size, shape):
    env = make(obs_size, render_mode="rgb_array")
    try:
        assert env.observation_space["android"]["screen"].shape == shape
        obs, _ = env.reset(seed=0)
        screen = obs["android"]["screen"]
        assert screen.shape == shape and screen.dtype == np.uint8
        assert env.observation_space.contains(obs)
        obs2, *_ = env.step(env.unwrapped.wait_action())
        assert obs2["android"]["screen"] is not screen and np.array_equal(obs2["android"]["screen"], screen)
        assert env.unwrapped.last_screens()["android"].shape == (2400, 1080, 3)
        assert env.render().shape == (2400, 1080, 3), "render() stays full size"
    finally:
        env.close()


def test_a_screen_space_keeps_its_bounds_as_views_and_acts_as_a_box():
    """A screen's Box holds low and high as broadcast views of one value, not four full-size arrays (7.8 MB
    each at 2400x1080x3), and compares, checks, samples and pickles as gymnasium's Box does."""
    env = make()
    try:
        screen = env.observation_space["android"]["screen"]
        obs, _ = env.reset(seed=0)
        box = gym.spaces.Box(0, 255, screen.shape, np.uint8)
        for bounds in (screen.low, screen.high, screen.bounded_below, screen.bounded_above):
            assert bounds.shape == screen.shape and bounds.strides == (0, 0, 0)
        assert screen == box and box == screen and screen.is_bounded()
        assert screen.contains(obs["android"]["screen"]) and screen.contains(screen.sample())
        assert not screen.contains(obs["android"]["screen"].astype(np.int16) + 256)
        assert pickle.loads(pickle.dumps(screen)) == box
    finally:
        env.close()


@pytest.mark.parametrize("bad", [{"root": (10, 10)}, {"ubuntu": (10, 10)}, (0, 10), (10, 10, 2), (10,)])
def test_bad_sizes_are_refused(bad):
    with pytest.raises(ValueError, match="obs_size"):
        make(bad)


@pytest.mark.parametrize("gray", [False, True])
def test_the_simulated_phone_draws_small_observations_directly(gray):
    env = make({"android": (*SMALL, 1 if gray else 3)})
    try:
        obs, _ = env.reset(seed=0)
        phone = env.unwrapped.subenvs["android"].device.phone
        for _ in range(3):
            small = phone.screenshot(SMALL)  # drawn at 96x208, no full frame involved
            want = np.asarray(Image.fromarray(small).convert("L"))[:, :, None] if gray else small
            assert np.array_equal(obs["android"]["screen"], want)
            assert looks_like(obs["android"]["screen"], env.unwrapped.last_screens()["android"], gray)
            obs, *_ = env.step(env.unwrapped.encode_action("android", "open_app_drawer"))
    finally:
        env.close()


@pytest.mark.parametrize("gray", [False, True])
def test_a_backend_that_cannot_draw_small_is_resized_with_pillow(gray):
    # Exact (tolerance 0): without screenshot_at, the observation is one Pillow call on the full frame.
    env = make({"android": (*SMALL, 1 if gray else 3)})
    try:
        env.unwrapped.subenvs["android"].screenshot_at = lambda size: None
        obs, _ = env.reset(seed=0)
        for _ in range(3):
            full = env.unwrapped.last_screens()["android"]
            assert np.array_equal(obs["android"]["screen"], pillow(full, gray=gray))
            obs, *_ = env.step(env.unwrapped.encode_action("android", "open_app_drawer"))
    finally:
        env.close()


def test_a_normalised_tap_hits_the_same_element_at_both_sizes():
    full, small = make(), make({"android": SMALL})
    try:
        full.reset(seed=0)
        small.reset(seed=0)
        w, h = full.unwrapped.subenvs["android"].screen_size
        el = next(e for e in full.unwrapped.subenvs["android"].ui_elements() if e.name == "Contacts")
        point = ((el.box[0] + el.box[2]) / 2 / w, (el.box[1] + el.box[3]) / 2 / h)
        tap = full.unwrapped.encode_action("android", "tap", {"point": point})
        obs_full, *_ = full.step(tap)
        obs_small, *_ = small.step(tap)
        assert phone_screen(full) == phone_screen(small) and phone_screen(full)[0] == "com.android.contacts"
        assert looks_like(obs_small["android"]["screen"], obs_full["android"]["screen"])
    finally:
        full.close()
        small.close()


@pytest.mark.parametrize("channels", [3, 1])
def test_set_of_marks_boxes_are_scaled_to_the_observation(channels):
    full = SetOfMarks(make(), detector=False)
    small = SetOfMarks(make({"android": (*SMALL, channels)}), detector=False)
    try:
        of, _ = full.reset(seed=0)
        os_, _ = small.reset(seed=0)
        assert small.observation_space.contains(os_)
        n = int(of["android"]["mark_count"])
        assert n > 3 and int(os_["android"]["mark_count"]) == n
        assert small.marks["android"] == full.marks["android"], "marks are found on the full frame"
        sx, sy = SMALL[0] / 1080, SMALL[1] / 2400
        want = of["android"]["marks"][:n] * np.array([sx, sy, sx, sy])
        assert np.abs(os_["android"]["marks"][:n] - want).max() <= 1.0  # floor/ceil of the scaled edges
        clean = small.unwrapped.last_screens()["android"]
        assert not np.array_equal(os_["android"]["screen"], pillow(clean, gray=channels == 1)), "marks drawn"
        mark = next(m for m in full.marks["android"] if m.name == "Contacts")
        action = full.encode_action("android", "tap", {"element": mark.id})
        full.step(action)
        small.step(action)
        assert phone_screen(full) == phone_screen(small) == ("com.android.contacts", phone_screen(full)[1])
    finally:
        full.close()
        small.close()


@pytest.mark.parametrize("obs_size", [{"android": SMALL}, {"android": (*SMALL, 1)}])
def test_async_vector_env_with_shared_memory(obs_size):
    vec = gym.make_vec(
        "Crab-Android-v0", num_envs=2, vectorization_mode="async", vector_kwargs={"shared_memory": True},
        tasks=[TASK], obs_size=obs_size, max_steps=3,
    )  # fmt: skip
    try:
        shape = (2, SMALL[1], SMALL[0], obs_size["android"][2] if len(obs_size["android"]) == 3 else 3)
        obs, _ = vec.reset(seed=0)
        assert obs["android"]["screen"].shape == shape and obs["android"]["screen"].dtype == np.uint8
        single = vec.unwrapped.single_action_space
        batched = (np.array([1, 0]), np.array([2, 5]), {k: _stack([s.sample(), s.sample()])
                                                         for k, s in single[2].spaces.items()})  # fmt: skip
        batched[2]["seconds"][:] = 1
        obs, *_ = vec.step(batched)  # worker 0 waits, worker 1 opens the app drawer
        assert obs["android"]["screen"].shape == shape
        assert not np.array_equal(obs["android"]["screen"][0], obs["android"]["screen"][1])
    finally:
        vec.close()


def _stack(values):
    return tuple(values) if isinstance(values[0], str) else np.stack([np.asarray(v) for v in values])


@pytest.mark.parametrize("obs_size", [{"android": SMALL}, {"android": (*SMALL, 1)}])
def test_flatten_actions_passes_sb3_check_env(obs_size):
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    env = FlattenActions(make(obs_size), screen_size=None)
    try:
        want = env.unwrapped.observation_space["android"]["screen"].shape
        assert env.observation_space["android_screen"].shape == want
        sb3.check_env(env, warn=True)
        gym_check_env(env)
    finally:
        env.close()


def test_flatten_shrinks_a_gray_observation_further():
    env = FlattenActions(make({"android": (*SMALL, 1)}), screen_size=64)
    try:
        obs, _ = env.reset(seed=0)
        assert obs["android_screen"].shape == (64, 30, 1) == env.observation_space["android_screen"].shape
    finally:
        env.close()


def test_recorder_stores_the_small_observation_and_the_full_screen(tmp_path):
    env = RecordEpisodes(make({"android": (*SMALL, 1)}), tmp_path)
    try:
        env.reset(seed=0, options={"episode_id": "small-obs"})
        env.step(env.unwrapped.encode_action("android", "open_app_drawer"))
    finally:
        env.close()
    ep = load_episode(tmp_path / "small-obs")
    for t in (0, 1):
        screen = ep.screen(t, "android")
        assert screen.shape == (2400, 1080, 3)
        assert looks_like(ep.observation(t)["android"]["screen"], screen, gray=True)


# ---- Crab-v0: the desktop and the phone together ---------------------------------------------------------
@pytest.fixture(
    scope="module", params=[None, {"ubuntu": (160, 100), "android": (*SMALL, 1)}], ids=["full", "small"]
)
def crab_v0(request, note_task):
    env = gym.make("Crab-v0", tasks=[note_task], max_steps=4, obs_size=request.param)
    env.unwrapped.subenvs["root"].time_scale = 0.0
    yield env
    env.close()


@pytest.mark.slow
def test_gymnasium_check_env_on_crab_v0(crab_v0):
    gym_check_env(crab_v0.unwrapped)
    obs, _ = crab_v0.reset(seed=0)
    full = crab_v0.unwrapped.last_screens()
    assert full["ubuntu"].shape == (800, 1280, 3) and full["android"].shape == (2400, 1080, 3)
    sizes = crab_v0.unwrapped.screen_obs
    for dev in ("ubuntu", "android"):
        want = pillow(full[dev], (sizes[dev].width, sizes[dev].height), gray=sizes[dev].channels == 1)
        if dev == "android" and sizes[dev].width != 1080:  # drawn small by the phone itself
            assert looks_like(obs[dev]["screen"], full[dev], gray=sizes[dev].channels == 1)
        else:
            assert np.array_equal(obs[dev]["screen"], want)


@pytest.mark.slow
def test_sb3_check_env_on_crab_v0_flattened(crab_v0):
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    env = FlattenActions(crab_v0)
    sb3.check_env(env, warn=True)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"instruction", "ubuntu_screen", "android_screen"}

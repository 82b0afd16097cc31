"""Real time (issue 23, section 4): the phone's clock runs between steps, and video frames arrive at the
asked rate while the agent thinks."""

from __future__ import annotations

import threading
import time

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401  (registers the env ids)
from crab_gym.envs.android.sim import Phone

TIMER_2S = "am start -a android.intent.action.SET_TIMER --ei android.intent.extra.alarm.LENGTH 2"


def _timers(env) -> tuple:
    state = env.unwrapped.subenvs["android"].state()
    return state.sqlite(
        "/data/data/com.google.android.deskclock/databases/alarms.db", "SELECT length, rang FROM timers"
    )


def test_a_timer_rings_between_steps_in_real_time():
    env = gym.make("Crab-Android-v0", realtime=True, obs_size=(108, 240))
    try:
        env.reset(seed=0)
        out, _, code = env.unwrapped.subenvs["android"].device.shell(TIMER_2S)
        assert code == 0, out
        sql = "sqlite3 /data/data/com.google.android.deskclock/databases/alarms.db 'SELECT rang FROM timers'"
        assert env.unwrapped.subenvs["android"].device.shell(sql)[0] == b"\n"  # set, not rung yet
        time.sleep(3.0)  # no step: the phone's clock runs on its own
        obs, *_ = env.step(env.unwrapped.encode_action("root", "wait", {"seconds": 1}))
        ((length, rang),) = _timers(env)
        assert rang != ""
        texts = env.unwrapped.subenvs["android"].state().ui_texts()
        assert "Time's up" in texts  # the Clock app shows it, and the observation was drawn after it rang
        log = env.unwrapped.subenvs["android"].device.shell("logcat -d -s AlarmClock")[0].decode()
        assert "Timer 1 expired" in log
    finally:
        env.close()


def test_a_timer_set_by_the_agents_action_rings_before_its_next_step():
    """The timer is set by a step (the adb_shell API action); 4 s later, before any other step, it has
    rung: in lock step the one step would have moved the phone's clock by about a second."""
    env = gym.make("Crab-Android-v0", realtime=True, api_actions=True, obs_size=(108, 240))
    try:
        env.reset(seed=0)
        command = TIMER_2S.replace("LENGTH 2", "LENGTH 3")
        _, _, _, _, info = env.step(env.unwrapped.encode_action("android", "adb_shell", {"command": command}))
        assert info["output"]["exit_code"] == 0, info
        time.sleep(4.0)  # no step: read the phone's timers straight from its shell
        sql = "sqlite3 /data/data/com.google.android.deskclock/databases/alarms.db 'SELECT rang FROM timers'"
        assert env.unwrapped.subenvs["android"].device.shell(sql)[0].strip()  # rang
    finally:
        env.close()


def test_lock_step_clock_waits_for_the_agent():
    phone = Phone()
    try:
        assert phone.shell(TIMER_2S)[2] == 0
        before = phone.shell("date +%s")[0]
        time.sleep(2.5)
        assert phone.shell("date +%s")[0] == before  # no state change: the clock has not moved
        assert "Time's up" not in phone.ui_xml()
        for _ in range(3):
            phone.now_ms()  # three state changes: three seconds
        assert "Time&apos;s up" in phone.ui_xml()
    finally:
        phone.close()


def test_an_alarm_rings_when_the_real_clock_passes_it():
    phone = Phone(realtime=True)
    try:
        db = "/data/data/com.google.android.deskclock/databases/alarms.db"
        sql = "INSERT INTO alarm_templates (hour, minutes, enabled, label) VALUES (9, 31, 1, 'Stand up')"
        assert phone.shell(f'sqlite3 {db} "{sql}"')[2] == 0
        assert phone.shell("date -s '2024-03-15 09:30:59'")[2] == 0
        assert b"ringing" not in phone.shell("logcat -d -s AlarmClock")[0]
        time.sleep(1.5)
        assert phone.shell("date +%H:%M")[0] == b"09:31\n"
        assert b"ringing" in phone.shell("logcat -d -s AlarmClock")[0]
    finally:
        phone.close()


def test_set_realtime_keeps_the_clock_where_it_is():
    phone = Phone()
    try:
        phone.now_ms()
        before = int(phone.shell("date +%s")[0])
        phone.set_realtime(True)
        time.sleep(1.2)
        after = int(phone.shell("date +%s")[0])
        assert after - before in (1, 2)
    finally:
        phone.close()


@pytest.mark.parametrize(
    "env_id, device, size",
    [("Crab-Android-v0", "android", (54, 120)), ("Crab-Desktop-v0", "ubuntu", (128, 80))],
)
def test_video_frames_arrive_at_the_asked_rate_and_the_thread_stops_on_close(env_id, device, size):
    fps, max_frames = 5, 40
    env = gym.make(env_id, video_fps=fps, video_max_frames=max_frames, obs_size=size)
    try:
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        t0 = time.monotonic()
        time.sleep(4.0)
        t1 = time.monotonic()
        obs, *_ = env.step(env.unwrapped.encode_action("root", "wait", {"seconds": 1}))
        assert env.observation_space.contains(obs)
        n = int(obs[device]["video_frames"])
        expected = fps * (t1 - t0)
        assert 0.8 * expected <= n <= 1.2 * expected + 1, (n, expected)
        video = obs[device]["video"]
        assert video.shape == (max_frames, size[1], size[0], 3) and video.dtype == np.uint8
        assert video[:n].any() and not video[n:].any()  # frames first, zero padding after
    finally:
        env.close()
    assert not any(t.name.startswith("crab-video-") for t in threading.enumerate())


def test_video_keeps_the_last_frames_when_the_agent_is_slow():
    env = gym.make("Crab-Android-v0", video_fps=10, video_max_frames=3, obs_size=(54, 120))
    try:
        env.reset(seed=0)
        time.sleep(1.0)
        obs, *_ = env.step(env.unwrapped.encode_action("root", "wait", {"seconds": 1}))
        assert int(obs["android"]["video_frames"]) == 3
    finally:
        env.close()


def test_video_works_in_a_vector_env():
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make("Crab-Android-v0", video_fps=5, video_max_frames=4, obs_size=(54, 120))] * 2
    )
    try:
        obs, _ = envs.reset(seed=0)
        assert obs["android"]["video"].shape == (2, 4, 120, 54, 3)
        assert obs["android"]["video_frames"].shape == (2,)
    finally:
        envs.close()


def test_bad_video_options_are_refused():
    with pytest.raises(ValueError, match="video_fps"):
        gym.make("Crab-Android-v0", video_fps=0.0, obs_size=(54, 120))


class Overlaps:
    """Counts calls into a device that run while another is under way (from any thread)."""

    def __init__(self) -> None:
        self.inside = self.overlaps = 0
        self.lock = threading.Lock()

    def wrap(self, fn, linger: float = 0.0):
        def call(*args, **kwargs):
            with self.lock:
                self.inside += 1
                self.overlaps += self.inside > 1
            try:
                time.sleep(linger)  # a read that takes a while: an unserialised grab would land inside it
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.inside -= 1

        return call


def test_video_grabs_never_run_inside_a_wrappers_ui_read_between_steps():
    """The capture thread and a wrapper reading the desktop between steps (a dialect's elements,
    Set-of-Marks' tree) share one X connection with it: they must take turns."""
    from crab_gym.wrappers import ActionDialect, SetOfMarks

    env = ActionDialect(gym.make("Crab-Desktop-v0", video_fps=50, video_max_frames=4), "pyautogui")
    marks = SetOfMarks(env.env, detector=False, draw_marks=False)
    try:
        env.reset(seed=0)
        crab = env.unwrapped
        sub, seen = crab.subenvs["ubuntu"], Overlaps()
        sub.screenshot = seen.wrap(sub.screenshot)
        sub.ui_elements = seen.wrap(sub.ui_elements, linger=0.03)
        grabs = crab.video["ubuntu"].grabs
        for _ in range(10):
            env.elements("ubuntu")
            env.context.labelled("ubuntu")
            marks.compute_marks("ubuntu", crab.last_screens()["ubuntu"])
            time.sleep(0.02)  # between reads the capture thread gets its turn
        assert crab.video["ubuntu"].grabs > grabs, "the capture thread never ran: the test proves nothing"
        assert seen.overlaps == 0, f"{seen.overlaps} device calls ran inside another"
    finally:
        env.close()

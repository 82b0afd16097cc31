"""Video in recordings: RecordEpisodes keeps the frames of ``video_fps``, the viewer shows them, and
gymnasium's RecordVideo writes an mp4 of ``render()`` (moviepy, the ``video`` extra)."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

import crab_gym  # noqa: F401  (registers the env ids)
from crab_gym.episode.format import load_episodes
from crab_gym.episode.record import RecordEpisodes
from crab_gym.episode.view import write_view


def test_record_episodes_keeps_the_video_and_the_viewer_shows_it(tmp_path):
    env = RecordEpisodes(
        gym.make("Crab-Android-v0", video_fps=5, video_max_frames=8, obs_size=(54, 120), max_steps=2),
        tmp_path,
    )
    try:
        env.reset(seed=0)
        time.sleep(0.7)
        obs, *_ = env.step(env.unwrapped.wait_action())
        n = int(obs["android"]["video_frames"])
        assert n >= 2
        sent = obs["android"]["video"][:n].copy()
        env.step(env.unwrapped.wait_action())
    finally:
        env.close()
    (ep,) = list(load_episodes(tmp_path))
    refs = ep.steps[1]["video"]["android"]
    assert len(refs) == n
    assert np.array_equal(np.stack([ep.array(r) for r in refs]), sent)
    html = write_view(tmp_path).read_text()
    assert 'class="video"' in html and f"android video ({n})" in html


def test_record_video_writes_an_mp4(tmp_path):
    env = gym.wrappers.RecordVideo(
        gym.make("Crab-Android-v0", render_mode="rgb_array", max_steps=3),
        str(tmp_path / "videos"),
        episode_trigger=lambda i: True,
        disable_logger=True,
    )
    try:
        env.reset(seed=0)
        for _ in range(3):
            env.step(env.unwrapped.encode_action("android", "press", {"button": "back"}))
    finally:
        env.close()
    (mp4,) = (tmp_path / "videos").glob("*.mp4")
    assert mp4.stat().st_size > 1000

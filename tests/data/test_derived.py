"""Derived datasets (grounding, inverse dynamics, success detection) checked against the recorded episodes."""

from __future__ import annotations

import json

import datasets
import gymnasium as gym
import numpy as np
import pytest

from crab_gym.baselines import OracleAgent
from crab_gym.episode import load_episode, load_episodes
from crab_gym.episode.derived import (
    element_description,
    grounding_dataset,
    inverse_dynamics_dataset,
    success_detection_dataset,
)
from crab_gym.wrappers import RecordEpisodes


def _episodes(run):
    return {ep.id: ep for ep in load_episodes(run)}


def _expected_elements(run, skip=("detector",)):
    """(screen file, device, role, name, box) of every named element not from ``skip``, across the run."""
    keys = set()
    for ep in load_episodes(run):
        for step in ep.steps:
            for dev, found in step.get("elements", {}).items():
                for el in found:
                    if el["name"].strip() and el["source"] not in skip:
                        keys.add(
                            (step["screens"][dev], dev, el["role"], el["name"].strip(), tuple(el["box"]))
                        )
    return keys


def test_element_description():
    assert element_description("Button", "Send") == 'button "Send"'
    assert element_description("EditText", "First name") == 'text field "First name"'
    assert element_description("push button", "OK") == 'button "OK"'
    assert element_description("LinearLayout", "row") == 'linear layout "row"'


@pytest.mark.parametrize("fixture", ["phone_run", "marked_run"])
def test_grounding_rows_are_recorded_elements(fixture, request, tmp_path):
    run = request.getfixturevalue(fixture)
    ds = grounding_dataset(run, tmp_path / "g")
    assert len(datasets.load_from_disk(str(tmp_path / "g"))) == len(ds)
    episodes = _episodes(run)
    rows = ds.remove_columns("image").to_list()
    # one row per distinct (screen, element): an element on an unchanged screen is not repeated
    expected = _expected_elements(run)
    got = set()
    for r in rows:
        screen = episodes[r["episode_id"]].steps[r["step"]]["screens"][r["device"]]
        got.add((screen, r["device"], r["role"], r["name"], tuple(r["box"])))
    assert got == expected and len(rows) == len(expected)
    for r in rows:
        recorded = episodes[r["episode_id"]].steps[r["step"]]["elements"][r["device"]]
        assert {"box": r["box"], "role": r["role"], "name": r["name"], "source": r["source"]} in recorded
        assert r["source"] != "detector" and r["name"].strip()
        x1, y1, x2, y2 = r["box"]
        assert r["box_norm"] == pytest.approx([x1 / 1080, y1 / 2400, x2 / 1080, y2 / 2400])
    send = [r for r in rows if r["description"] == 'button "Send"']
    if fixture == "phone_run":
        assert send and send[0]["box"] == [48, 2106, 1032, 2226]
    else:  # Set-of-Marks' candidates hold the detector's nameless regions: none of them is a row
        assert any(
            el["source"] == "detector" for s in episodes["marked"].steps for el in s["elements"]["android"]
        )
    r = ds[0]
    screen = episodes[r["episode_id"]].screen(r["step"], r["device"])
    assert np.array_equal(np.asarray(r["image"]), screen)


def test_grounding_boxes_follow_a_downscaled_recording(tmp_path):
    run = tmp_path / "small"
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=["sms_send-0"], max_steps=2), run, downscale=0.25)
    try:
        obs, info = env.reset(seed=0, options={"episode_id": "small"})
        agent = OracleAgent(env)
        for _ in range(2):
            obs, *_, info = env.step(agent.act(obs, info))
    finally:
        env.close()
    ep = load_episode(run / "small")
    assert ep.screen(0, "android").shape == (600, 270, 3)
    ds = grounding_dataset(run, tmp_path / "g")
    row = ds[0]
    assert np.asarray(row["image"]).shape == (600, 270, 3)
    full = next(e for e in ep.steps[row["step"]]["elements"]["android"] if e["name"] == row["name"])
    assert row["box"] == [round(v / 4) for v in full["box"]]
    x1, y1, x2, y2 = full["box"]
    assert row["box_norm"] == pytest.approx([x1 / 1080, y1 / 2400, x2 / 1080, y2 / 2400])


def test_grounding_boxes_are_in_device_pixels_under_small_observations(tmp_path):
    """With obs_size the agent sees a 108x240 frame, but elements are boxes on the full frame, which is
    what the recorder stores as the screen: the boxes must not be rescaled by the observation's size."""
    run = tmp_path / "rl"
    env = RecordEpisodes(
        gym.make("Crab-Android-v0", tasks=["sms_send-0"], obs_size={"android": (108, 240)}), run
    )
    try:
        env.reset(seed=0, options={"episode_id": "rl"})
    finally:
        env.close()
    ep = load_episode(run / "rl")
    assert ep.observation(0)["android"]["screen"].shape == (240, 108, 3)
    assert ep.screen_size("android") == (1080, 2400)
    ds = grounding_dataset(run, tmp_path / "g")
    boxes = {tuple(e["box"]) for e in ep.steps[0]["elements"]["android"]}
    assert len(ds) and all(tuple(row["box"]) in boxes for row in ds)


def test_inverse_dynamics_pairs(phone_run, marked_run, tmp_path):
    ds = inverse_dynamics_dataset(phone_run, tmp_path / "idm")
    episodes = _episodes(phone_run)
    valid = [
        (ep.id, s["t"])
        for ep in episodes.values()
        for s in ep.actions
        if not s.get("invalid_action") and s.get("readable") and s["readable"]["device"] in s["screens"]
    ]
    assert [(r["episode_id"], r["step"]) for r in ds.remove_columns(["before", "after"])] == valid
    assert len(valid) < sum(len(ep.actions) for ep in episodes.values())  # root.wait has no screen
    taps = [r for r in ds if r["changed"] and json.loads(r["action"])["action"] == "tap"]
    assert taps
    tap = taps[0]
    ep = episodes[tap["episode_id"]]
    before, after = np.asarray(tap["before"]), np.asarray(tap["after"])
    assert not np.array_equal(before, after)
    assert np.array_equal(before, ep.screen(tap["step"] - 1, "android"))
    assert np.array_equal(after, ep.screen(tap["step"], "android"))
    assert tap["action_text"].startswith("android.tap(point=[")
    same = next(r for r in ds if not r["changed"])  # e.g. `home` pressed on the home screen
    assert np.array_equal(np.asarray(same["before"]), np.asarray(same["after"]))

    marked = inverse_dynamics_dataset(marked_run, tmp_path / "idm-marked")
    ep = load_episode(marked_run / "marked")
    assert marked["step"] == [s["t"] for s in ep.actions if not s.get("invalid_action")] == list(range(2, 9))
    assert all("element" not in t for t in marked["action_text"])  # in the frames' terms: points


def test_success_detection_labels_match_the_records(phone_run, marked_run, tmp_path):
    ds = success_detection_dataset(phone_run, tmp_path / "sd")
    episodes = _episodes(phone_run)
    assert len(ds) == len(episodes) == 3
    labels = {r["episode_id"]: r for r in ds.remove_columns("final_screen_android")}
    for eid, ep in episodes.items():
        record = ep.meta["record"]
        row = labels[eid]
        assert row["success"] is record["success"]
        assert row["completion_ratio"] == record["completion_ratio"]
        assert row["termination_reason"] == record["termination_reason"]
        assert row["instruction"] == ep.meta["instruction"]
        assert len(row["trajectory"]) == row["actions"] == len(ep.actions)
    assert labels["random-0"]["success"] is False and labels["random-0"]["termination_reason"] == "step_limit"
    assert labels["oracle-sms_send-0"]["success"] is True
    assert (
        'android.write_text(text="The northern workshop returns on day 12")'
        in labels["oracle-sms_send-0"]["trajectory"]
    )
    row = ds[0]
    ep = episodes[row["episode_id"]]
    assert np.array_equal(np.asarray(row["final_screen_android"]), ep.screen(len(ep.steps) - 1, "android"))

    marked = success_detection_dataset(marked_run, tmp_path / "sd-marked")
    (row,) = marked
    assert row["success"] is True and len(row["trajectory"]) == 8
    assert '"element": 999' in row["trajectory"][0]  # the refused call, as sent

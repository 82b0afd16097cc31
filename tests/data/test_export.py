"""Exports of recorded runs: native -> Minari (loaded back with minari.load_dataset) and -> Hugging Face
datasets (load_from_disk and the Parquet loader), checked against the native episodes."""

from __future__ import annotations

import glob
import json
import shutil

import datasets
import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import crab_gym  # noqa: F401
from crab_gym.episode import load_episode, load_episodes
from crab_gym.episode.hf_export import export_hf
from crab_gym.episode.minari_export import export_minari, minari_space_text
from crab_gym.episode.space_json import space_from_json
from crab_gym.wrappers import RecordEpisodes
from crab_gym.wrappers.flatten import FlattenActions

minari = pytest.importorskip("minari")


@pytest.fixture(scope="module")
def minari_root(tmp_path_factory):
    """MINARI_DATASETS_PATH at a temporary folder for this module (never the home folder)."""
    root = tmp_path_factory.mktemp("minari")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINARI_DATASETS_PATH", str(root))
        yield root


@pytest.fixture(scope="module")
def phone_minari(phone_run, minari_root):
    folder = export_minari(phone_run, "crab/phone-v0", data_format="arrow")
    assert folder == minari_root / "crab" / "phone-v0"
    return minari.load_dataset("crab/phone-v0")


def _by_id(run):
    return {ep.id: ep for ep in load_episodes(run, complete_only=True)}


# ---- Minari -------------------------------------------------------------------------------------------


def test_minari_round_trip_matches_the_native_episodes(phone_run, phone_minari):
    native = _by_id(phone_run)
    ds = phone_minari
    meta = next(iter(native.values())).meta
    assert ds.total_episodes == len(native) == 3
    assert ds.total_steps == sum(len(ep.actions) for ep in native.values())
    assert ds.observation_space == space_from_json(meta["observation_space"])
    assert ds.action_space == space_from_json(meta["action_space"])
    assert isinstance(ds.action_space, spaces.Tuple)

    ep_meta = list(ds.storage.get_episode_metadata(range(ds.total_episodes)))
    for mep, em in zip(ds.iterate_episodes(), ep_meta, strict=True):
        ep = native[em["crab_episode_id"]]
        n = len(ep.actions)
        assert len(mep.rewards) == n and em["task_id"] == ep.meta["task_id"]
        assert mep.rewards.sum() == pytest.approx(ep.meta["record"]["return"])
        assert mep.terminations[-1] == ep.steps[-1]["terminated"]
        assert mep.truncations[-1] == ep.steps[-1]["truncated"]
        for t in (0, 2, n):  # reset, a middle step, the last observation
            obs = ep.observation(t)
            assert mep.observations["android"]["screen"][t].shape == (2400, 1080, 3)
            assert np.array_equal(mep.observations["android"]["screen"][t], obs["android"]["screen"])
            assert np.array_equal(mep.observations["instruction"][t], obs["instruction"])
        device, action, params = mep.actions
        for i, step in enumerate(ep.actions):
            sent = step["action"]
            assert (device[i], action[i]) == (sent[0], sent[1])
            assert np.array_equal(params["point"][i], np.asarray(sent[2]["point"], np.float32))
            assert params["text"][i] == sent[2]["text"] and params["answer"][i] == sent[2]["answer"]
            assert params["seconds"][i] == sent[2]["seconds"]
        assert list(mep.infos["completion_ratio"]) == [s["completion_ratio"] for s in ep.steps]
        assert list(mep.infos["success"]) == [s["success"] for s in ep.steps]
    assert {em["crab_episode_id"] for em in ep_meta} == set(native)
    # the typed text survives inside Tuple(..., Dict(..., Text))
    texts = [t for mep in ds.iterate_episodes() for t in mep.actions[2]["text"] if t]
    assert "555-666-6158" in texts and "The northern workshop returns on day 12" in texts
    assert "sms_send-0" in ds.storage.metadata["description"]
    assert ds.storage.metadata["author"] == {"crab-gym"}


def test_minari_tool_call_run_stores_the_raw_text(marked_run, minari_root):
    export_minari(marked_run, "marked-v0", data_format="parquet")
    ds = minari.load_dataset("marked-v0")
    ep = load_episode(marked_run / "marked")
    assert isinstance(ds.action_space, spaces.Text)
    assert ds.observation_space == space_from_json(ep.meta["observation_space"])
    (mep,) = list(ds.iterate_episodes())
    assert mep.actions == [s["tool_call_text"] for s in ep.actions]
    assert '"element": 999' in mep.actions[0]  # the malformed call is kept, and flagged
    assert list(mep.infos["invalid_action"]) == [bool(s.get("invalid_action")) for s in ep.steps]
    assert mep.infos["invalid_action"][1]
    obs = ep.observation(3)
    assert mep.observations["android"]["mark_count"][3].shape == ()
    assert int(mep.observations["android"]["mark_count"][3]) == int(np.asarray(obs["android"]["mark_count"]))
    assert np.array_equal(mep.observations["android"]["marks"][3], obs["android"]["marks"])
    assert np.array_equal(mep.observations["android"]["screen"][3], obs["android"]["screen"])
    assert mep.rewards.sum() == ep.meta["record"]["return"] == 1.0
    with pytest.raises(FileExistsError, match="exists"):
        export_minari(marked_run, "marked-v0")


def test_minari_flatten_actions_run(tmp_path, minari_root):
    run = tmp_path / "flat"
    env = RecordEpisodes(
        FlattenActions(gym.make("Crab-Android-v0", tasks=["contacts_add-0"], max_steps=3)), run
    )
    env.reset(seed=0, options={"episode_id": "flat"})
    env.action_space.seed(0)
    sent = []
    for _ in range(3):
        a = env.action_space.sample()
        a[0] = 0  # the phone, not root (whose `complete` would end the episode at once)
        sent.append(a)
        *_, terminated, truncated, _ = env.step(a)
    env.close()
    assert truncated
    cut = run / "cut.partial"  # killed right after its reset: nothing to store, and said so
    shutil.copytree(run / "flat", cut)
    (cut / "steps.jsonl").write_text((cut / "steps.jsonl").read_text().splitlines()[0] + "\n")
    with pytest.warns(UserWarning, match="without actions left out: cut.partial"):
        export_minari(run, "flat-v0", data_path=minari_root, complete_only=False)  # format: parquet
    ds = minari.load_dataset("flat-v0")
    assert ds.total_episodes == 1 and ds.storage.metadata["crab_gym_skipped_episodes"] == ["cut.partial"]
    assert isinstance(ds.action_space, spaces.MultiDiscrete)
    assert ds.action_space == env.action_space and ds.observation_space == env.observation_space
    (mep,) = list(ds.iterate_episodes())
    assert np.array_equal(mep.actions, np.stack(sent))
    ep = load_episode(run / "flat")
    for t in range(4):
        assert np.array_equal(mep.observations["android_screen"][t], ep.observation(t)["android_screen"])


def test_minari_refuses_a_run_of_mixed_spaces(phone_run, marked_run, tmp_path, minari_root):
    mixed = tmp_path / "mixed"
    shutil.copytree(phone_run / "random-0", mixed / "random-0")
    shutil.copytree(marked_run / "marked", mixed / "marked")
    with pytest.raises(ValueError, match="different observation spaces") as e:
        export_minari(mixed, "mixed-v0")
    assert "\n" not in str(e.value)
    assert not (minari_root / "mixed-v0").exists()


def test_space_text_is_what_minari_writes_and_reads():
    from minari.serialization import deserialize_space, serialize_space

    screen = spaces.Box(0, 255, (40, 30, 3), np.uint8)
    cases = [
        spaces.Dict({"android": spaces.Dict({"screen": screen}), "v": spaces.Box(-np.inf, np.inf, (3,))}),
        spaces.Box(np.array([0.0, -1.0], np.float32), np.array([1.0, 2.5], np.float32), dtype=np.float32),
        spaces.Tuple(
            [spaces.Discrete(5, start=1), spaces.MultiDiscrete([2, 3]), spaces.Text(8, min_length=1)]
        ),
        spaces.MultiBinary(4),
    ]
    for space in cases:
        assert minari_space_text(space) == serialize_space(space)
        assert deserialize_space(minari_space_text(space)) == space


# ---- Hugging Face -------------------------------------------------------------------------------------


def _parquet(out):
    files = sorted(glob.glob(str(out / "parquet" / "*.parquet")))
    assert files
    return datasets.load_dataset(
        "parquet", data_files=files, split="train", cache_dir=str(out.parent / "hf-cache")
    )


def test_hf_export_one_row_per_action(phone_run, tmp_path):
    out = tmp_path / "hf"
    ds = export_hf(phone_run, out, after=True)
    native = _by_id(phone_run)
    assert len(ds) == sum(len(ep.actions) for ep in native.values()) == 20
    on_disk = datasets.load_from_disk(str(out))
    from_parquet = _parquet(out)
    assert len(on_disk) == len(from_parquet) == len(ds)
    assert isinstance(from_parquet.features["screen_android"], datasets.Image)
    raw = on_disk.cast_column("screen_android", datasets.Image(decode=False))[0]["screen_android"]
    assert raw["bytes"].startswith(b"\x89PNG\r\n\x1a\n")
    assert from_parquet.column_names == on_disk.column_names
    for table in (on_disk, from_parquet):
        for i in (0, 9, 19):
            row = table[i]
            ep = native[row["episode_id"]]
            step = ep.steps[row["step"]]
            assert np.array_equal(np.asarray(row["screen_android"]), ep.screen(row["step"] - 1, "android"))
            assert np.array_equal(np.asarray(row["screen_after_android"]), ep.screen(row["step"], "android"))
            assert json.loads(row["action"]) == step["readable"]
            assert row["action_text"].startswith(
                f"{step['readable']['device']}.{step['readable']['action']}("
            )
            assert row["instruction"] == ep.meta["instruction"] and row["task_id"] == ep.meta["task_id"]
    rows = on_disk.remove_columns(["screen_android", "screen_after_android"]).to_list()
    for eid, ep in native.items():
        mine = [r for r in rows if r["episode_id"] == eid]
        assert [r["step"] for r in mine] == list(range(1, len(ep.steps)))
        assert sum(r["reward"] for r in mine) == pytest.approx(ep.meta["record"]["return"])
        assert [r["done"] for r in mine] == [False] * (len(mine) - 1) + [True]
        assert {r["termination_reason"] for r in mine} == {ep.meta["record"]["termination_reason"]}
    assert 'android.write_text(text="Dmitri")' in {r["action_text"] for r in rows}


def test_hf_export_tool_calls_and_marked_screens(marked_run, tmp_path):
    ds = export_hf(marked_run, tmp_path / "hf")
    ep = load_episode(marked_run / "marked")
    assert len(ds) == len(ep.actions) == 8
    assert ds["action_text"] == [s["tool_call_text"] for s in ep.actions]
    first = ds[0]
    assert first["invalid_action"] and first["action"] is None and first["device"] is None
    assert ds[1]["invalid_action"] is None and json.loads(ds[1]["action"])["action"] == "press"
    row = ds[2]  # the agent saw the screen with its marks; element ids in the call refer to those
    marked = np.asarray(row["screen_marked_android"])
    assert np.array_equal(marked, ep.array(ep.steps[1]["obs"]["android/screen"]))
    assert not np.array_equal(marked, np.asarray(row["screen_android"]))
    assert {m["id"] for m in json.loads(row["marks"])["android"]} >= {10}


def test_hf_export_complete_only_skips_a_cut_episode(phone_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(phone_run / "random-0", run / "random-0")
    cut = run / "cut.partial"
    shutil.copytree(phone_run / "oracle-sms_send-0", cut)
    lines = (cut / "steps.jsonl").read_text().splitlines()
    (cut / "steps.jsonl").write_text("\n".join(lines[:3]) + "\n")
    meta = json.loads((cut / "episode.json").read_text())
    meta.update(status="recording", episode_id="cut")
    meta.pop("record")
    (cut / "episode.json").write_text(json.dumps(meta))
    assert len(export_hf(run, tmp_path / "all")) == 6 + 2
    assert set(export_hf(run, tmp_path / "done", complete_only=True)["episode_id"]) == {"random-0"}
    with pytest.raises(FileExistsError):
        export_hf(run, tmp_path / "done")

"""Device slots (exclusive per machine, preferred index, per-slot backend lists) and episode folders sent
between nodes; no Ray needed."""

from __future__ import annotations

import argparse

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent
from crab_gym.episode import load_episode
from crab_gym.runs.distributed import DeviceSlot, add_ray_arguments, ray_options, resolve_backends, slot_limit
from crab_gym.runs.distributed.shipping import pack_episode, unpack_episode
from crab_gym.wrappers import RecordEpisodes


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One oracle episode of a phone task, recorded."""
    out = tmp_path_factory.mktemp("recorded")
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=["contacts_add-0"]), out)
    try:
        agent = OracleAgent(env)
        obs, info = env.reset(seed=0, options={"task": "contacts_add-0", "episode_id": "ep"})
        while True:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            if terminated or truncated:
                break
    finally:
        env.close()
    return out / "ep"


def test_a_slot_is_exclusive_prefers_its_index_and_frees_on_release():
    first = DeviceSlot(prefer=5)
    second = DeviceSlot(prefer=5)  # same process, another open file: still excluded
    try:
        assert first.index == 5 and second.index == 6
        first.release()
        first.release()  # idempotent
        third = DeviceSlot(prefer=5)
        assert third.index == 5
        third.release()
    finally:
        first.release()
        second.release()
    held = [DeviceSlot(limit=2) for _ in range(2)]
    try:
        with pytest.raises(RuntimeError, match="no free device slot"):
            DeviceSlot(limit=2)
    finally:
        for s in held:
            s.release()


def test_backends_per_slot():
    backends = {"android": ["adb:emulator-5554", "adb:emulator-5556"], "ubuntu": "xvfb"}
    assert slot_limit(backends) == 2 and slot_limit(None) == 64
    assert resolve_backends(backends, 1) == {"android": "adb:emulator-5556", "ubuntu": "xvfb"}
    with pytest.raises(ValueError, match=r"backends\['android'\] lists 2 devices, none for slot 2"):
        resolve_backends(backends, 2)
    with pytest.raises(ValueError, match=r"backends\['android'\]: \[\] is neither"):
        slot_limit({"android": []})
    with pytest.raises(ValueError, match=r"backends\['android'\]: 3 is neither"):
        resolve_backends({"android": 3}, 0)


def test_an_episode_sent_between_nodes_arrives_whole(recorded, tmp_path):
    src = recorded
    files = pack_episode(src)
    assert "episode.json" in files and "frames/" in files
    unpack_episode(tmp_path, src.name, files)
    sent, original = load_episode(tmp_path / src.name), load_episode(src)
    assert sent.complete and sent.meta == original.meta and sent.steps == original.steps
    assert (sent.observation(len(sent.steps) - 1)["instruction"] == original.observation(
        len(original.steps) - 1)["instruction"]).all()  # fmt: skip
    assert not list(tmp_path.glob("*.partial"))
    for bad in ("../x", "/etc/passwd", "a/../../b", ""):
        with pytest.raises(ValueError, match="not a plain relative path"):
            unpack_episode(tmp_path, "evil", {"episode.json": b"{}", bad: b"x"})
    with pytest.raises(ValueError, match="not a folder name"):
        unpack_episode(tmp_path, "../evil", files)
    with pytest.raises(ValueError, match="without its episode.json"):
        unpack_episode(tmp_path, "empty", {})
    assert not (tmp_path.parent / "x").exists() and not (tmp_path / "evil").exists()


def test_ray_arguments():
    p = argparse.ArgumentParser()
    add_ray_arguments(p)
    assert ray_options(p.parse_args([])) is None
    opts = ray_options(p.parse_args(["--ray", "--ray-actors", "3"]))
    assert opts is not None and opts.address is None and opts.actors == 3
    opts = ray_options(p.parse_args(["--ray-address", "auto"]))
    assert opts is not None and opts.address == "auto" and opts.actors == 0
    with pytest.raises(SystemExit):
        p.parse_args(["--ray", "--ray-actors", "-1"])

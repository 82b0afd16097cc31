"""``env.action_masks()`` and the valid-action sampler RandomAgent."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.random_agent import RandomAgent
from crab_gym.spaces import encode_instruction

ENDING = ("complete", "submit")
INSTRUCTION = "Add Dmitri (555-172-3208) to the contacts and save ~/Documents/notes_1.txt"


@pytest.fixture(scope="module")
def crab():
    """Crab-v0 without a reset: masks and sampling need no running device."""
    env = gym.make("Crab-v0")
    yield env.unwrapped
    env.close()


def test_masks_match_the_devices_action_counts(crab):
    mask = crab.action_masks()
    subs = crab.codec.subenvs
    assert [s.name for s in subs] == ["ubuntu", "android", "root"]
    assert mask.dtype == bool and mask.shape == (3, max(len(s.actions) for s in subs))
    assert mask.shape[1] == crab.action_space[1].n
    for row, sub in zip(mask, subs, strict=True):
        assert row.sum() == len(sub.actions) and row[: len(sub.actions)].all()


def test_masks_on_the_phone_and_in_info():
    env = gym.make("Crab-Android-v0", tasks=["contacts_add-0"])
    try:
        _, info = env.reset(seed=0)
        mask = env.unwrapped.action_masks()
        assert mask.shape == (2, 6) and mask.sum(axis=1).tolist() == [6, 3]
        assert np.array_equal(info["action_mask"], mask)
    finally:
        env.close()


@pytest.mark.parametrize("allow_ending", [False, True])
def test_the_sampler_draws_only_valid_actions(crab, allow_ending):
    agent = RandomAgent(crab, seed=0, allow_ending=allow_ending)
    obs = {"instruction": encode_instruction(INSTRUCTION)}
    words = set(re.findall(r"[\w~./-]+", INSTRUCTION))
    mask = crab.action_masks()
    drawn = set()
    for _ in range(1000):
        action = agent.act(obs, {})
        dev, act, params = action
        assert mask[dev, act], f"drew the non-existing pair ({dev}, {act})"
        assert crab.action_space[0].contains(dev) and crab.action_space[1].contains(act)
        sub, spec, values = crab.codec.decode(action)  # raises InvalidAction if anything is off
        drawn.add((sub.name, spec.name))
        for p in spec.params:
            # the parameters the action uses are in their spaces (an unused one keeps the codec's default,
            # e.g. an empty ``answer``, which its Text(min_length=1) space does not contain)
            assert crab.codec.codecs[p.name].space.contains(params[p.name]), p.name
            kind = crab.codec.codecs[p.name].kind
            if kind == "point":
                assert all(0.0 <= v <= 1.0 for v in values[p.name])
            elif kind == "text":
                assert values[p.name] and set(values[p.name].split(" ")) <= words
    ending = {pair for pair in drawn if pair[1] in ENDING}
    assert bool(ending) == allow_ending
    every = {(s.name, a.name) for s in crab.codec.subenvs for a in s.actions}
    assert drawn == (every if allow_ending else {p for p in every if p[1] not in ENDING})


def test_200_draws_on_the_phone_are_all_valid():
    env = gym.make("Crab-Android-v0", tasks=["contacts_add-0", "sms_send-1"], max_steps=1000)
    env.unwrapped.subenvs["root"].time_scale = 0.0
    agent = RandomAgent(env, seed=1)
    try:
        obs, info = env.reset(seed=0)
        for _ in range(200):
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            assert "invalid_action" not in info and "error" not in info
            assert info["action"]["name"] not in ENDING
            if terminated or truncated:
                obs, info = env.reset()
        assert info["invalid_actions"] == 0
    finally:
        env.close()

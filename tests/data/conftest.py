"""Recorded runs on the simulated phone, shared by the data tests: oracle episodes, a random one and one
through SetOfMarks + FunctionCalls (marks, tool-call text)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent, RandomAgent
from crab_gym.wrappers import FunctionCalls, RecordEpisodes, SetOfMarks

PHONE_TASKS = ["contacts_add-0", "sms_send-0"]


def play(env, agent, task_id: str, seed: int, episode_id: str | None = None) -> None:
    options = {"task": task_id}
    if episode_id:
        options["episode_id"] = episode_id
    obs, info = env.reset(seed=seed, options=options)
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return


@pytest.fixture(scope="session")
def phone_run(tmp_path_factory):
    """A run folder: the oracle on two phone tasks, and the random agent for 6 steps on the first."""
    out = tmp_path_factory.mktemp("phone_run")
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=PHONE_TASKS, max_steps=30), out)
    try:
        for i, tid in enumerate(PHONE_TASKS):
            play(env, OracleAgent(env), tid, seed=i, episode_id=f"oracle-{tid}")
        env.unwrapped.max_steps = 6
        play(env, RandomAgent(env, seed=3), PHONE_TASKS[0], seed=7, episode_id="random-0")
    finally:
        env.close()
    return out


@pytest.fixture(scope="session")
def marked_run(tmp_path_factory):
    """A run folder: the scripted solution of one phone task sent as tool-call text through SetOfMarks
    (points become the ids of the marks acting there), one malformed call first."""
    out = tmp_path_factory.mktemp("marked_run")
    som = SetOfMarks(gym.make("Crab-Android-v0", tasks=PHONE_TASKS[:1]))
    env = RecordEpisodes(FunctionCalls(som), out)
    try:
        env.reset(seed=0, options={"task": PHONE_TASKS[0], "episode_id": "marked"})
        env.step('{"name": "tap", "arguments": {"device": "android", "element": 999}}')
        for s in [*env.unwrapped.task.solution(), None]:
            if s is None:
                call = {"name": "complete", "arguments": {"device": "root"}}
            else:
                args = {"device": s.env, **dict(s.params)}
                if "point" in args:
                    w, h = env.unwrapped.subenvs[s.env].screen_size
                    x, y = args.pop("point")
                    args["element"] = som.mark_for_point(s.env, x * w, y * h).id
                call = {"name": s.action, "arguments": args}
            *_, terminated, truncated, _ = env.step(json.dumps(call))
            if terminated or truncated:
                break
    finally:
        env.close()
    return out

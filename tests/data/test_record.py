"""RecordEpisodes on the simulated phone: a pure observer over every wrapper, what each step keeps, frames
written once, episodes closed complete or incomplete, and replay of what was recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines import OracleAgent
from crab_gym.episode import EpisodeFormatError, load_episode, load_episodes
from crab_gym.episode.format import episode_dirs
from crab_gym.runs.replay import replay_episode
from crab_gym.wrappers import FlattenActions, FunctionCalls, RecordEpisodes, SetOfMarks

TASK = "contacts_add-0"


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _scripted(env, n: int) -> list:
    """The first n actions of the task's solution, in the action form of ``env``'s outermost wrapper."""
    env.reset(seed=0, options={"task": TASK})
    encode = env.get_wrapper_attr("encode_action")
    return [encode(s.env, s.action, dict(s.params)) for s in env.unwrapped.task.solution()[:n]]


@pytest.mark.parametrize("stack", ["crab", "marks", "calls", "flat"])
def test_recorder_changes_nothing_the_agent_sees(tmp_path, stack):
    def make(record: bool):
        env = gym.make("Crab-Android-v0", tasks=[TASK])
        if stack == "marks":
            env = SetOfMarks(env)
        if stack == "flat":
            env = FlattenActions(env)
        if stack == "calls":
            env = FunctionCalls(env)
        return RecordEpisodes(env, tmp_path) if record else env

    plain, recorded = make(False), make(True)
    try:
        if stack == "calls":
            tap = {"name": "tap", "arguments": {"device": "android", "point": [0.5, 0.6]}}
            home = {"name": "press", "arguments": {"device": "android", "button": "home"}}
            actions = [json.dumps(tap), '{"name": "nope"}', home]
        elif stack == "flat":
            actions = [np.array(a) for a in [[0, 0] + [3] * (len(plain.action_space.nvec) - 2),
                                              [1, 2] + [0] * (len(plain.action_space.nvec) - 2)]]  # fmt: skip
        else:
            actions = _scripted(plain, 3)
        results = []
        for env in (plain, recorded):
            out = [env.reset(seed=0, options={"task": TASK})]
            out += [env.step(a) for a in actions]
            results.append(out)
        for a, b in zip(*results, strict=True):
            assert _same(a[0], b[0])
            assert a[1:-1] == b[1:-1]
            info_a, info_b = a[-1], b[-1]
            assert info_a.keys() == info_b.keys()
            for k in info_a:
                if k not in ("timings", "reset_seconds"):
                    assert (
                        _same(info_a[k], info_b[k])
                        if isinstance(info_a[k], np.ndarray)
                        else info_a[k] == info_b[k]
                    )
        assert recorded.action_space == plain.action_space
        assert recorded.observation_space == plain.observation_space
    finally:
        plain.close()
        recorded.close()
    (ep,) = load_episodes(tmp_path)
    assert len(ep.steps) == len(actions) + 1 and ep.meta["status"] == "incomplete"  # closed mid-episode
    ob = ep.observation(len(actions))
    assert _same(ob, results[1][-1][0])


def test_a_step_keeps_what_the_issue_lists(phone_run, marked_run):
    ep = load_episode(phone_run / "oracle-contacts_add-0")
    assert ep.complete and ep.meta["record"]["termination_reason"] == "success"
    m = ep.meta
    assert m["task_id"] == "contacts_add-0" and m["seed"] == 0 and m["env_id"] == "Crab-Android-v0"
    assert m["instruction"] and m["backends"] == {"android": "sim"} and m["package"]["version"]
    assert m["observation_space"]["type"] == "Dict" and m["action_space"]["type"] == "Tuple"
    tap = next(s for s in ep.actions if s["readable"]["action"] == "tap")
    assert tap["env_action"][0] == ep.meta["devices"].index("android")
    assert tap["readable"]["params"]["point"] == pytest.approx(tap["env_action"][2]["point"])
    for key in ("reward", "completion_ratio", "nodes", "feedback", "timings", "screens", "obs", "elements"):
        assert key in tap, key
    assert any(e["name"] for e in tap["elements"]["android"])
    last = ep.steps[-1]
    assert last["terminated"] and last["completion_ratio"] == 1.0
    assert sum(s["reward"] for s in ep.actions) == pytest.approx(ep.meta["record"]["return"])

    marked = load_episode(marked_run / "marked")
    bad = marked.steps[1]
    assert "element" in bad["tool_call_text"] and "999" in bad["invalid_action"]
    good = marked.steps[2]
    assert good["tool_call"]["name"] == good["readable"]["action"]
    assert good["marks"]["android"][0]["id"] == 1 and len(good["marks"]["android"][0]["box"]) == 4
    # the agent saw marks drawn; the stored device screen is the clean frame
    assert not np.array_equal(marked.observation(2)["android"]["screen"], marked.screen(2, "android"))


def test_unchanged_screens_are_written_once(tmp_path):
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=[TASK]), tmp_path)
    try:
        env.reset(seed=0, options={"task": TASK, "episode_id": "waits"})
        for _ in range(4):
            env.step(env.unwrapped.wait_action())
    finally:
        env.close()
    ep = load_episode(tmp_path / "waits")
    refs = {s["screens"]["android"] for s in ep.steps}
    assert len(refs) == 1
    assert len(list((tmp_path / "waits" / "frames").iterdir())) == 1
    assert ep.steps[0]["obs"]["android/screen"] == ep.steps[0]["screens"]["android"]  # shared, not copied


def test_downscale_and_png_frames(tmp_path):
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=[TASK]), tmp_path, frames="png", downscale=0.25)
    try:
        env.reset(seed=0, options={"task": TASK, "episode_id": "small"})
    finally:
        env.close()
    ep = load_episode(tmp_path / "small")
    assert ep.screen(0, "android").shape == (600, 270, 3)
    assert ep.steps[0]["screens"]["android"].endswith(".png")
    assert ep.observation(0)["android"]["screen"].shape == (2400, 1080, 3)  # what the agent saw


def test_interrupted_episodes_are_kept_as_incomplete(tmp_path):
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=[TASK]), tmp_path)
    try:
        env.reset(seed=0, options={"task": TASK, "episode_id": "cut-by-reset"})
        env.step(env.unwrapped.wait_action())
        env.reset(seed=0, options={"task": TASK, "episode_id": "cut-by-error"})
        env.step(env.unwrapped.wait_action())
        real_step = env.unwrapped.step
        env.unwrapped.step = lambda a: (_ for _ in ()).throw(OSError("disk gone"))
        with pytest.raises(OSError):
            env.step(env.unwrapped.wait_action())
        env.unwrapped.step = real_step
    finally:
        env.close()
    a, b = load_episode(tmp_path / "cut-by-reset"), load_episode(tmp_path / "cut-by-error")
    assert not a.complete and "reset()" in a.meta["ended_by"] and len(a.steps) == 2
    assert not b.complete and "OSError: disk gone" in b.meta["ended_by"]
    assert not list(tmp_path.glob("*.partial"))


KILLED = """
import sys, gymnasium as gym, crab_gym
from crab_gym.baselines import OracleAgent
from crab_gym.wrappers import RecordEpisodes
env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=["{task}"]), sys.argv[1])
obs, info = env.reset(seed=0, options={{"task": "{task}", "episode_id": "done"}})
agent = OracleAgent(env)
while True:
    obs, r, te, tr, info = env.step(agent.act(obs, info))
    if te or tr:
        break
env.reset(seed=0, options={{"task": "{task}", "episode_id": "killed"}})
env.step(env.unwrapped.wait_action())
print("ready", flush=True)
sys.stdin.read()
"""


def test_a_killed_writer_leaves_a_readable_partial_episode(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", KILLED.format(task=TASK), str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout.readline().strip() == "ready"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    names = [p.name for p in episode_dirs(tmp_path)]
    assert names == ["done", "killed.partial"]
    done, killed = load_episode(tmp_path / "done"), load_episode(tmp_path / "killed.partial")
    assert done.complete and not killed.complete and killed.meta["status"] == "recording"
    # the writer thread may not have written the last step yet; every line there names files that exist
    assert 1 <= len(killed.steps) <= 2
    for t in range(len(killed.steps)):
        assert killed.screen(t, "android").shape == (2400, 1080, 3)
    # a line cut by the kill is dropped, not an error
    n = len(killed.steps)
    with open(tmp_path / "killed.partial" / "steps.jsonl", "a") as f:
        f.write(f'{{"t": {n}, "rew')
    assert len(load_episode(tmp_path / "killed.partial").steps) == n
    assert [e.id for e in load_episodes(tmp_path, complete_only=True)] == ["done"]


def test_a_malformed_file_is_a_one_line_error_naming_it(tmp_path, phone_run):
    import shutil

    ep_dir = tmp_path / "ep"
    shutil.copytree(phone_run / "random-0", ep_dir)
    (ep_dir / "episode.json").write_text('{"format": "crab-gym-episode/1", "status": ')
    with pytest.raises(EpisodeFormatError, match=r"ep/episode.json: not valid JSON") as e:
        load_episode(ep_dir)
    assert "\n" not in str(e.value)
    shutil.copy(phone_run / "random-0" / "episode.json", ep_dir / "episode.json")
    lines = (ep_dir / "steps.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"t":2', '"t":5')
    (ep_dir / "steps.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(EpisodeFormatError, match=r"steps.jsonl:3: field 't' should be 2"):
        load_episode(ep_dir)


def test_recorded_oracle_episode_replays_identically(phone_run, marked_run):
    for path in (phone_run / "oracle-sms_send-0", marked_run / "marked"):
        result = replay_episode(load_episode(path), screens=True)
        assert result.matches, result.mismatches
        assert result.steps == len(load_episode(path).steps) - 1


def test_replay_reports_a_step_that_differs(tmp_path, phone_run):
    import shutil

    shutil.copytree(phone_run / "oracle-sms_send-0", tmp_path / "ep")
    log = tmp_path / "ep" / "steps.jsonl"
    steps = [json.loads(line) for line in log.read_text().splitlines()]
    steps[2]["reward"] = 0.5
    log.write_text("".join(json.dumps(s) + "\n" for s in steps))
    result = replay_episode(load_episode(tmp_path / "ep"))
    assert not result.matches and result.mismatches[0]["t"] == 2
    assert result.mismatches[0]["reward"]["recorded"] == 0.5


def test_oracle_through_recorder_still_solves(tmp_path):
    env = RecordEpisodes(gym.make("Crab-Android-v0", tasks=[TASK]), tmp_path)
    agent = OracleAgent(env)
    try:
        obs, info = env.reset(seed=0, options={"task": TASK})
        while True:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            if terminated or truncated:
                break
        assert info["termination_reason"] == "success"
    finally:
        env.close()
    assert env.last_episode is not None and load_episode(env.last_episode).complete

"""crab_gym.make_vec: W workers each stepping a batch of envs give what gymnasium's SyncVectorEnv gives
for the same seeds and actions, in every autoreset mode; call/get_attr/set_attr/render work across
workers; a worker killed or hung is replaced within a bounded wait, its envs reported as an env error and
back at their next reset."""

from __future__ import annotations

import gc
import os
import signal
import time
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

import crab_gym
from crab_gym.vector import BatchedVectorEnv, WorkerError

PHONE = {"tasks": ["contacts_add-0"], "obs_size": {"android": (96, 208)}, "max_steps": 4}
CASES = {"phone": ("Crab-Android-v0", PHONE), "cartpole": ("CartPole-v1", {"max_episode_steps": 6})}
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
# info keys that hold wall-clock times or per-process paths: they differ between any two runs
CLOCKS = {"reset_seconds", "timings"}
WAIT = 2  # root's actions: submit, complete, wait


def without_clocks(info: Any) -> Any:
    if isinstance(info, dict):
        return {k: without_clocks(v) for k, v in info.items() if k.lstrip("_") not in CLOCKS}
    if isinstance(info, tuple):
        return tuple(without_clocks(v) for v in info)
    if isinstance(info, np.ndarray) and info.dtype == object:
        return np.array([without_clocks(v) for v in info] + [None], dtype=object)[:-1]
    return info


def same(a: Any, b: Any) -> bool:
    return data_equivalence(without_clocks(a), without_clocks(b), exact=True)


def actions(space: gym.Space, n: int, steps: int) -> list[Any]:
    """Random batched actions; on the phone, root's ``wait`` (which sleeps 1-5 s) becomes ``complete``."""
    space.seed(7)
    out = [space.sample() for _ in range(steps)]
    if isinstance(space, gym.spaces.Tuple):
        root = space.spaces[0].nvec[0] - 1
        for device, action, _ in out:
            action[(device == root) & (action == WAIT)] = WAIT - 1
    return out


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("case", sorted(CASES))
def test_same_results_as_sync_vector_env_for_the_same_seeds_and_actions(case, mode):
    conform(case, mode)


def test_same_results_without_resets_done_ahead():
    conform("phone", AutoresetMode.NEXT_STEP, reset_ahead=False)


def conform(case: str, mode: AutoresetMode, **options: Any) -> None:
    env_id, kwargs = CASES[case]
    ours = crab_gym.make_vec(env_id, 4, workers=2, autoreset_mode=mode, **options, **kwargs)
    ref = gym.vector.SyncVectorEnv([lambda: gym.make(env_id, **kwargs)] * 4, autoreset_mode=mode)
    try:
        assert ours.workers == 2 and ours.num_envs == 4
        assert ours.single_observation_space == ref.single_observation_space
        assert ours.action_space == ref.action_space and ours.metadata["autoreset_mode"] == mode
        assert same(ours.reset(seed=3), ref.reset(seed=3))
        ended = np.zeros(4, dtype=bool)
        for a in actions(ref.action_space, 4, 14):
            got, want = ours.step(a), ref.step(a)
            assert all(same(g, w) for g, w in zip(got, want, strict=True)), (got[1:], want[1:])
            ended |= got[2] | got[3]
            if mode == AutoresetMode.DISABLED and (done := got[2] | got[3]).any():
                assert same(ours.reset(options={"reset_mask": done}), ref.reset(options={"reset_mask": done}))
        assert ended.any(), "the episodes were meant to end, to check the autoreset"
        assert same(ours.reset(seed=[5, 9, 6, 2]), ref.reset(seed=[5, 9, 6, 2]))
    finally:
        ours.close()
        ref.close()


def test_shared_memory_off_gives_the_same_observations():
    env_id, kwargs = CASES["phone"]
    a = crab_gym.make_vec(env_id, 3, workers=2, shared_memory=False, **kwargs)
    b = crab_gym.make_vec(env_id, 3, workers=2, copy=False, **kwargs)
    try:
        assert same(a.reset(seed=0)[0], b.reset(seed=0)[0])
        for act in actions(a.action_space, 3, 4):
            assert same(a.step(act)[:4], b.step(act)[:4])
        assert b.step(act)[0] is b.observations  # copy=False: the shared buffer itself
    finally:
        a.close()
        b.close()


@pytest.fixture(scope="module")
def phones():
    vec = crab_gym.make_vec("Crab-Android-v0", 4, workers=2, render_mode="rgb_array", **PHONE)
    yield vec
    vec.close()


def test_call_get_attr_set_attr_and_render_cover_every_env(phones):
    phones.reset(seed=0)
    assert phones.get_attr("max_steps") == (4, 4, 4, 4)
    phones.set_attr("max_steps", [10, 11, 12, 13])
    assert phones.get_attr("max_steps") == (10, 11, 12, 13)
    phones.set_attr("max_steps", 4)
    assert phones.call("device_ids")[0] != phones.call("device_ids")[3]
    frames = phones.render()
    assert len(frames) == 4 and all(f.ndim == 3 and f.shape[2] == 3 for f in frames)
    assert len(phones.np_random_seed) == 4
    with pytest.raises(ValueError, match="values for 4 envs"):
        phones.set_attr("max_steps", [1, 2])
    with pytest.raises(
        WorkerError, match="worker 0 .* raised during call\\('no_such_method'\\).*AttributeError"
    ):
        phones.call("no_such_method")
    assert phones.get_attr("max_steps") == (4, 4, 4, 4), "a call that raised leaves the workers usable"


def fresh_first_obs(vec) -> np.ndarray:
    """The first frame of a fresh phone env (the phone resets to the same frame whatever the seed)."""
    env = gym.make("Crab-Android-v0", **PHONE)
    try:
        return env.reset(seed=0)[0]["android"]["screen"]
    finally:
        env.close()


def taps(vec) -> tuple:
    """A tap on every phone (the phone's first action): no episode ends by it, and nothing sleeps."""
    action = vec.action_space.sample()
    action[0][:], action[1][:] = 0, 0
    return action


def kill(vec, worker: int, sig: int = signal.SIGKILL) -> int:
    pid = vec.processes[worker].pid
    os.kill(pid, sig)
    if sig == signal.SIGKILL:
        vec.processes[worker].join(10)
    return pid


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_a_killed_worker_is_replaced_and_its_envs_come_back_at_their_next_reset(mode):
    vec = crab_gym.make_vec("Crab-Android-v0", 4, workers=2, autoreset_mode=mode, **PHONE)
    try:
        first = fresh_first_obs(vec)
        vec.reset(seed=0)
        sandboxes = vec.call("device_ids")
        tap = taps(vec)
        pid = kill(vec, 0)
        obs, reward, term, trunc, info = vec.step(tap)
        assert vec.processes[0].pid != pid and vec.processes[1].is_alive()
        ended = info["final_info"] if mode == AutoresetMode.SAME_STEP else info
        assert trunc[:2].all() and not term[:2].any() and (reward[:2] == 0).all()
        assert list(ended["termination_reason"][:2]) == ["env_error"] * 2
        assert "worker 0 failed: the worker process died" in ended["error"][0]
        assert not ended["_error"][2:].any(), "worker 1's envs stepped on"
        if mode == AutoresetMode.SAME_STEP:  # reset within the step: the next episode's first frame
            assert (obs["android"]["screen"][:2] == first).all() and not info["final_obs"][0]["android"][
                "screen"
            ].any()
        else:
            assert not obs["android"]["screen"][:2].any(), "blank frames for the step that failed"
        if mode == AutoresetMode.DISABLED:
            obs, _, _, trunc, info = vec.step(tap)  # not reset yet: the error again
            assert trunc[:2].all() and "wait for reset()" in info["error"][0]
            obs, info = vec.reset(options={"reset_mask": np.array([True, True, False, False])})
        elif mode == AutoresetMode.NEXT_STEP:
            obs, reward, term, trunc, info = vec.step(tap)  # the autoreset step
            assert not (term[:2] | trunc[:2]).any() and info["_initial_completion_ratio"][:2].all()
        assert (obs["android"]["screen"][:2] == first).all()
        after = vec.call("device_ids")
        assert after[2:] == sandboxes[2:] and after[0] != sandboxes[0], "new phones for worker 0 only"
        obs, reward, term, trunc, info = vec.step(tap)
        assert "_error" not in info or not info["_error"].any()
    finally:
        vec.close()


def test_a_hung_worker_is_given_up_after_the_step_timeout_never_a_hang():
    vec = crab_gym.make_vec("Crab-Android-v0", 2, workers=2, step_timeout=3.0, **PHONE)
    try:
        vec.reset(seed=0)
        pid = kill(vec, 1, signal.SIGSTOP)
        t = time.monotonic()
        obs, reward, term, trunc, info = vec.step(taps(vec))
        assert time.monotonic() - t < 60
        assert trunc[1] and "no answer within 3 s" in info["error"][1], info["error"]
        assert info["termination_reason"][0] != "env_error"
        assert vec.processes[1].pid != pid
        vec.step(taps(vec))  # worker 1's successor resets its env
        assert not vec.step(taps(vec))[4].get("_error", np.zeros(2)).any()
    finally:
        vec.close()


def test_a_worker_killed_during_reset_is_replaced_within_the_reset():
    vec = crab_gym.make_vec("Crab-Android-v0", 2, workers=2, **PHONE)
    try:
        vec.reset(seed=0)
        kill(vec, 0)
        obs, info = vec.reset(seed=1)
        assert obs["android"]["screen"].any(axis=(1, 2, 3)).all() and vec.processes[0].is_alive()
        kill(vec, 1)
        with pytest.raises(WorkerError, match="worker 1 .* failed during call"):
            vec.call("device_ids")
        assert len(vec.call("device_ids")) == 2
    finally:
        vec.close()


def test_close_is_idempotent_and_a_closed_vector_env_says_so():
    vec = crab_gym.make_vec("CartPole-v1", 2, workers=2)
    procs = vec.processes
    vec.close()
    vec.close()
    assert not any(p.is_alive() for p in procs)
    with pytest.raises(gym.error.ClosedEnvironmentError):
        vec.reset()


def test_a_worker_that_cannot_make_its_envs_is_a_clear_error():
    with pytest.raises(TypeError, match="unexpected keyword"):
        crab_gym.make_vec("CartPole-v1", 2, workers=2, no_such_kwarg=1)


def test_ppo_collects_its_rollouts_from_batched_workers(tmp_path):
    """SB3's PPO trains through make_vec's workers (``PPOConfig.vec = "batched"``): a short run, saved."""
    pytest.importorskip("stable_baselines3")
    from crab_gym.baselines import ppo

    config = ppo.PPOConfig(
        families=("dial_number",), tasks_per_family=2, timesteps=64, n_envs=4, n_steps=16, batch_size=32,
        n_epochs=1, train_phone_seeds=(0,), heldout_phone_seeds=(1000,), vec="batched", max_steps=4,
    )  # fmt: skip
    model, _ = ppo.train(config, out=tmp_path)
    assert model.num_timesteps >= 64 and (tmp_path / "model.zip").exists()
    assert len(model.ep_info_buffer) > 0, "episodes ended and VecMonitor saw them through the adapter"


def test_sb3_adapter_gives_dones_terminal_observations_and_per_env_infos():
    from crab_gym.baselines.sb3_vec import SB3VecEnv

    vec = SB3VecEnv(crab_gym.make_vec("CartPole-v1", 4, workers=2, autoreset_mode=AutoresetMode.SAME_STEP))
    ref = gym.vector.SyncVectorEnv(
        [lambda: gym.make("CartPole-v1")] * 4, autoreset_mode=AutoresetMode.SAME_STEP
    )
    try:
        vec.seed(3)
        obs, (want, _) = vec.reset(), ref.reset(seed=3)
        assert np.array_equal(obs, want)
        ended = 0
        for a in actions(ref.action_space, 4, 40):
            vec.step_async(a)
            obs, rewards, dones, infos = vec.step_wait()
            want, _, term, trunc, info = ref.step(a)
            assert np.array_equal(obs, want) and (dones == (term | trunc)).all() and len(infos) == 4
            for i in np.flatnonzero(dones):
                ended += 1
                assert np.array_equal(infos[i]["terminal_observation"], info["final_obs"][i])
                assert infos[i]["TimeLimit.truncated"] == bool(trunc[i] and not term[i])
        assert ended > 0 and vec.env_is_wrapped(gym.wrappers.TimeLimit) == [True] * 4
        assert vec.get_attr("spec", indices=[1])[0].id == "CartPole-v1"
    finally:
        vec.close()
        ref.close()


@pytest.mark.slow
def test_two_desktops_in_one_worker_and_a_killed_worker_rebuilds_both():
    vec = crab_gym.make_vec("Crab-Desktop-v0", 2, workers=1, max_steps=3)
    try:
        obs, _ = vec.reset(seed=0)
        before = vec.call("device_ids")
        assert before[0]["ubuntu"]["display"] != before[1]["ubuntu"]["display"]
        click = vec.action_space.sample()
        click[0][:], click[1][:] = 0, 0
        pid = kill(vec, 0)
        obs, _, _, trunc, info = vec.step(click)
        assert trunc.all() and "worker 0 failed: the worker process died" in info["error"][0]
        obs, _, term, trunc, info = vec.step(click)  # the successor's two desktops, reset
        assert not (term | trunc).any() and obs["ubuntu"]["screen"].any(axis=(1, 2, 3)).all()
        after = vec.call("device_ids")
        assert vec.processes[0].pid != pid
        assert {d["ubuntu"]["xvfb_pid"] for d in after}.isdisjoint(d["ubuntu"]["xvfb_pid"] for d in before)
    finally:
        vec.close()


def test_a_worker_batches_array_observations_straight_into_its_part_of_the_shared_buffer():
    """No copy per env per step: the worker's SyncVectorEnv concatenates into the shared buffer (at its
    offset), and a space that is not arrays only (Text) keeps the copy env by env."""
    import multiprocessing as mp  # noqa: PLC0415

    from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory  # noqa: PLC0415

    from crab_gym.vector.worker import _same_leaves, _shared_views  # noqa: PLC0415

    vec = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2, copy=False)
    shared = create_shared_memory(vec.single_observation_space, 5, ctx=mp.get_context())
    try:
        views = _shared_views(vec, shared, 3)
        assert views is not None
        obs = vec.reset(seed=1)[0]
        obs = vec.step(vec.action_space.sample())[0]
        assert _same_leaves(obs, views)
        whole = read_from_shared_memory(vec.single_observation_space, shared, 5)
        assert np.array_equal(whole[3:], obs) and not whole[:3].any()
    finally:
        vec.close()
    text = gym.spaces.Dict({"t": gym.spaces.Text(8), "b": gym.spaces.Box(0, 1, (2,))})
    assert not _same_leaves({"t": ("a",), "b": np.zeros((1, 2))}, {"t": ("a",), "b": np.zeros((1, 2))})

    class Texts(gym.Env):
        observation_space, action_space = text, gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            return self.observation_space.sample(), {}

    vec = gym.vector.SyncVectorEnv([Texts], copy=False)
    try:
        assert _shared_views(vec, create_shared_memory(text, 1, ctx=mp.get_context()), 0) is None
    finally:
        vec.close()


class CycleMaker(gym.Env):
    """Makes cyclic garbage at every step (more than a young collection's threshold) and says whether the
    cyclic collector could have run meanwhile."""

    observation_space, action_space = gym.spaces.Discrete(2), gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return 0, {"collector_on": gc.isenabled()}

    def step(self, action):
        for _ in range(3 * gc.get_threshold()[0]):
            loop: list = []
            loop.append(loop)
        return 0, 0.0, False, False, {"collector_on": gc.isenabled()}

    def collector(self) -> tuple[bool, int, int]:
        return gc.isenabled(), gc.get_count()[0], gc.get_freeze_count()


def test_workers_collect_garbage_between_steps_not_inside_them():
    """A collection inside one env's step would stall every worker of the lock-step; the worker defers it
    to after its answer (its envs' startup heap frozen out of later scans), and still frees the cycles."""
    vec = BatchedVectorEnv([CycleMaker] * 4, 2)
    try:
        assert not vec.reset(seed=0)[1]["collector_on"].any()
        for _ in range(3):
            assert not vec.step(np.zeros(4, dtype=np.int64))[4]["collector_on"].any()
        for on, young, frozen in vec.call("collector"):
            assert on and frozen > 0
            assert young < gc.get_threshold()[0]  # the 3 x threshold cycles of the last step were collected
    finally:
        vec.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="SCHED_BATCH is Linux's")
@pytest.mark.parametrize("batch", [True, False])
def test_workers_run_as_batch_so_a_woken_worker_does_not_preempt_the_sender(batch):
    """A worker woken by its command would otherwise take the main process's core before it has sent the
    other workers theirs; under SCHED_BATCH it waits for a free core. The main process keeps its policy."""
    ours = os.sched_getscheduler(0)
    vec = BatchedVectorEnv([CycleMaker] * 2, 2, batch_scheduling=batch)
    try:
        policies = {os.sched_getscheduler(p.pid) for p in vec.processes}
        assert policies == {os.SCHED_BATCH if batch else ours}
        assert os.sched_getscheduler(0) == ours
        vec.step(np.zeros(2, dtype=np.int64))  # and they step
    finally:
        vec.close()

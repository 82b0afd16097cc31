"""The libvirt desktop in vector envs (one VM per worker) and through a URI that is not this machine's
shortcut (``qemu+unix:///system``: screenshots, clones and uploads then go through libvirt streams, as for
a remote ``qemu+ssh://`` host)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401

pytestmark = [pytest.mark.vm, pytest.mark.vm_full, pytest.mark.timeout(1800)]


def _batch(vec, action: tuple, n: int) -> tuple:
    """The same (device, action, params) for ``n`` workers; parameters it does not set are sampled."""
    space = vec.unwrapped.single_action_space[2]
    full = [{**{k: s.sample() for k, s in space.spaces.items()}, **action[2]} for _ in range(n)]
    params = {}
    for k in full[0]:
        values = [f[k] for f in full]
        params[k] = tuple(values) if isinstance(values[0], str) else np.stack([np.asarray(v) for v in values])
    return np.array([action[0]] * n), np.array([action[1]] * n), params


def test_make_vec_gives_each_worker_its_own_vm(vm_domain, note_task):
    vec = gym.make_vec(
        "Crab-Desktop-v0", num_envs=2, vectorization_mode="async", tasks=[note_task],
        backends={"ubuntu": "libvirt"}, max_steps=5,
    )  # fmt: skip
    try:
        obs, info = vec.reset(seed=0)
        assert obs["ubuntu"]["screen"].shape == (2, 800, 1280, 3)
        ids = vec.call("device_ids")
        domains = {i["ubuntu"]["domain"] for i in ids}
        assert len(domains) == 2, ids
        wait = vec.call("wait_action")[0]
        obs, reward, terminated, truncated, info = vec.step(_batch(vec, wait, 2))
        assert obs["ubuntu"]["screen"].shape == (2, 800, 1280, 3)
    finally:
        vec.close()


def test_the_oracle_solves_a_task_through_libvirt_streams(vm_domain, note_task):
    """The URI picks the stream paths a remote host uses; the task is solved the same way."""
    from crab_gym.baselines import OracleAgent
    from crab_gym.rollout import rollout

    env = gym.make(
        "Crab-Desktop-v0", tasks=[note_task], backends={"ubuntu": "libvirt@qemu+unix:///system"}, max_steps=6
    )
    try:
        record = rollout(env, OracleAgent(env), task=note_task.id, seed=0)
        sub = env.unwrapped.subenvs["ubuntu"]
        assert sub.session.x.screen_file == "", "a non-local URI must not use the local screendump file"
        assert record.success, record
    finally:
        env.close()

"""Devices killed mid-episode: the step returns (bounded, never a hang), an error ends the episode as
``env_error`` with its recorded episode complete, and the next ``reset()`` recovers — in one env and inside
``make_vec`` workers. Which faults are errors and why: see ``fault_injection.py``.

Each fault runs 3 times in the CI slice (2 in vector envs), alternately struck between two steps and from a
timer thread while a step is running. The variants marked ``faults_full`` run 100 of each:
``.venv/bin/pytest -m faults_full tests/reliability/test_faults.py``.
"""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from fault_injection import DESKTOP_FAULTS, ERRORS, PHONE_FAULTS, FaultHook, device_of, prepare

import crab_gym  # noqa: F401
from crab_gym.env import CrabEnv
from crab_gym.envs.android.sim import Phone, PhoneServer
from crab_gym.envs.base import DeviceGone
from crab_gym.episode.format import load_episode, load_episodes
from crab_gym.wrappers import RecordEpisodes

FULL_REPS = 100
STEP_BOUND = 120.0  # s: longer is a hang (a step's own waits are bounded far below: settle 3 s, adb 30 s)
RESET_BOUND = 240.0  # s: a reset may build a whole desktop session again on a busy machine
MAX_STEPS = 6
PHONE_TASK = "contacts_add-0"

pytestmark = [pytest.mark.faults, pytest.mark.timeout(600 + 120 * 3)]


def _reps(ci: int) -> pytest.MarkDecorator:
    """How many times each fault strikes: ``ci`` in the CI slice, 100 in the ``faults_full`` variant."""
    full = [pytest.mark.faults_full, pytest.mark.timeout(600 + 120 * FULL_REPS)]
    return pytest.mark.parametrize(
        "reps", [pytest.param(ci, id=f"{ci}x"), pytest.param(FULL_REPS, id=f"{FULL_REPS}x", marks=full)]
    )


class Hang(Exception):
    pass


@contextlib.contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """Fail the test if the block does not finish within ``seconds``: a watchdog thread interrupts the main
    thread (where the env lives) with a signal whose handler raises."""
    fired = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        if fired.is_set():
            raise Hang

    def fire() -> None:
        fired.set()
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)

    old = signal.signal(signal.SIGUSR1, on_signal)
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    except Hang:
        pytest.fail(f"{what} did not return within {seconds:.0f} s: a hang")
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, old)


def act(crab: CrabEnv, device: str) -> tuple:
    """A harmless action on ``device``: a click in the middle of the desktop, a tap on the phone."""
    name = "click" if device == "ubuntu" else "tap"
    return crab.encode_action(device, name, {"point": np.array([0.5, 0.45], np.float32)})


@pytest.fixture
def phone_env(adb_port, monkeypatch) -> Callable[..., RecordEpisodes]:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_port))
    return lambda runs, backend="adb-sim": RecordEpisodes(
        CrabEnv(devices=["android"], tasks=[PHONE_TASK], backends={"android": backend}, max_steps=MAX_STEPS),
        runs,
    )


def _strike_during_step(env: RecordEpisodes, strike: Callable[[], None], action: tuple) -> list[dict]:
    """Strike from a timer thread 0-50 ms into a step; step on until the episode ends."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            strike()
        except BaseException as e:  # noqa: BLE001 - reported on the main thread
            failures.append(e)

    timer = threading.Timer(random.uniform(0.0, 0.05), run)
    timer.start()
    infos = _step_to_end(env, action)
    timer.join(30)
    assert not failures, f"the strike failed: {failures[0]!r}"
    return infos


def _step_to_end(env: RecordEpisodes, action: tuple) -> list[dict]:
    infos = []
    while True:
        with within(STEP_BOUND, "step()"):
            _, _, terminated, truncated, info = env.step(action)
        infos.append(info)
        if terminated or truncated:
            return infos


def _check_episode(env: RecordEpisodes, fault: str, infos: list[dict]) -> None:
    """The recorded episode is complete and says how it ended; every stored frame loads."""
    assert env.last_episode is not None
    ep = load_episode(env.last_episode)
    reason = infos[-1]["termination_reason"]
    assert ep.complete and ep.meta["termination_reason"] == reason == ep.meta["record"]["termination_reason"]
    assert len(ep.steps) == infos[-1]["steps"] + 1  # the reset line, then one line per step
    if reason == "env_error":
        assert ep.steps[-1]["error"] == infos[-1]["error"]
    for t, step in enumerate(ep.steps):
        for device in step["screens"]:
            assert ep.screen(t, device).ndim == 3


def _run_fault(env: RecordEpisodes, fault: str, reps: int) -> None:
    crab = env.unwrapped
    device = device_of(fault)
    action = act(crab, device)
    for rep in range(reps):
        with within(RESET_BOUND, f"reset() after {fault} (rep {rep})"):
            env.reset(seed=rep)
        with within(STEP_BOUND, "a step before the fault"):
            _, _, _, _, info = env.step(action)
        assert "error" not in info, f"rep {rep}: the device did not recover from {fault}: {info['error']}"
        strike, what = prepare(crab, fault)
        if rep % 2 == 0:
            strike()
            infos = _step_to_end(env, action)
        else:
            infos = _strike_during_step(env, strike, action)
        reasons = [i["termination_reason"] for i in infos]
        if fault in ERRORS:
            assert reasons[-1] == "env_error", f"rep {rep}: {what}, then {reasons}"
            assert "error" in infos[-1] and infos[-1]["steps"] <= MAX_STEPS
        else:
            errors = [i["error"] for i in infos if "error" in i]
            assert not errors and reasons[-1] == "step_limit", f"rep {rep}: {what}: {errors or reasons}"
        _check_episode(env, fault, infos)
    with within(RESET_BOUND, f"the last reset() after {fault}"):
        env.reset(seed=reps)
    with within(STEP_BOUND, "a step after recovery"):
        _, _, _, _, info = env.step(action)
    assert "error" not in info, info.get("error")
    if fault == "session_agent":  # it came back for the reads that need it
        assert crab.subenvs["ubuntu"].ui_elements() is not None


@_reps(3)
@pytest.mark.parametrize("fault", DESKTOP_FAULTS)
def test_desktop_fault_mid_episode(note_task, tmp_path, fault, reps):
    env = RecordEpisodes(CrabEnv(devices=["ubuntu"], tasks=[note_task], max_steps=MAX_STEPS), tmp_path)
    try:
        _run_fault(env, fault, reps)
    finally:
        env.close()


@_reps(3)
@pytest.mark.parametrize("fault", PHONE_FAULTS)
def test_phone_fault_mid_episode(phone_env, tmp_path, fault, reps):
    env = phone_env(tmp_path)
    try:
        _run_fault(env, fault, reps)
    finally:
        env.close()


@pytest.mark.parametrize("fault", PHONE_FAULTS)
def test_the_phone_sub_env_recovers_at_its_own_reset(adb_port, monkeypatch, fault):
    """Without CrabEnv's rebuild: AndroidEnv("adb-sim").reset() serves its phone again / restarts adb."""
    from crab_gym.envs.android import AndroidEnv

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_port))
    phone = AndroidEnv("adb-sim")
    try:
        phone.reset(seed=0)
        before = phone.screenshot()
        crab = type("Crab", (), {"subenvs": {"android": phone},
                                 "device_ids": lambda self: {"android": phone.identity()}})()  # fmt: skip
        prepare(crab, fault)[0]()
        with within(RESET_BOUND, f"AndroidEnv.reset() after {fault}"):
            phone.reset(seed=0)
        assert np.array_equal(phone.screenshot(), before)
        assert phone.state().ui_tree()
    finally:
        phone.close()


def test_a_phone_we_do_not_own_is_waited_for_then_reconnected(phone_env, tmp_path, monkeypatch):
    """``adb:<serial>``: after its adb link or the adb server died, reset brings it back."""
    monkeypatch.setenv("CRAB_GYM_ADB_WAIT", "30")
    phone = Phone(width=1080, height=2400)
    server = PhoneServer(phone, port=0).start()
    port = server.port
    env = phone_env(tmp_path, backend=f"adb:{server.serial}")
    crab = env.unwrapped
    try:
        for fault in ("unplugged", "adb_server"):
            env.reset(seed=0)
            if fault == "unplugged":  # the phone drops off and is back 1 s later, on its address
                server.stop()
                server = PhoneServer(phone, port=port)
                threading.Timer(1.0, server.start).start()
            else:
                prepare(crab, "adb_server")[0]()
            infos = _step_to_end(env, act(crab, "android"))
            assert infos[-1]["termination_reason"] == "env_error"
            _check_episode(env, fault, infos)
            with within(RESET_BOUND, f"reset() after {fault}"):
                env.reset(seed=0)
            _, _, _, _, info = env.step(act(crab, "android"))
            assert "error" not in info and crab.device_ids()["android"]["serial"] == f"127.0.0.1:{port}"
    finally:
        env.close()
        server.stop()
        phone.close()


def test_a_phone_that_does_not_come_back_is_reported_gone(phone_env, tmp_path, monkeypatch):
    monkeypatch.setenv("CRAB_GYM_ADB_WAIT", "2")
    phone = Phone(width=1080, height=2400)
    server = PhoneServer(phone, port=0).start()
    port = server.port
    env = phone_env(tmp_path, backend=f"adb:{server.serial}")
    try:
        env.reset(seed=0)
        server.stop()
        t0 = time.monotonic()
        with within(RESET_BOUND, "reset() of a phone that is gone"), pytest.raises(DeviceGone) as gone:
            env.reset(seed=0)
        assert f"adb device 127.0.0.1:{port} is gone" in str(gone.value) and "within 2 s" in str(gone.value)
        assert time.monotonic() - t0 < RESET_BOUND
        server = PhoneServer(phone, port=port).start()  # plugged in again: the next reset finds it
        env.reset(seed=0)
        _, _, _, _, info = env.step(act(env.unwrapped, "android"))
        assert "error" not in info
    finally:
        env.close()
        server.stop()
        phone.close()


# ---- inside vector env workers --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vec_runs(tmp_path_factory):
    return tmp_path_factory.mktemp("vec-runs")


@pytest.fixture(scope="module")
def fault_vec(adb_port, note_task, vec_runs):
    """Crab-v0 in 2 async workers (a desktop and an adb-sim phone each), recorded, with a FaultHook."""
    mp = pytest.MonkeyPatch()
    mp.setenv("ANDROID_ADB_SERVER_PORT", str(adb_port))
    vec = gym.make_vec(
        "Crab-v0", num_envs=2, vectorization_mode="async", tasks=[note_task, PHONE_TASK],
        backends={"android": "adb-sim"}, max_steps=MAX_STEPS,
        wrappers=[lambda env: RecordEpisodes(env, vec_runs), FaultHook],
    )  # fmt: skip
    try:
        yield vec
    finally:
        vec.close()
        mp.undo()


def _vec_action(vec: gym.vector.VectorEnv, device: int, n: int = 2) -> tuple:
    """Action 0 of ``device`` in every worker: a click in the middle of the desktop, a tap on the phone."""
    one = vec.unwrapped.single_action_space[2].sample()
    params = {k: (v,) * n if isinstance(v, str) else np.stack([np.asarray(v)] * n) for k, v in one.items()}
    params["point"] = np.full((n, 2), [0.5, 0.45], np.float32)
    return np.full(n, device), np.zeros(n, np.int64), params


def _env_error_records(runs) -> list:
    return [e for e in load_episodes(runs) if e.meta.get("termination_reason") == "env_error"]


@_reps(2)
@pytest.mark.parametrize("fault", [*DESKTOP_FAULTS, "served_phone"])
def test_a_fault_in_one_vector_worker(fault_vec, vec_runs, fault, reps):
    vec = fault_vec
    device = ("ubuntu", "android", "root").index(device_of(fault))
    action = _vec_action(vec, device)
    for rep in range(reps):
        with within(RESET_BOUND, "vec.reset()"):
            vec.reset(seed=rep)
        before = len(_env_error_records(vec_runs))
        ids = vec.call("device_ids")
        with within(STEP_BOUND, "vec.step() before the fault"):
            _, _, _, _, info = vec.step(action)
        assert "error" not in info, info.get("error")
        done = vec.call("inject_fault", fault, ids[0])
        assert done[0] and done[1] is None, done
        ended = None
        for _ in range(MAX_STEPS):
            with within(STEP_BOUND, f"vec.step() after {done[0]}"):
                _, _, terminated, truncated, info = vec.step(action)
            if "_error" in info:
                assert not info["_error"][1], f"worker 1 was hit too: {info['error'][1]}"
            if terminated[0] or truncated[0]:
                ended = info["termination_reason"][0]
                break
        assert ended == ("env_error" if fault in ERRORS else "step_limit"), (rep, done[0], ended)
        with within(RESET_BOUND, "vec.step() that resets worker 0"):
            _, _, _, _, info = vec.step(action)  # next-step autoreset: worker 0 recovers here
        with within(STEP_BOUND, "vec.step() after recovery"):
            _, _, _, _, info = vec.step(action)
        assert "_error" not in info or not info["_error"].any(), info.get("error")
        after = vec.call("device_ids")
        assert after[1] == ids[1], "worker 1's devices were not touched"
        errors = _env_error_records(vec_runs)
        assert len(errors) == before + (fault in ERRORS)
        for ep in errors:
            assert ep.complete and ep.meta["record"]["termination_reason"] == "env_error"


@_reps(2)
def test_the_shared_adb_server_killed_under_vector_workers(fault_vec, vec_runs, reps):
    """Every worker's phone goes through the one adb server of this machine: killed, each worker whose
    next phone step fails ends its episode as ``env_error``, and every worker recovers at its next reset."""
    vec = fault_vec
    action = _vec_action(vec, ("ubuntu", "android", "root").index("android"))
    for rep in range(reps):
        with within(RESET_BOUND, "vec.reset()"):
            vec.reset(seed=rep)
        before = len(_env_error_records(vec_runs))
        with within(STEP_BOUND, "vec.step() before the fault"):
            _, _, _, _, info = vec.step(action)
        assert "error" not in info, info.get("error")
        done = vec.call("inject_fault", "adb_server", vec.call("device_ids")[0])
        assert done[0] and done[1] is None, done
        ended = [None, None]
        for _ in range(MAX_STEPS):
            with within(STEP_BOUND, f"vec.step() after {done[0]}"):
                _, _, terminated, truncated, info = vec.step(action)
            for i in (0, 1):
                if ended[i] is None and (terminated[i] or truncated[i]):
                    ended[i] = info["termination_reason"][i]
            if all(ended):
                break
        assert ended[0] == "env_error", (rep, ended)
        assert ended[1] in ("env_error", "step_limit"), (rep, ended)
        with within(RESET_BOUND, "vec.step() that resets the workers"):
            vec.step(action)  # next-step autoreset: each worker recovers here
        with within(STEP_BOUND, "vec.step() after recovery"):
            _, _, _, _, info = vec.step(action)
        assert "_error" not in info or not info["_error"].any(), info.get("error")
        errors = _env_error_records(vec_runs)
        assert len(errors) == before + ended.count("env_error")
        for ep in errors:
            assert ep.complete and ep.meta["record"]["termination_reason"] == "env_error"

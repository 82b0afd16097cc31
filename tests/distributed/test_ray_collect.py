"""collect and eval on Ray actors (a local Ray with 2 CPUs): the same records as on one machine, episodes
sent to the driver when a node does not share the run folder, an actor killed mid-run replaced, and the
desktop's X slots kept apart between actors of one node."""

from __future__ import annotations

import json
import os
import signal

import pytest

from crab_gym.episode import load_episode, load_episodes
from crab_gym.runs.collect import collect, plan_jobs
from crab_gym.runs.distributed import RayOptions
from crab_gym.runs.eval import run_eval
from crab_gym.runs.replay import replay_episode

TASKS = ["contacts_add-0", "sms_send-0"]


def outcomes(run) -> list[tuple]:
    recs = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    return sorted((r["task_id"], r["success"], r["completion_ratio"], r["actions"], r["termination_reason"])
                  for r in recs)  # fmt: skip


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The same collection on one machine: 2 async workers."""
    out = tmp_path_factory.mktemp("local")
    collect(out, agent="oracle", tasks=TASKS, episodes_per_task=2, num_envs=2, progress=False)
    return out


@pytest.mark.ray
def test_collect_on_ray_gives_the_same_records_as_on_one_machine(local_ray, local_run, tmp_path):
    events: list[dict] = []
    summary = collect(tmp_path, agent="oracle", tasks=TASKS, episodes_per_task=2, num_envs=1, progress=False,
                      ray=RayOptions(actors=2), on_episode=events.append)  # fmt: skip
    assert summary["ran"] == 4 and summary["metrics"]["SR"] == 1.0 and summary["steps"] > 0
    assert outcomes(tmp_path) == outcomes(local_run)
    ids = sorted(j.episode_id for j in plan_jobs(TASKS, 2))
    assert sorted(e.id for e in load_episodes(tmp_path, complete_only=True)) == ids
    assert sorted(e["episode_id"] for e in events) == ids
    # The actors pull jobs from one board, so an actor that starts late may find them all taken: the
    # episodes ran in actor processes (not here), one or both.
    pids = {e["pid"] for e in events}
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids
    assert not any(e["shipped"] for e in events)  # one machine: the actors wrote the run folder themselves
    assert json.loads((tmp_path / "collect.json").read_text())["ray"]["actors"] == 2
    ep = load_episode(tmp_path / ids[0])
    assert replay_episode(ep, screens=True).matches
    again = collect(tmp_path, agent="oracle", tasks=TASKS, episodes_per_task=2, num_envs=1, progress=False,
                    ray=RayOptions(actors=2))  # fmt: skip
    assert again["skipped"] == 4 and again["ran"] == 0


@pytest.mark.ray
def test_episodes_sent_to_the_driver_are_the_same_episodes(local_ray, local_run, tmp_path):
    """ship=True: what a node that does not see the run folder does (records in its own staging folder,
    sends each finished episode); one actor with 2 workers."""
    events: list[dict] = []
    collect(tmp_path, agent="oracle", tasks=TASKS, episodes_per_task=2, num_envs=2, progress=False,
            ray=RayOptions(actors=1, ship=True), on_episode=events.append)  # fmt: skip
    assert len(events) == 4 and all(e["shipped"] for e in events)
    assert outcomes(tmp_path) == outcomes(local_run)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial") or p.name.startswith(".")]
    for ep in load_episodes(tmp_path, complete_only=True):
        twin = load_episode(local_run / ep.id)
        assert len(ep.steps) == len(twin.steps)
        assert [s.get("readable") for s in ep.steps] == [s.get("readable") for s in twin.steps]
    assert replay_episode(load_episode(tmp_path / "sms_send-0-e1"), screens=True).matches


@pytest.mark.ray
def test_an_actor_killed_mid_run_is_replaced_and_its_jobs_run_again(local_ray, tmp_path):
    killed: list[int] = []

    def kill_first(event: dict) -> None:
        if not killed:
            killed.append(event["pid"])
            os.kill(event["pid"], signal.SIGKILL)

    summary = collect(tmp_path, agent="oracle", tasks=TASKS, episodes_per_task=4, num_envs=1, progress=False,
                      ray=RayOptions(actors=2), on_episode=kill_first)  # fmt: skip
    assert killed
    records = summary["metrics"]
    assert records["n"] == 8 and records["SR"] == 1.0, records
    assert sorted(e.id for e in load_episodes(tmp_path, complete_only=True)) == sorted(
        j.episode_id for j in plan_jobs(TASKS, 4)
    )
    assert (tmp_path / "failed.jsonl").read_text() == ""


@pytest.mark.ray
def test_eval_on_ray(local_ray, tmp_path):
    from crab_gym.cli import main

    phone = [*TASKS, "clock_set_alarm-0"]
    metrics = run_eval(tmp_path / "api", "Crab-Android-v0", ("android",), "oracle", phone, jobs=1,
                       progress=False, ray=RayOptions(actors=2))  # fmt: skip
    assert metrics["SR"] == 1.0 and metrics["platforms"]["android"]["n"] == 3
    assert (tmp_path / "api" / "report.html").exists() and (tmp_path / "api" / "view.html").exists()
    out = tmp_path / "cli"
    code = main(["eval", "--devices", "android", "--tasks", "v0", "--limit", "2", "--quiet",
                 "--out", str(out), "--ray", "--ray-actors", "2"])  # fmt: skip
    assert code == 0
    assert json.loads((out / "metrics.json").read_text())["n"] == 2
    assert json.loads((out / "collect.json").read_text())["ray"] == {"address": "local", "actors": 2}


@pytest.mark.ray
def test_desktop_slots_of_actors_on_one_node_never_collide(local_ray):
    """Actors are separate processes: each takes the desktop's X slot (a machine-wide file lock) and a
    device slot; held at once, no two are equal, and the X sessions they start have their own display,
    user and home."""
    ray = local_ray
    xvfb = pytest.importorskip("crab_gym.envs.desktop.backends.xvfb")
    import shutil

    if any(shutil.which(p) is None for p in xvfb.REQUIRED_PROGRAMS):
        pytest.skip(f"the desktop needs {xvfb.REQUIRED_PROGRAMS}")

    @ray.remote(num_cpus=1)
    class Holder:
        def start(self) -> dict:
            from crab_gym.envs.desktop.backends.xvfb import XvfbSession
            from crab_gym.runs.distributed import DeviceSlot

            self.slot = DeviceSlot()
            self.session = XvfbSession(size=(320, 240))
            self.session.start()
            s = self.session
            return {"pid": os.getpid(), "device_slot": self.slot.index, "x_slot": s.slot.index,
                    "display": s.display_name, "user": s.user.name, "home": str(s.home)}  # fmt: skip

        def stop(self) -> None:
            self.session.close()
            self.slot.release()

    holders = [Holder.remote() for _ in range(2)]
    try:
        got = ray.get([h.start.remote() for h in holders])
    finally:
        ray.get([h.stop.remote() for h in holders])
        for h in holders:
            ray.kill(h)
    a, b = got
    assert a["pid"] != b["pid"]
    for key in ("device_slot", "x_slot", "display", "home"):
        assert a[key] != b[key], key
    if os.geteuid() == 0:  # as root every X slot has a user of its own
        assert a["user"] != b["user"]


def test_the_board_knows_which_jobs_an_actor_holds():
    """What the driver reads when an actor dies: the jobs it pulled and never reported."""
    from crab_gym.runs.distributed.actors import JobBoard

    jobs = plan_jobs(TASKS, 2)
    board = JobBoard(jobs)
    a, b = board.pull("a"), board.pull("b")
    assert (a, b) == (jobs[0], jobs[1]) and board.remaining() == 2
    board.report("a", {"episode_id": a.episode_id, "success": True})
    assert board.take_events() == [({"episode_id": a.episode_id, "success": True}, None)]
    assert board.take_events() == []
    assert board.release("a") == [] and board.release("b") == [b]
    board.put_back([b])
    assert board.pull("c") == b and board.remaining() == 2

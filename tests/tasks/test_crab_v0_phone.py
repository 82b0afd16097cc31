"""CRAB v0's phone sub-tasks that need no web: files we write in CRAB's exact shape (its real UUIDs, our own
values), CRAB's ``output`` field read as setup data and passed along its edges, the oracle solving them on the
phone, and wrong final states failing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.core.tasks import Step, Task
from crab_gym.envs.android import AndroidEnv
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.tasks.templates.android.layout import FAB, ROWS, SAVE, field, launch, step, tap

KEEP = "eb92a1e6-4c86-4d56-baac-95fc8397732e"
ALL_DAY = "a3d11574-2acf-4b26-a569-a5dbc9d548ac"
FIND_EVENT = "2394b768-2ca7-45e9-b41e-2aa4e9573192"
ADD_MAIL = "a3d11574-2acf-4b26-a569-a5dbc9d548ag"
FIND_MAIL = "a3d11574-2acf-4b26-a569-a5dbc9d548ap"
FILE_DATE = "a3d11574-2acf-4b26-a569-a5dbc9d548ak"
BLUETOOTH = "a3d11574-2acf-4b26-a569-a5dbc9d548an"
WORLD_CLOCK = "a3d11574-2acf-4b26-a569-a5dbc9d548ah"
GMAIL = "0090f116-e02b-4562-a20d-b5df38be963a"
TASKS_ADD = "a3d11574-2acf-4b26-a569-a5dbc9d548af"


def crab_file(n: int, description: str, *subs: tuple[str, dict[str, Any], Any], adjlist: str) -> dict:
    return {
        "description": description,
        "tasks": [{"task": u, "attribute": a, "output": out} for u, a, out in subs],
        "adjlist": adjlist,
        "id": f"5c0e7d1a-0000-4000-8000-{n:012d}",
    }


FILES = [
    crab_file(
        1,
        'In Android, use "Contacts" to find the mail of Ines Duarte, then use "Gmail" to send her "Hi Ines".',
        (FIND_MAIL, {"name": "Ines Duarte"}, "ines.d@example.net"),
        (GMAIL, {"content": "Hi Ines", "mail": "ines.d@example.net"}, None),
        adjlist="0 1\n1",
    ),
    crab_file(
        2,
        'In Android, use "Files" to find the creation date of /Movies/talks.txt, then add an all-day event '
        '"Public talk" in "Calendar" on that date.',
        (FILE_DATE, {"file_path": "/Movies/talks.txt"}, "4 June 2024"),
        (ALL_DAY, {"content": "Public talk", "date": "4 June 2024"}, None),
        adjlist="0 1\n1",
    ),
    crab_file(
        3,
        'In Android, find the title of the event on 16 July 2024 in "Calendar" and record it in a new note '
        'without title in "Keep Notes".',
        (FIND_EVENT, {"date": "16 July 2024"}, "Harbour trip"),
        (KEEP, {"content": "Harbour trip"}, None),
        adjlist="0 1\n1",
    ),
    crab_file(
        4,
        'In Android, add Nadia Okafor with the mail nadia@example.org in "Contacts", then name the phone '
        '"Nadia" for Bluetooth.',
        (ADD_MAIL, {"mail": "nadia@example.org", "name": "Nadia Okafor"}, None),
        (BLUETOOTH, {"content": "Nadia"}, None),
        adjlist="0 1\n1",
    ),
    crab_file(
        5,
        'In Android, add Kolkata to the world clock of "Clock" and add the time gap as a task in "Tasks".',
        (WORLD_CLOCK, {"place_name": "Kolkata"}, "2 hours behind"),  # CRAB's phone's gap, not ours
        (TASKS_ADD, {"content": "2 hours behind"}, None),
        adjlist="0 1\n1",
    ),
    crab_file(
        6,
        'In Android, use "Calendar" to find the title of the event on 9 August 2024.',
        (FIND_EVENT, {"date": "9 August 2024"}, None),
        adjlist="0",
    ),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("crab") / "dataset"
    (root / "android").mkdir(parents=True)
    for t in FILES:
        (root / "android" / f"{t['id']}.json").write_text(json.dumps(t, indent=4))
    return root


@pytest.fixture(scope="module")
def tasks(folder: Path) -> dict[str, Task]:
    return {t.id: t for t in load_tasks(str(folder))}


def test_outputs_are_setup_data_and_go_back_where_crab_keeps_them(tasks: dict[str, Task]) -> None:
    find = tasks[FILES[0]["id"]].subtasks[0]
    assert find.attributes == {"name": "Ines Duarte", "output": "ines.d@example.net"}
    assert "ines.d@example.net" not in find.instruction  # the agent finds it on the phone
    assert find.to_json() == FILES[0]["tasks"][0]  # CRAB's shape: the fact in `output`, not an attribute
    assert tasks[FILES[1]["id"]].subtasks[0].output() == "4 June 2024"
    assert tasks[FILES[5]["id"]].subtasks[0].attributes["output"] == "Appointment"  # CRAB's output is null


def test_a_gap_our_phone_cannot_have_reaches_the_successor_as_ours(tasks: dict[str, Task]) -> None:
    clock, todo = tasks[FILES[4]["id"]].subtasks
    assert clock.output() == "5 hours 30 minutes ahead"  # our phone is on UTC; Kolkata is UTC+5:30
    assert todo.attributes == {"content": "5 hours 30 minutes ahead"}


def test_oracle_solves_the_files(tasks: dict[str, Task]) -> None:
    env = gym.make("Crab-Android-v0", tasks=list(tasks.values()), max_steps=30)
    try:
        agent = OracleAgent(env)
        for t in FILES:
            record = rollout(env, agent, task=t["id"], seed=3)
            assert record.success, (t["id"], record.termination_reason)
    finally:
        env.close()


# ---- a wrong final state fails ---------------------------------------------------------------------------

WRONG: dict[int, tuple[int, list[Step]]] = {  # file -> (the sub-task left wrong, the steps)
    # the mail is found but the card shown is another contact's
    1: (0, [*launch("contacts"), tap((0.5, 0.2))]),
    # the event is added on the file's date but not all day
    2: (1, [*launch("calendar"), tap(FAB), step("write_text", text="Public talk"), field(1),
            step("write_text", text="2024-06-04"), tap(SAVE)]),
    # the note gets the title instead of the text
    3: (1, [*launch("keep"), tap(FAB), step("write_text", text="Harbour trip"), tap(SAVE)]),
    # the contact is saved with its mail as a phone number
    4: (0, [*launch("contacts"), tap(FAB), step("write_text", text="Nadia Okafor"), field(2),
            step("write_text", text="nadia@example.org"), tap(SAVE)]),
    # the world clock's tab is opened but no city added
    5: (0, [*launch("clock"), tap((0.5, 0.1471))]),
    # a seeded event opened, not the one on that date
    6: (0, [*launch("calendar"), tap((0.5, ROWS[0]))]),
}  # fmt: skip


@pytest.mark.parametrize("n", sorted(WRONG))
def test_a_wrong_final_state_fails(tasks: dict[str, Task], n: int) -> None:
    task = tasks[FILES[n - 1]["id"]]
    wrong, steps = WRONG[n]
    env = AndroidEnv("sim")
    try:
        env.reset(seed=0)
        task.setup({"android": env})
        for s in steps:
            env.execute(env.action(s.action), dict(s.params))
            env.settle()
        env.invalidate_state()
        graph = task.subtasks[wrong].graph()
        results = [graph.nodes[i]["check"].evaluate({"android": env.state()}) for i in graph.nodes]
        assert not all(results), results
        if n == 2:  # the event is there, on that date: only its all-day check fails
            assert results == [True, False]
    finally:
        env.close()

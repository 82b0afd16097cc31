"""CRAB v0's task files (crab-benchmark-v0/dataset) load and run: files we write in CRAB's exact shape, with
its real sub-task UUIDs, laid out as CRAB ships them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.rollout import rollout
from crab_gym.tasks import TaskFileError, load_tasks
from crab_gym.tasks.crab_v0 import CRAB_V0, crab_template, import_report

SMS = "caa29623-1811-402d-963a-19f7eecc63d8"
CALL = "955d8773-dd7a-4072-b87c-7e546be7de4e"
TASKS_ADD = "a3d11574-2acf-4b26-a569-a5dbc9d548af"
GMAIL = "0090f116-e02b-4562-a20d-b5df38be963a"
VIM = "0f589bf9-9b26-4581-8b78-2961b115ab49"
FIREFOX_IMAGE = "017102b6-d2c3-466b-96f7-37c8bcddc41a"
MAPS_POSTCODE = "51b2463c-9904-4a32-81ba-507bfb89d61f"
VSCODE = "8491e674-596b-452b-9e0e-58a44d90f947"


def crab_file(tid: str, description: str, *subs: tuple[str, dict[str, Any]], adjlist: str) -> dict[str, Any]:
    return {
        "description": description,
        "tasks": [{"task": u, "attribute": a, "output": None} for u, a in subs],
        "adjlist": adjlist,
        "id": tid,
    }


PHONE = [
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000001",
        'In Android, use "Messages" to send "See you at noon" to "+1 555 0134".',
        (SMS, {"content": "See you at noon", "number": "+1 555 0134"}),
        adjlist="0",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000002",
        'In Android, add the task "Water the plants" in Tasks, then call "5550199".',
        (TASKS_ADD, {"content": "Water the plants"}),
        (CALL, {"number": "5550199"}),
        adjlist="0 1\n1",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000003",
        'In Android, using "Gmail", send lin@example.com a message "Hello, nice to meet you!".',
        (GMAIL, {"mail": "lin@example.com", "content": "Hello, nice to meet you!"}),
        adjlist="0",
    ),
]
DESKTOP = crab_file(
    "7a1f0c2e-0000-4000-8000-000000000004",
    "Open /home/crab/assets/poem.txt with vim in a terminal, write a line, save and quit.",
    (VIM, {"file_path": "/home/crab/assets/poem.txt", "content": "You also miss the stars."}),
    adjlist="0",
)
CROSS = crab_file(
    "7a1f0c2e-0000-4000-8000-000000000005",
    "Write a line into ~/Desktop/note.txt with vim on Ubuntu, then text it from the phone to 5550142.",
    (VIM, {"file_path": "~/Desktop/note.txt", "content": "Dinner at eight"}),
    (SMS, {"content": "Dinner at eight", "number": "5550142"}),
    adjlist="0 1\n1",
)
WEB = crab_file(
    "7a1f0c2e-0000-4000-8000-000000000006",
    'Use Firefox to search for an image of "cat" and copy its URL.',
    (FIREFOX_IMAGE, {"keyword": "cat"}),
    adjlist="0",
)


def dataset(root: Path, files: dict[str, list[dict[str, Any]]]) -> Path:
    """A folder laid out like crab-benchmark-v0/dataset: android/, ubuntu/, cross/, a file per task."""
    for sub, tasks in files.items():
        (root / sub).mkdir(parents=True, exist_ok=True)
        for t in tasks:
            (root / sub / f"{t['id']}.json").write_text(json.dumps(t, indent=4))
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return dataset(tmp_path / "dataset", {"android": PHONE, "ubuntu": [DESKTOP], "cross": [CROSS]})


def test_table_names_all_35_uuids() -> None:
    assert len(CRAB_V0) == 35
    for uuid, sub in CRAB_V0.items():
        assert (sub.ours is None) == bool(sub.needs), uuid
        if sub.ours:
            crab_template(uuid)  # our template wraps under CRAB's UUID and attribute names


def test_dataset_folder_loads_keeping_crab_names_and_values(folder: Path) -> None:
    tasks = {t.id: t for t in load_tasks(str(folder))}
    assert len(tasks) == 5
    sms = tasks[PHONE[0]["id"]].subtasks[0]
    assert sms.attributes == {"content": "See you at noon", "number": "+1 555 0134"}
    assert (
        sms.instruction
        == "Using the Messages app, send the text message 'See you at noon' to the phone number +1 555 0134."
    )
    assert sms.to_json()["task"] == SMS
    assert tasks[PHONE[1]["id"]].edges == [(0, 1)]  # the string adjlist "0 1\n1"
    assert tasks[CROSS["id"]].platforms == ("ubuntu", "android")
    vim = tasks[DESKTOP["id"]].subtasks[0]  # CRAB's VM home is the session's HOME
    assert vim.attributes == {"file_path": "~/assets/poem.txt", "content": "You also miss the stars."}
    assert "subject 'Message'" in tasks[PHONE[2]["id"]].subtasks[0].instruction


def test_adjlist_text_comments_and_errors(tmp_path: Path) -> None:
    two = crab_file(
        "t", "d", (TASKS_ADD, {"content": "a"}), (CALL, {"number": "5550199"}), adjlist="# x\n0 1\n\n1"
    )
    path = tmp_path / "t.json"
    path.write_text(json.dumps(two))
    assert load_tasks(str(path))[0].edges == [(0, 1)]
    path.write_text(json.dumps(two | {"adjlist": "0 one"}))
    with pytest.raises(TaskFileError, match=r"t\.json: adjlist: line 1 '0 one'"):
        load_tasks(str(path))


def test_web_uuid_is_a_one_line_error_naming_file_uuid_and_need(tmp_path: Path) -> None:
    root = dataset(tmp_path / "dataset", {"ubuntu": [WEB]})
    with pytest.raises(TaskFileError) as e:
        load_tasks(str(root))
    msg = str(e.value)
    assert "\n" not in msg and f"{WEB['id']}.json" in msg and FIREFOX_IMAGE in msg
    assert "needs a web browser" in msg and "issue 24 part 2" in msg


def test_malformed_file_is_a_one_line_error_naming_file_and_field(tmp_path: Path) -> None:
    bad = crab_file("b", "d", (SMS, {"content": "hi"}), adjlist="0")  # no number
    root = dataset(tmp_path / "dataset", {"android": [bad]})
    with pytest.raises(TaskFileError, match=r"b\.json: tasks\[0\]\.attribute: .*missing \['number'\]") as e:
        load_tasks(str(root))
    assert "\n" not in str(e.value)


def test_import_report_counts_what_loads_and_what_each_file_needs(folder: Path) -> None:
    # the Maps sub-tasks run now (the phone's Maps app): that file loads; VS Code's still waits
    maps = crab_file("m", "d", (MAPS_POSTCODE, {"number": "63002", "country": "South Korea"}), adjlist="0")
    code = crab_file("v", "d", (VSCODE, {"file_path": "/home/crab/a.py"}), adjlist="0")
    dataset(folder, {"ubuntu": [WEB, code], "android": [maps]})
    tasks, lines = import_report(folder)
    assert len(tasks) == 6
    assert lines[0] == "6 of 8 CRAB task files load and run today (4 android, 1 cross-device, 1 ubuntu)"
    assert any(line.startswith("ubuntu/v.json: needs VS Code") for line in lines)
    assert any(line.startswith(f"ubuntu/{WEB['id']}.json: needs a web browser") for line in lines)


def test_cli_import_crab(folder: Path) -> None:
    dataset(folder, {"ubuntu": [WEB]})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-m", "crab_gym.cli", "tasks", "import-crab", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert out.startswith("5 of 6 CRAB task files load and run today (3 android, 1 cross-device, 1 ubuntu)")
    assert "1  a web browser and the offline web (issue 24 part 2)" in out


def test_oracle_solves_the_phone_files(folder: Path) -> None:
    env = gym.make("Crab-Android-v0", tasks=f"crab-v0:{folder}", max_steps=30)
    try:
        assert {t.id for t in env.unwrapped.tasks} == {t["id"] for t in PHONE}
        agent = OracleAgent(env)
        for t in PHONE:
            record = rollout(env, agent, task=t["id"], seed=0)
            assert record.success, (t["id"], record.termination_reason)
    finally:
        env.close()


def test_oracle_solves_the_desktop_and_cross_device_files(folder: Path) -> None:
    """The desktop file's folder, ~/assets, is made by the setup, as CRAB's VM has it."""
    env = gym.make("Crab-v0", tasks=str(folder), max_steps=40)
    try:
        agent = OracleAgent(env)
        for t in (DESKTOP, CROSS):
            record = rollout(env, agent, task=t["id"], seed=0)
            assert record.success, (t["id"], record.termination_reason)
    finally:
        env.close()

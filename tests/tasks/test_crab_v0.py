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
from crab_gym.core.tasks import TEMPLATES
from crab_gym.rollout import rollout
from crab_gym.tasks import TaskFileError, load_tasks
from crab_gym.tasks.crab_v0 import CRAB_V0, crab_template, import_report

SMS = "caa29623-1811-402d-963a-19f7eecc63d8"
CALL = "955d8773-dd7a-4072-b87c-7e546be7de4e"
TASKS_ADD = "a3d11574-2acf-4b26-a569-a5dbc9d548af"
GMAIL = "0090f116-e02b-4562-a20d-b5df38be963a"
VIM = "0f589bf9-9b26-4581-8b78-2961b115ab49"
MAPS_POSTCODE = "51b2463c-9904-4a32-81ba-507bfb89d61f"


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
NOT_CRAB = "00000000-1111-4222-8333-444444444444"  # a UUID that is none of CRAB v0's 35
UNMAPPED = crab_file(
    "7a1f0c2e-0000-4000-8000-000000000006",
    "Do something CRAB v0 never asks.",
    (NOT_CRAB, {"file_path": "/home/crab/Desktop/paste.txt"}),
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
    for uuid in CRAB_V0:
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


def test_unknown_uuid_is_a_one_line_error_naming_file_and_uuid(tmp_path: Path) -> None:
    root = dataset(tmp_path / "dataset", {"ubuntu": [UNMAPPED]})
    with pytest.raises(TaskFileError) as e:
        load_tasks(str(root))
    msg = str(e.value)
    assert "\n" not in msg and f"{UNMAPPED['id']}.json" in msg and NOT_CRAB in msg


def test_malformed_file_is_a_one_line_error_naming_file_and_field(tmp_path: Path) -> None:
    bad = crab_file("b", "d", (SMS, {"content": "hi"}), adjlist="0")  # no number
    root = dataset(tmp_path / "dataset", {"android": [bad]})
    with pytest.raises(TaskFileError, match=r"b\.json: tasks\[0\]\.attribute: .*missing \['number'\]") as e:
        load_tasks(str(root))
    assert "\n" not in str(e.value)


def test_import_report_counts_what_loads_and_what_each_file_needs(folder: Path) -> None:
    maps = crab_file("m", "d", (MAPS_POSTCODE, {"number": "63002", "country": "South Korea"}), adjlist="0")
    dataset(folder, {"ubuntu": [UNMAPPED], "android": [maps]})
    tasks, lines = import_report(folder)
    assert len(tasks) == 6
    assert lines[0] == "6 of 7 CRAB task files load and run today (4 android, 1 cross-device, 1 ubuntu)"
    assert any(line.startswith(f"ubuntu/{UNMAPPED['id']}.json: ") and NOT_CRAB in line for line in lines)


def test_cli_import_crab(folder: Path) -> None:
    dataset(folder, {"ubuntu": [UNMAPPED]})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-m", "crab_gym.cli", "tasks", "import-crab", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert out.startswith("5 of 6 CRAB task files load and run today (3 android, 1 cross-device, 1 ubuntu)")
    assert f"ubuntu/{UNMAPPED['id']}.json: " in out and NOT_CRAB in out


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


# ---- the Ubuntu sub-tasks that need no web (issue 24 part 1) -----------------------------------------

PRINT = "5b527839-0e58-426d-bab6-7160200b0d24"
SUBMIT = "1c3bedc3-ea5a-453c-a15b-223d72ab756d"
BACKGROUND = "a207ef38-b3b2-4c6c-a1e3-75c38162f5ba"
COPY_EXT = "217ababc-ccc7-4b9f-af07-c239d92848fe"
WRITER_PASTE = "76de4bdb-c980-4b3a-9bd3-c87db467dffe"
WRITER_ABOVE = "0111384f-38ca-41a2-9504-cb1c55002b3c"
IMPRESS_RIGHT = "467f17a6-c42f-4eda-996f-a53385eb3efd"
IMPRESS_DARKER = "434402f3-647a-4a9a-9d8f-10f5bb6c7cf0"
NEW_DESKTOP = (PRINT, SUBMIT, BACKGROUND, COPY_EXT, WRITER_PASTE, WRITER_ABOVE, IMPRESS_RIGHT, IMPRESS_DARKER)

UBUNTU = [
    crab_file(  # vim writes the file that the terminal then prints: the print's setup must not overwrite it
        "7a1f0c2e-0000-4000-8000-000000000011",
        "Write a line into /home/crab/poem with vim, then print the file in a terminal.",
        (VIM, {"file_path": "/home/crab/poem", "content": "Two roads diverged in a wood"}),
        (PRINT, {"file_path": "/home/crab/poem"}),
        adjlist="0 1\n1",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000012",
        'Submit "Rivers run to the sea, yet the sea is never full."',
        (SUBMIT, {"content": "Rivers run to the sea, yet the sea is never full."}),
        adjlist="0",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000013",
        "Set /home/crab/Pictures/lake.jpg as the screen background.",
        (BACKGROUND, {"photo_path": "/home/crab/Pictures/lake.jpg"}),
        adjlist="0",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000014",
        "Copy the png files of /home/crab/Pictures into a new folder /home/crab/png folder.",
        (
            COPY_EXT,
            {
                "file_extension": "png",
                "source_dir": "/home/crab/Pictures",
                "target_dir": "/home/crab/png folder",
            },
        ),
        adjlist="0",
    ),
    crab_file(  # the setup puts a text on the clipboard, as CRAB's VM had one
        "7a1f0c2e-0000-4000-8000-000000000015",
        "Paste the clipboard into LibreOffice Writer and save it as /home/crab/Documents/pasted.odt.",
        (WRITER_PASTE, {"file_path": "/home/crab/Documents/pasted.odt"}),
        adjlist="0",
    ),
]
IMPRESS = crab_file(  # the copy's target is where the slide's pictures are: its setup writes them there
    "7a1f0c2e-0000-4000-8000-000000000016",
    "Copy the jpg files of ~/Pictures to ~/jpgs, then put hill.jpg right of lake.jpg in Impress, as PDF.",
    (
        COPY_EXT,
        {"file_extension": "jpg", "source_dir": "/home/crab/Pictures", "target_dir": "/home/crab/jpgs"},
    ),
    (
        IMPRESS_RIGHT,
        {
            "image_path_1": "/home/crab/jpgs/hill.jpg",
            "image_path_2": "/home/crab/jpgs/lake.jpg",
            "output_path": "/home/crab/Documents/hill_lake.pdf",
        },
    ),
    adjlist="0 1\n1",
)
SLOW_OFFICE = [
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000017",
        "In Writer, put /home/crab/assets/fox.png above /home/crab/assets/owl.jpg and save an ODT.",
        (
            WRITER_ABOVE,
            {
                "image_path_1": "/home/crab/assets/fox.png",
                "image_path_2": "/home/crab/assets/owl.jpg",
                "output_path": "/home/crab/assets/fox_owl.odt",
            },
        ),
        adjlist="0",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-000000000018",
        "Make /home/crab/Pictures/pier.jpg darker in Impress, save it as /home/crab/Pictures/pier_dark.png.",
        (
            IMPRESS_DARKER,
            {
                "image_path_before_edit": "/home/crab/Pictures/pier.jpg",
                "image_path_after_edit": "/home/crab/Pictures/pier_dark.png",
            },
        ),
        adjlist="0",
    ),
]


def test_crab_only_templates_stay_out_of_the_generator() -> None:
    from crab_gym.tasks.generator import templates_for

    unsampled = {t.id for t in TEMPLATES.values() if "generated" not in t.sets}  # their sets say so
    assert {CRAB_V0[u].ours for u in NEW_DESKTOP} <= unsampled
    assert not {t.id for t in templates_for()} & unsampled


def _solve_each(root: Path, files: list[dict[str, Any]]) -> gym.Env:
    """The oracle solves each file; before it acts, no check passes (a task of one sub-task) or the task is
    not done. Returns the env, still open."""
    env = gym.make("Crab-v0", tasks=str(root), max_steps=80)
    agent = OracleAgent(env)
    for t in files:
        env.reset(seed=0, options={"task": t["id"]})
        graph = env.unwrapped.graph
        assert not graph.success, t["id"]
        assert len(t["tasks"]) > 1 or graph.completion_ratio == 0.0, (t["id"], graph.node_states())
        record = rollout(env, agent, task=t["id"], seed=0)
        assert record.success, (t["id"], record.termination_reason, env.unwrapped.graph.node_states())
    return env


def test_oracle_solves_the_new_ubuntu_files_and_doing_nothing_does_not(tmp_path: Path) -> None:
    _solve_each(dataset(tmp_path / "dataset", {"ubuntu": UBUNTU}), UBUNTU).close()


@pytest.mark.slow
def test_oracle_solves_the_libreoffice_picture_files(tmp_path: Path) -> None:
    files = [IMPRESS, *SLOW_OFFICE]
    env = _solve_each(dataset(tmp_path / "dataset", {"ubuntu": files}), files)
    try:  # the pictures of the first file's PDF: hill right of lake, so not left of it nor above
        from crab_gym.envs.desktop import evaluators as ev

        rollout(env, OracleAgent(env), task=IMPRESS["id"], seed=0)
        states = {"ubuntu": env.unwrapped.subenvs["ubuntu"].state()}
        args = {"path": "~/Documents/hill_lake.pdf", "first": "~/jpgs/hill.jpg", "second": "~/jpgs/lake.jpg"}
        assert ev.images_placed(**args, direction="right").evaluate(states)
        assert not ev.images_placed(**args, direction="left").evaluate(states)
        assert not ev.images_placed(**args, direction="above").evaluate(states)
    finally:
        env.close()


@pytest.mark.slow
def test_oracle_solves_every_loading_file_of_a_real_crab_checkout() -> None:
    """CRAB's files cannot ship with us (its pip sdist has no dataset): point CRAB_V0_DATASET at a checkout's
    crab-benchmark-v0/dataset folder."""
    path = os.environ.get("CRAB_V0_DATASET")
    if not path:
        pytest.skip("set CRAB_V0_DATASET to a CRAB checkout's crab-benchmark-v0/dataset to run its files")
    tasks, lines = import_report(path)
    print("\n".join(lines[:8]))
    env = gym.make("Crab-v0", tasks=f"crab-v0:{path}", max_steps=60)
    try:
        agent = OracleAgent(env)
        failed = [t.id for t in tasks if not rollout(env, agent, task=t.id, seed=0).success]
    finally:
        env.close()
    assert not failed, f"the oracle failed {len(failed)} of {len(tasks)} files: {failed}"


# ---- CRAB's output of the terminal print: the file's text, which a later sub-task uses --------------------

PRINTED = "Pick up the keys from Ines at noon"
PRINT_THEN_MAIL = crab_file(
    "7a1f0c2e-0000-4000-8000-000000000019",
    "Print ~/Desktop/keys.txt in a terminal on Ubuntu, then mail its text to ines@example.com on the phone.",
    (PRINT, {"file_path": "~/Desktop/keys.txt"}),
    (GMAIL, {"content": PRINTED, "mail": "ines@example.com"}),
    adjlist="0 1\n1",
)
PRINT_THEN_MAIL["tasks"][0]["output"] = PRINTED


def test_print_output_is_the_files_text_and_the_chain_keeps_it(tmp_path: Path) -> None:
    """CRAB's output of the print fills our hidden text: the setup writes it, the successor keeps CRAB's
    value, to_json writes it back into output. The oracle solves the file; before it acts it is not done."""
    root = dataset(tmp_path / "dataset", {"cross": [PRINT_THEN_MAIL]})
    (task,) = load_tasks(str(root))
    printed, mail = task.subtasks
    assert printed.output() == PRINTED and PRINTED not in printed.instruction
    assert mail.attributes["content"] == PRINTED
    out = task.to_json()["tasks"][0]
    assert out["output"] == PRINTED and "text" not in out["attribute"]
    env = _solve_each(root, [PRINT_THEN_MAIL])
    try:
        env.reset(seed=0, options={"task": PRINT_THEN_MAIL["id"]})
        text = env.unwrapped.subenvs["ubuntu"].state().read_text("~/Desktop/keys.txt")
        assert text == PRINTED + "\n"
    finally:
        env.close()

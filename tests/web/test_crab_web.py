"""CRAB v0's web sub-tasks on the offline web: CRAB-shaped files with the real UUIDs load, and on a real
desktop the oracle solves each while doing nothing does not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.web.content.files import file_bytes

URL = "https://raw.githubusercontent.com/camel-ai/camel/master/README.md"


def crab_file(n: int, uuid: str, attrs: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": f"a CRAB-shaped task file {n}",
        "tasks": [{"task": uuid, "attribute": attrs, "output": None}],
        "adjlist": "0",
        "id": f"7a1f0c2e-0000-4000-8000-0000000000d{n}",
    }


FILES = [
    crab_file(
        1, "a313ea4d-e501-4971-b4fe-db2aad19eac1", {"url": URL, "file_path": "/home/crab/assets/readme.md"}
    ),
    crab_file(2, "49b614c5-c4bb-4c20-aab8-ab9dcc7de1b5", {}),
    crab_file(3, "bcd03c9f-62c9-4001-8d86-78358c59ce22", {"keyword": "reinforcement learning"}),
    crab_file(
        4,
        "2b189dc2-c77f-4fa3-8432-ba4355cc294c",
        {"place_type": "coffee shop", "place_name": "hungarian parliament"},
    ),
    crab_file(
        5,
        "1cd6519a-9ee0-442b-ba5a-9238aeb00ff6",
        {"country": "Iceland", "file_path": "/home/crab/country.ods"},
    ),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("crab") / "dataset"
    (root / "ubuntu").mkdir(parents=True)
    for f in FILES:
        (root / "ubuntu" / f"{f['id']}.json").write_text(json.dumps(f))
    return root


def test_files_load_with_crabs_names_and_values(folder: Path) -> None:
    tasks = {t.id: t for t in load_tasks(str(folder))}
    download = tasks[FILES[0]["id"]].subtasks[0]
    assert download.attributes["url"] == URL and URL in download.instruction
    assert "~/assets/readme.md" in download.instruction
    assert "torch.matmul" in tasks[FILES[1]["id"]].subtasks[0].instruction
    assert "reinforcement learning" in tasks[FILES[2]["id"]].subtasks[0].instruction


def test_downloads_are_fixed_per_url() -> None:
    assert file_bytes(URL) == file_bytes(URL + "?x=1") != file_bytes(URL.replace("README", "NOTES"))


@pytest.fixture(scope="module")
def env(folder: Path):
    if shutil.which("Xvfb") is None:
        pytest.skip("no Xvfb (scripts/setup.sh)")
    e = gym.make("Crab-Desktop-v0", tasks=str(folder), max_steps=12)
    e.reset(seed=0)
    if e.unwrapped.subenvs["ubuntu"].session.web is None:
        e.close()
        pytest.skip("no namespaces here (not root): no offline web")
    yield e
    e.close()


# The download runs in the default tier; the four Firefox solutions (9-15 s each) in the slow one.
@pytest.mark.parametrize(
    "task",
    [
        pytest.param(f, id=name, marks=[pytest.mark.slow] if i else [])
        for i, (f, name) in enumerate(
            zip(
                FILES, ["download", "docs_example", "find_repo", "maps_share", "country_to_calc"], strict=True
            )
        )
    ],
)
def test_oracle_solves_and_doing_nothing_does_not(env, task: dict[str, Any]) -> None:
    env.reset(seed=0, options={"task": task["id"]})
    info = env.step(env.unwrapped.wait_action())[4]
    assert info["success"] is False
    record = rollout(env, OracleAgent(env), task=task["id"], seed=0)
    assert record.success, record.termination_reason

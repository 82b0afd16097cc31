"""CRAB v0's web sub-tasks on the offline web: a CRAB-shaped file with the real UUID loads, and on a real
desktop the oracle solves it while doing nothing does not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.web.content.files import file_bytes

DOWNLOAD = "a313ea4d-e501-4971-b4fe-db2aad19eac1"
URL = "https://raw.githubusercontent.com/camel-ai/camel/master/README.md"
TASK = {
    "description": f"Download {URL} to /home/crab/assets/readme.md.",
    "tasks": [{"task": DOWNLOAD, "attribute": {"url": URL, "file_path": "/home/crab/assets/readme.md"}}],
    "adjlist": "0",
    "id": "7a1f0c2e-0000-4000-8000-0000000000d1",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "dataset/ubuntu").mkdir(parents=True)
    (tmp_path / "dataset/ubuntu" / f"{TASK['id']}.json").write_text(json.dumps(TASK))
    return tmp_path / "dataset"


def test_download_file_loads_with_crabs_names_and_values(folder: Path) -> None:
    (task,) = load_tasks(str(folder))
    sub = task.subtasks[0]
    assert sub.template.id == DOWNLOAD and sub.attributes["url"] == URL
    assert URL in sub.instruction and "~/assets/readme.md" in sub.instruction


def test_downloads_are_fixed_per_url() -> None:
    assert file_bytes(URL) == file_bytes(URL + "?x=1") != file_bytes(URL.replace("README", "NOTES"))


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="no Xvfb (scripts/setup.sh)")
def test_oracle_downloads_and_doing_nothing_fails(folder: Path) -> None:
    env = gym.make("Crab-Desktop-v0", tasks=str(folder), max_steps=10)
    try:
        env.reset(seed=0, options={"task": TASK["id"]})
        if env.unwrapped.subenvs["ubuntu"].session.web is None:
            pytest.skip("no namespaces here (not root): no offline web")
        info = env.step(env.unwrapped.wait_action())[4]
        assert info["success"] is False and info["completion_ratio"] == 0
        record = rollout(env, OracleAgent(env), task=TASK["id"], seed=0)
        assert record.success, record.termination_reason
    finally:
        env.close()

"""CRAB v0's "paste the clipboard into VS Code, save it" (8491e674) on our desktop, where the editor is
Mousepad: a file in CRAB's exact shape (its real UUID, our own values), the clipboard put in place by the
setup, the oracle pasting and saving, and wrong final states failing."""

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
from crab_gym.tasks.generator import templates_for
from crab_gym.tasks.templates.desktop.editors import clipboard_text

PASTE = "8491e674-596b-452b-9e0e-58a44d90f947"
PATH = "/home/crab/assets/clipboard.md"
FILE = {
    "description": f'Paste the clipboard into VS Code and save it as "{PATH}".',
    "tasks": [{"task": PASTE, "attribute": {"file_path": PATH}, "output": PATH}],
    "adjlist": "0",
    "id": "9a4c2e10-0000-4000-8000-000000000002",
}


@pytest.fixture
def crab_path(tmp_path: Path) -> Path:
    path = tmp_path / "ubuntu" / f"{FILE['id']}.json"
    path.parent.mkdir()
    path.write_text(json.dumps(FILE))
    return path


def test_loads_naming_the_editor_we_have(crab_path: Path) -> None:
    (task,) = load_tasks(str(crab_path.parent.parent))
    sub = task.subtasks[0]
    assert sub.attributes == {"file_path": "~/assets/clipboard.md"}
    assert "Mousepad" in sub.instruction and "VS Code" not in sub.instruction
    assert "text_editor_paste_clipboard" not in {t.id for t in templates_for()}
    text = clipboard_text("~/assets/clipboard.md")
    assert text == clipboard_text("~/assets/clipboard.md") and text.count("\n") == 1


@pytest.fixture(scope="module")
def env():
    if not shutil.which("mousepad") or not shutil.which("xclip"):
        pytest.skip("needs mousepad and xclip (scripts/setup.sh)")
    e = gym.make("Crab-v0", max_steps=20)
    yield e
    e.close()


def test_oracle_pastes_and_saves(env, crab_path: Path) -> None:
    (task,) = load_tasks(str(crab_path))
    env.unwrapped.tasks = [task]
    record = rollout(env, OracleAgent(env), task=task.id, seed=0)
    assert record.success, record.termination_reason


@pytest.mark.parametrize(
    ("content", "solved"),
    [(None, False), ("", False), ("first line only\n", False), ("swapped", False), ("clip", True)],
)
def test_only_the_clipboard_lines_pass(env, crab_path: Path, content: str | None, solved: bool) -> None:
    (task,) = load_tasks(str(crab_path))
    desk = env.unwrapped.subenvs["ubuntu"]
    desk.reset()
    task.setup({"ubuntu": desk})
    desk.invalidate_state()
    clip = desk.state().clipboard()
    assert clip == clipboard_text("~/assets/clipboard.md")
    graph = task.evaluator()
    graph.update({"ubuntu": desk.state()})
    assert graph.completion_ratio == 0.0
    first, second = clip.split("\n")
    text = {"swapped": f"{second}\n{first}\n", "clip": f"# {first}\n{second} .\n"}.get(content, content)
    if text is not None:
        desk.write_file("~/assets/clipboard.md", text)
    desk.invalidate_state()
    graph.update({"ubuntu": desk.state()})
    assert graph.success is solved

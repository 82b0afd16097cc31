"""Shared fixtures: a tiny task set over real desktop state, independent of the benchmark's templates."""

from __future__ import annotations

import pytest

from crab_gym.core.tasks import Step, SubTaskTemplate, Task
from crab_gym.envs.desktop import evaluators as ev

NOTE = SubTaskTemplate(
    id="test_note_via_terminal",
    description="Write {text} into the file {path} using the terminal.",
    attributes={"path": "path", "text": "text"},
    evaluator=lambda path, text: [ev.file_exists(path=path), ev.file_contains(path=path, text=text)],
    solution=lambda path, text: [
        Step("ubuntu", "search_application", {"name": "terminal"}),
        Step("ubuntu", "write_text", {"text": f"printf '%s\\n' '{text}' > {path}\n"}),
    ],
    platforms=("ubuntu",),
    apps=("terminal",),
)


@pytest.fixture(scope="session")
def note_task() -> Task:
    sub = NOTE.instantiate(path="~/Documents/note.txt", text="crab <gym> ü")
    return Task("test-note", sub.instruction, [sub])

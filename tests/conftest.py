"""Shared fixtures: a tiny task set over real desktop state (independent of the benchmark's templates), and a
private adb server; and the marks each tier mark implies (docs/testing.md)."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from crab_gym.core.tasks import Step, SubTaskTemplate, Task
from crab_gym.envs.desktop import evaluators as ev

# A tier's tests are slow (left out of the default run); a test beyond a tier's CI slice is in the tier and
# `full` (left out of scripts/test.sh). Marker names are registered in pyproject.toml.
IMPLIES: dict[str, tuple[str, ...]] = {
    "vm": ("slow",),
    "load": ("slow",),
    "faults": ("slow",),
    "fuzz": ("slow",),
    "soak": ("slow",),
    "ray": ("slow",),
    "v0": ("slow",),
    "full": ("slow",),
    "vm_full": ("vm", "full"),
    "load_full": ("load", "full"),
    "faults_full": ("faults", "full"),
    "fuzz_long": ("fuzz", "full"),
    "dialects_full": ("full",),
}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        have = {mark.name for mark in item.iter_markers()}
        todo = list(have)
        while todo:
            for implied in IMPLIES.get(todo.pop(), ()):
                if implied not in have:
                    have.add(implied)
                    todo.append(implied)
                    item.add_marker(implied)


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


@pytest.fixture(scope="module")
def adb_port():
    """A private adb server (its own port), killed when the module is done."""
    adbutils = pytest.importorskip("adbutils", reason="the android extra (adbutils) is not installed")
    adb = adbutils.adb_path()
    if not adb or not os.path.exists(adb):
        pytest.skip("no adb binary")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}
    subprocess.run(
        [adb, "-P", str(port), "start-server"], capture_output=True, timeout=30, env=env, check=True
    )
    yield port
    subprocess.run(
        [adb, "-P", str(port), "kill-server"], capture_output=True, timeout=30, env=env, check=False
    )


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, headless, driven by Playwright (never a browser Playwright downloads)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    path = "/usr/bin/chromium"
    if not os.access(path, os.X_OK):
        pytest.skip(f"no {path} (Debian package chromium)")
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"]  # fmt: skip
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=args, headless=True)
        try:
            yield browser
        finally:
            browser.close()

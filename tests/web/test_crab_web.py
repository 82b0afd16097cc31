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
IMAGE_SEARCH = "017102b6-d2c3-466b-96f7-37c8bcddc41a"
CLIPBOARD_DOWNLOAD = "a313ea4d-e501-4971-b4fe-db2aad19acsd"


def crab_file(n: int, uuid: str, attrs: dict[str, Any], *then: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A CRAB task file: the sub-task, then any that follow it in a chain."""
    subs = [(uuid, attrs), *then]
    return {
        "description": f"a CRAB-shaped task file {n}",
        "tasks": [{"task": u, "attribute": a, "output": None} for u, a in subs],
        "adjlist": "".join(f"{i} {i + 1}\n" for i in range(len(subs) - 1)) + str(len(subs) - 1),
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
    crab_file(6, IMAGE_SEARCH, {"keyword": "Lake Bled"}),
    # the image search's URL is on the clipboard when the download starts: the download's setup is skipped
    crab_file(
        7,
        IMAGE_SEARCH,
        {"keyword": "northern lights"},
        (CLIPBOARD_DOWNLOAD, {"file_path": "/home/crab/Downloads/aurora.png"}),
    ),
    # alone, its setup puts a download URL on the clipboard
    crab_file(8, CLIPBOARD_DOWNLOAD, {"file_path": "/home/crab/Documents/report.pdf"}),
]
NAMES = [
    "download",
    "docs_example",
    "find_repo",
    "maps_share",
    "country_to_calc",
    "image_search",
    "image_then_download",
    "clipboard_download",
]
FAST = {"download", "clipboard_download"}  # a terminal only; the Firefox solutions take 9-15 s each


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


@pytest.mark.parametrize(
    "task",
    [
        pytest.param(f, id=name, marks=[] if name in FAST else [pytest.mark.slow])
        for f, name in zip(FILES, NAMES, strict=True)
    ],
)
def test_oracle_solves_and_doing_nothing_does_not(env, task: dict[str, Any]) -> None:
    env.reset(seed=0, options={"task": task["id"]})
    info = env.step(env.unwrapped.wait_action())[4]
    assert info["success"] is False
    record = rollout(env, OracleAgent(env), task=task["id"], seed=0)
    assert record.success, record.termination_reason


def test_clipboard_download_files_load_with_the_url_they_read(folder: Path) -> None:
    """Alone, the download reads the stand-in URL its setup copies; after the image search, that search's
    URL (so its setup is skipped). CRAB's shape is written back, without our attribute."""
    from crab_gym.web.content.world import WebWorld

    tasks = {t.id: t for t in load_tasks(str(folder))}
    chain, alone = tasks[FILES[6]["id"]], tasks[FILES[7]["id"]]
    assert chain.subtasks[1].attributes["url"] == WebWorld(0).images("northern lights")[0].url
    assert chain.fed_inputs(1) == {"url"} and not alone.fed_inputs(0)
    assert alone.subtasks[0].attributes["url"].startswith("https://files.example.org/")
    assert "url" not in alone.subtasks[0].instruction and "clipboard" in alone.subtasks[0].instruction
    assert chain.to_json()["tasks"][1]["attribute"] == {"file_path": "~/Downloads/aurora.png"}


def test_wrong_clipboard_or_download_fails(env) -> None:
    """The checks read the session: a URL of another keyword's image, or a file of another URL, fail."""
    from crab_gym.envs.desktop import evaluators as ev
    from crab_gym.web.content.world import WebWorld

    env.reset(seed=0, options={"task": FILES[7]["id"]})
    desk = env.unwrapped.subenvs["ubuntu"]
    world = WebWorld(0)
    path = "~/Documents/report.pdf"

    def holds(check: Any) -> bool:
        desk.invalidate_state()
        return bool(check.evaluate({"ubuntu": desk.state()}))

    url = desk.state().clipboard().strip()
    assert world.download(url) is not None
    desk.write_file(path, world.download(url.replace("report", "other")) or b"")
    assert not holds(ev.file_is_clipboard_download(path=path))
    desk.write_file(path, world.download(url) or b"")
    assert holds(ev.file_is_clipboard_download(path=path))
    desk.set_clipboard(world.images("tokyo")[0].url)
    assert holds(ev.clipboard_image_of(keyword="Tokyo")) and not holds(ev.clipboard_image_of(keyword="lake"))
    desk.set_clipboard("https://github.com/search?q=lake")
    assert not holds(ev.clipboard_image_of(keyword="lake"))

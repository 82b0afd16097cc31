"""CRAB v0's GIMP sub-task (cc1adae7, make an image brighter): a file we write in CRAB's exact shape (its real
UUID, our own values), the image drawn from a seed, the oracle working GIMP's menus on the Xvfb desktop, and
wrong final states failing."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.core.tasks import Task
from crab_gym.envs.desktop.actions import ACTIONS
from crab_gym.envs.desktop.image_evaluators import brightness
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.tasks.generator import templates_for
from crab_gym.tasks.templates.desktop.images import GIMP_BRIGHTEN_IMAGE, image_bytes

BRIGHTER = "cc1adae7-bef9-4c8a-865d-00d44486dd69"
SOURCE, TARGET = "/home/crab/assets/harbour.png", "/home/crab/Pictures/harbour_brighter.png"
FILE = {
    "description": f'Use GIMP to make "{SOURCE}" brighter and save it to "{TARGET}".',
    "tasks": [
        {
            "task": BRIGHTER,
            "attribute": {"image_path_before_edit": SOURCE, "image_path_after_edit": TARGET},
            "output": TARGET,
        }
    ],
    "adjlist": "0",
    "id": "9a4c2e10-0000-4000-8000-000000000001",
}


def _png(data: bytes, factor: float) -> bytes:
    from PIL import Image, ImageEnhance

    out = io.BytesIO()
    ImageEnhance.Brightness(Image.open(io.BytesIO(data))).enhance(factor).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def crab_path(tmp_path: Path) -> Path:
    path = tmp_path / "ubuntu" / f"{FILE['id']}.json"
    path.parent.mkdir()
    path.write_text(json.dumps(FILE))
    return path


def test_template_is_well_formed_and_unsampled() -> None:
    sub = GIMP_BRIGHTEN_IMAGE.instantiate(source="~/a.png", target="~/b.jpg")
    task = Task("t", sub.instruction, [sub])
    steps = [s for s in task.solution() if s.env == "ubuntu"]
    assert steps and all(s.action in {a.name for a in ACTIONS} for s in steps)
    assert GIMP_BRIGHTEN_IMAGE.id not in {t.id for t in templates_for()}


def test_seeded_image_is_mid_grey_and_brightness_orders_edits() -> None:
    data = image_bytes("~/assets/x.png")
    assert data == image_bytes("~/assets/x.png") != image_bytes("~/assets/y.png")
    level = brightness(data)
    assert level is not None and 60 < level < 190
    lighter, darker = brightness(_png(data, 1.3)), brightness(_png(data, 0.7))
    assert lighter is not None and darker is not None and lighter > level > darker
    assert brightness(b"not an image") is None
    assert image_bytes("~/p.jpg")[:2] == b"\xff\xd8"  # JPEG by extension


def test_crab_file_loads_with_crab_names(crab_path: Path) -> None:
    (task,) = load_tasks(str(crab_path.parent.parent))
    sub = task.subtasks[0]
    assert sub.template.id == BRIGHTER
    assert sub.attributes == {"image_path_before_edit": "~/assets/harbour.png", "image_path_after_edit":
                              "~/Pictures/harbour_brighter.png"}  # fmt: skip
    assert "GIMP" in sub.instruction and "~/assets/harbour.png" in sub.instruction


@pytest.fixture(scope="module")
def env():
    if not shutil.which("gimp") or not shutil.which("Xvfb"):
        pytest.skip("needs gimp and Xvfb (scripts/setup.sh)")
    e = gym.make("Crab-v0", max_steps=40)
    yield e
    e.close()


def test_oracle_brightens_the_image_in_gimp(env, crab_path: Path) -> None:
    (task,) = load_tasks(str(crab_path))
    env.unwrapped.tasks = [task]
    record = rollout(env, OracleAgent(env), task=task.id, seed=0)
    assert record.success, record.termination_reason
    desk = env.unwrapped.subenvs["ubuntu"]
    assert any(p.name.startswith("gimp") for p in desk.session.processes())  # gimp-2.10 from rofi


@pytest.mark.parametrize(("factor", "solved"), [(None, False), (0.6, False), (1.0, False), (1.4, True)])
def test_only_a_brighter_target_passes(env, crab_path: Path, factor: float | None, solved: bool) -> None:
    """Setup alone, a darker or unchanged copy fail; a brighter one (made without GIMP) passes the checks."""
    (task,) = load_tasks(str(crab_path))
    desk = env.unwrapped.subenvs["ubuntu"]
    desk.reset()
    task.setup({"ubuntu": desk})
    graph = task.evaluator()
    desk.invalidate_state()
    graph.update({"ubuntu": desk.state()})
    assert graph.completion_ratio == 0.0
    if factor is not None:
        before = desk.state().read_bytes("~/assets/harbour.png")
        assert before is not None
        desk.write_file("~/Pictures/harbour_brighter.png", _png(before, factor))
    desk.invalidate_state()
    graph.update({"ubuntu": desk.state()})
    assert graph.success is solved

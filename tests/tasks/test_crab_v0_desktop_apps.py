"""CRAB v0's sub-tasks in GIMP (cc1adae7 make an image brighter, 4cf246ea two images side by side) and VS
Code (8491e674 paste the clipboard, save it; Mousepad here): files we write in CRAB's exact shape (its real
UUIDs, our own values), images and clipboard text drawn from seeds, the oracle working the apps' menus and
dialogs on the Xvfb desktop, and wrong final states failing."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from PIL import Image, ImageEnhance

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.core.tasks import Task
from crab_gym.envs.desktop.actions import ACTIONS
from crab_gym.envs.desktop.image_evaluators import brightness, locate
from crab_gym.rollout import rollout
from crab_gym.tasks import load_tasks
from crab_gym.tasks.generator import templates_for
from crab_gym.tasks.templates.desktop.crab_extra import seeded_picture, seeded_text
from crab_gym.tasks.templates.desktop.images import GIMP_BRIGHTEN_IMAGE, GIMP_COMBINE_LEFT_RIGHT

BRIGHTER = "cc1adae7-bef9-4c8a-865d-00d44486dd69"
COMBINE = "4cf246ea-0a7f-43da-84b6-61d74a2699af"
PASTE = "8491e674-596b-452b-9e0e-58a44d90f947"
CLIP = "/home/crab/assets/clipboard.md"
SOURCE, TARGET = "/home/crab/assets/harbour.png", "/home/crab/Pictures/harbour_brighter.png"
LEFT, RIGHT, OUT = (
    "/home/crab/assets/dune.jpg",
    "/home/crab/Pictures/fern.png",
    "/home/crab/Pictures/pair.png",
)


def crab_file(n: int, uuid: str, attrs: dict[str, str], out: str) -> dict[str, Any]:
    return {
        "description": f"GIMP sub-task {n}",
        "tasks": [{"task": uuid, "attribute": attrs, "output": out}],
        "adjlist": "0",
        "id": f"9a4c2e10-0000-4000-8000-{n:012d}",
    }


FILES = {
    BRIGHTER: crab_file(
        1, BRIGHTER, {"image_path_before_edit": SOURCE, "image_path_after_edit": TARGET}, TARGET
    ),
    COMBINE: crab_file(3, COMBINE, {"image_path_1": LEFT, "image_path_2": RIGHT, "output_path": OUT}, OUT),
    PASTE: crab_file(2, PASTE, {"file_path": CLIP}, CLIP),
}


def _img(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def _png(img: Image.Image, fmt: str = "PNG") -> bytes:
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def _brightened(data: bytes, factor: float) -> bytes:
    return _png(ImageEnhance.Brightness(_img(data)).enhance(factor))


def _collage(*placed: tuple[bytes, int], width: int = 640, scale: float = 1.0) -> bytes:
    canvas = Image.new("RGB", (round(width * scale), round(240 * scale)), "white")
    for data, x in placed:
        im = _img(data)
        canvas.paste(im.resize((round(im.width * scale), round(im.height * scale))), (round(x * scale), 0))
    return _png(canvas)


def _task(tmp_path: Path, uuid: str) -> Task:
    path = tmp_path / "ubuntu" / f"{FILES[uuid]['id']}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(FILES[uuid]))
    (task,) = load_tasks(str(path))
    return task


@pytest.mark.parametrize("template", [GIMP_BRIGHTEN_IMAGE, GIMP_COMBINE_LEFT_RIGHT], ids=lambda t: t.id)
def test_template_is_well_formed_and_unsampled(template) -> None:
    sub = template.instantiate(**{k: f"~/{k}.png" for k in template.attributes})
    steps = Task("t", sub.instruction, [sub]).solution()
    assert {s.env for s in steps} == {"ubuntu", "root"}  # root: waits while a GIMP dialog builds
    names = {a.name for a in ACTIONS}
    assert all(s.action in names for s in steps if s.env == "ubuntu")
    assert template.id not in {t.id for t in templates_for()}


def test_seeded_picture_is_mid_grey_and_brightness_orders_edits() -> None:
    data = seeded_picture("~/assets/x.png")
    level = brightness(data)
    lighter, darker = brightness(_brightened(data, 1.3)), brightness(_brightened(data, 0.7))
    assert level is not None and lighter is not None and darker is not None
    assert 60 < level < 190 and lighter > level > darker
    assert brightness(b"not an image") is None


def test_locate_finds_whole_images_at_their_size_or_scaled() -> None:
    a, b = seeded_picture("~/a.png"), seeded_picture("~/b.jpg")
    assert locate(a, _collage((a, 0), (b, 320))) == (0, 0, 320, 240)
    assert locate(b, _png(_img(_collage((a, 0), (b, 320))), "JPEG")) == (320, 0, 640, 240)
    assert locate(b, _collage((a, 0), (b, 320), scale=0.5)) == (160, 0, 320, 120)
    assert locate(a, _collage((a, 0), (b, 160), width=480)) is None  # covered by half
    assert locate(b, _collage((a, 0))) is None and locate(a, b"garbage") is None


def test_crab_files_load_with_crab_names(tmp_path: Path) -> None:
    brighter, combine = _task(tmp_path, BRIGHTER), _task(tmp_path, COMBINE)
    assert brighter.subtasks[0].attributes == {
        "image_path_before_edit": "~/assets/harbour.png",
        "image_path_after_edit": "~/Pictures/harbour_brighter.png",
    }
    assert combine.subtasks[0].template.id == COMBINE
    assert (
        "GIMP" in combine.subtasks[0].instruction and "~/assets/dune.jpg" in combine.subtasks[0].instruction
    )


def test_paste_loads_naming_the_editor_we_have(tmp_path: Path) -> None:
    sub = _task(tmp_path, PASTE).subtasks[0]
    assert sub.attributes == {"file_path": "~/assets/clipboard.md"}
    assert "Mousepad" in sub.instruction and "VS Code" not in sub.instruction
    assert "text_editor_paste_clipboard" not in {t.id for t in templates_for()}


@pytest.fixture(scope="module")
def env():
    if not shutil.which("gimp") or not shutil.which("Xvfb"):
        pytest.skip("needs gimp and Xvfb (scripts/setup.sh)")
    e = gym.make("Crab-v0", max_steps=90)
    yield e
    e.close()


def _oracle(env, task: Task, process: str = "gimp") -> None:
    env.unwrapped.tasks = [task]
    record = rollout(env, OracleAgent(env), task=task.id, seed=0)
    assert record.success, record.termination_reason
    desk = env.unwrapped.subenvs["ubuntu"]
    assert any(p.name.startswith(process) for p in desk.session.processes())  # gimp-2.10 from rofi


def test_oracle_brightens_the_image_in_gimp(env, tmp_path: Path) -> None:
    _oracle(env, _task(tmp_path, BRIGHTER))


def test_oracle_pastes_and_saves_in_mousepad(env, tmp_path: Path) -> None:
    _oracle(env, _task(tmp_path, PASTE), process="mousepad")


@pytest.mark.slow
def test_oracle_puts_the_images_side_by_side_in_gimp(env, tmp_path: Path) -> None:
    _oracle(env, _task(tmp_path, COMBINE))


def _final_state(env, task: Task, files: dict[str, Any]) -> bool:
    """Setup alone leaves the task unsolved; then ``files`` (path -> bytes made from the session's files,
    read through the given reader) are written without GIMP, and the checks judge them."""
    desk = env.unwrapped.subenvs["ubuntu"]
    desk.reset()
    task.setup({"ubuntu": desk})
    graph = task.evaluator()
    desk.invalidate_state()
    graph.update({"ubuntu": desk.state()})
    assert graph.completion_ratio == 0.0
    read = desk.state().read_bytes
    for path, make in files.items():
        desk.write_file(path, make(read))
    desk.invalidate_state()
    graph.update({"ubuntu": desk.state()})
    return bool(graph.success)


@pytest.mark.parametrize(("factor", "solved"), [(None, False), (0.6, False), (1.0, False), (1.4, True)])
def test_only_a_brighter_target_passes(env, tmp_path: Path, factor: float | None, solved: bool) -> None:
    target = "~/Pictures/harbour_brighter.png"
    files = {} if factor is None else {target: lambda r: _brightened(r("~/assets/harbour.png"), factor)}
    assert _final_state(env, _task(tmp_path, BRIGHTER), files) is solved


@pytest.mark.parametrize(
    ("layout", "solved"),
    [
        ("swapped", False),
        ("left only", False),
        ("overlapping", False),
        ("side by side", True),
        ("half", True),
    ],
)
def test_only_left_then_right_passes(env, tmp_path: Path, layout: str, solved: bool) -> None:
    def make(r) -> bytes:
        a, b = r("~/assets/dune.jpg"), r("~/Pictures/fern.png")
        return {
            "swapped": lambda: _collage((b, 0), (a, 320)),
            "left only": lambda: _collage((a, 0)),
            "overlapping": lambda: _collage((a, 0), (b, 160), width=480),
            "side by side": lambda: _collage((a, 0), (b, 320)),
            "half": lambda: _collage((a, 0), (b, 320), scale=0.5),
        }[layout]()

    assert _final_state(env, _task(tmp_path, COMBINE), {"~/Pictures/pair.png": make}) is solved


@pytest.mark.parametrize(
    ("content", "solved"),
    [(None, False), ("", False), ("first only", False), ("swapped", False), ("clip", True)],
)
def test_only_the_clipboard_lines_pass(env, tmp_path: Path, content: str | None, solved: bool) -> None:
    """The clipboard holds the setup's lines; the file must hold each in its line (more text around it
    allowed, as CRAB's)."""
    lines = seeded_text("~/assets/clipboard.md").strip().split("\n")
    text = {
        "first only": f"{lines[0]}\n",
        "swapped": "\n".join([lines[1], lines[0], *lines[2:]]),
        "clip": "\n".join(f"# {ln} ." for ln in lines),
    }.get(content or "", content)
    files = {} if text is None else {"~/assets/clipboard.md": lambda r: text.encode()}
    assert _final_state(env, _task(tmp_path, PASTE), files) is solved


CHAIN = {
    "description": "Make the harbour brighter in GIMP, then put the dune left of the brighter harbour.",
    "tasks": [
        {"task": BRIGHTER, "attribute": {"image_path_before_edit": SOURCE, "image_path_after_edit": TARGET}},
        {"task": COMBINE, "attribute": {"image_path_1": LEFT, "image_path_2": TARGET, "output_path": OUT}},
    ],
    "adjlist": "0 1\n1",
    "id": "9a4c2e10-0000-4000-8000-000000000004",
}


def _chain(tmp_path: Path) -> Task:
    path = tmp_path / "ubuntu" / f"{CHAIN['id']}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(CHAIN))
    (task,) = load_tasks(str(path))
    return task


def test_a_fed_image_is_left_to_its_predecessor(env, tmp_path: Path) -> None:
    """The side-by-side setup draws the dune, not the brighter harbour, which the first sub-task makes."""
    task = _chain(tmp_path)
    desk = env.unwrapped.subenvs["ubuntu"]
    desk.reset()
    task.setup({"ubuntu": desk})
    desk.invalidate_state()
    state = desk.state()
    assert state.exists("~/assets/harbour.png") and state.exists("~/assets/dune.jpg")
    assert not state.exists("~/Pictures/harbour_brighter.png")


@pytest.mark.slow
def test_oracle_solves_the_chain(env, tmp_path: Path) -> None:
    _oracle(env, _chain(tmp_path))

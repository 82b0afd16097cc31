"""SetOfMarks: merge rules, drawing, marks that match the true widget boxes, element ids that hit them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.ocr import CachedOcr
from crab_gym.tasks import load_tasks
from crab_gym.wrappers.marks import Candidate, draw, mark_at, merge
from crab_gym.wrappers.set_of_marks import SetOfMarks

V0_ANDROID = [t.id for t in load_tasks("v0") if set(t.platforms) <= {"android", "root"}]


def test_merge_rules():
    cands = [
        Candidate((10, 10, 60, 40), "button", "OK", "atspi"),
        Candidate((12, 12, 58, 38), "text", "OK", "ocr"),  # inside a named element: dropped
        Candidate((0, 0, 500, 500), "panel", "", "detector"),  # contains a kept box: dropped
        Candidate((100, 10, 102, 40), "region", "", "detector"),  # degenerate: dropped
        Candidate((-20, 300, 40, 340), "region", "", "detector"),  # clipped to the screen, kept
        Candidate((200, 10, 260, 40), "link", "a", "atspi"),
        Candidate((203, 12, 262, 41), "region", "", "detector"),  # near-duplicate centre: dropped
        Candidate((300, 400, 300, 450), "button", "zero width", "atspi"),
    ]
    marks = merge(cands, (400, 400))
    assert [(m.id, m.name, m.box) for m in marks] == [
        (1, "OK", (10, 10, 60, 40)),
        (2, "a", (200, 10, 260, 40)),
        (3, "", (0, 300, 40, 340)),
    ]
    assert marks[0].describe() == '[1] button "OK"'
    assert mark_at(marks, 30, 20).id == 1 and mark_at(marks, 150, 150) is None


def test_draw_is_pure():
    frame = np.full((200, 300, 3), 255, np.uint8)
    marks = merge([Candidate((50, 50, 150, 120), "button", "x", "atspi")], (300, 200))
    out = draw(frame, marks)
    assert (frame == 255).all(), "the input frame was modified"
    assert out.shape == frame.shape and (out[50:120, 50] != 255).any() and (out[85, 100] == 255).all()


@pytest.fixture(scope="module")
def phone():
    env = SetOfMarks(gym.make("Crab-Android-v0", tasks="v0"), detector=True)
    yield env
    env.close()


def test_phone_marks_match_widgets_and_element_ids_hit_them(phone):
    obs, info = phone.reset(seed=0, options={"task": V0_ANDROID[0]})
    crab = phone.unwrapped
    tree = crab.subenvs["android"].state().ui_tree()
    nodes = {n.content_desc or n.text: n.bounds for n in tree if n.clickable}
    marks = {m.name: m for m in phone.marks["android"]}
    assert marks["Contacts"].box == tuple(nodes["Contacts"])
    count = int(obs["android"]["mark_count"])
    assert (
        count == len(phone.marks["android"])
        and tuple(obs["android"]["marks"][0]) == phone.marks["android"][0].box
    )
    assert any(line.endswith('"Contacts"') for line in info["marks"]["android"])
    assert not np.array_equal(obs["android"]["screen"], crab.subenvs["android"].screenshot()), "marks drawn"
    act = phone.encode_action("android", "tap", {"point": (0.5, 0.8)})
    act[2]["element"] = marks["Contacts"].id
    _, _, _, _, info = phone.step(act)
    assert "invalid_action" not in info
    assert crab.subenvs["android"].state().foreground_package() == "com.android.contacts"


@pytest.mark.parametrize("bad", [0, 10_000, "seven", None])
def test_unknown_element_is_an_invalid_action(phone, bad):
    phone.reset(seed=0, options={"task": V0_ANDROID[0]})
    act = phone.encode_action("android", "tap", {"point": (0.5, 0.8)})
    act[2]["element"] = bad
    _, reward, terminated, _, info = phone.step(act)
    assert "invalid_action" in info and "element" in info["invalid_action"]
    assert reward == 0 and not terminated and info["actions"] == 0


@pytest.mark.parametrize("task_id", V0_ANDROID[::3])
def test_scripted_solutions_solve_through_marks(phone, task_id):
    obs, info = phone.reset(seed=0, options={"task": task_id})
    crab = phone.unwrapped
    for step in crab.task.solution():
        act = phone.encode_action(step.env, step.action, dict(step.params))
        obs, reward, terminated, truncated, info = phone.step(act)
        assert "invalid_action" not in info, info["invalid_action"]
    assert info["success"], info["feedback"]


def test_check_env_accepts_the_wrapped_spaces(phone):
    from gymnasium.utils.env_checker import check_env

    check_env(phone, skip_render_check=True)


@pytest.fixture(scope="module")
def desktop():
    env = SetOfMarks(gym.make("Crab-Desktop-v0", tasks="v0"), ocr="tesseract")
    yield env
    env.close()


def test_desktop_marks_from_the_accessibility_tree_and_ocr(desktop):
    obs, info = desktop.reset(seed=0, options={"task": "vim_write_file-0"})
    crab = desktop.unwrapped
    desktop.step(desktop.encode_action("ubuntu", "search_application", {"name": "text editor"}))
    desktop.step(desktop.encode_action("ubuntu", "write_text", {"text": "Marked words here"}))
    marks = desktop.marks["ubuntu"]
    tree = {
        tuple(n["box"]) for n in crab.subenvs["ubuntu"].state().a11y() if n.get("box") and n["role"] == "text"
    }
    text_area = [m for m in marks if m.source == "atspi" and m.role == "text"]
    assert text_area and any((b[0], b[1], b[0] + b[2], b[1] + b[3]) == text_area[0].box for b in tree)
    assert any(m.source == "ocr" for m in marks) or any(
        "Marked" in t for _, t in desktop.ocr(crab.subenvs["ubuntu"].screenshot())
    )
    menu = next(m for m in marks if m.name == "File" and m.source == "atspi")
    desktop.step(
        desktop.encode_action("ubuntu", "click", {"point": (menu.centre[0] / 1280, menu.centre[1] / 800)})
    )
    names = [n["name"] for n in crab.subenvs["ubuntu"].state().a11y() if n["role"] == "menu item"]
    assert any("Save" in n for n in names), "clicking the File mark opened no menu"


def test_file_list_rows_get_tree_marks_and_their_ids_select_the_row(desktop):
    """Thunar's details view manages its rows; a small managed container is still walked."""
    desktop.reset(seed=0, options={"task": "files_move-0"})
    attrs = desktop.unwrapped.task.subtasks[0].attributes
    desktop.step(desktop.encode_action("ubuntu", "hotkey", {"keys": ["ctrl", "2"]}))
    rows = {m.name: m for m in desktop.marks["ubuntu"] if m.source == "atspi" and m.role == "table cell"}
    assert {attrs["filename"], attrs["subfolder"]} <= set(rows)
    file_mark = rows[attrs["filename"]]
    desktop.step(desktop.encode_action("ubuntu", "click", {"element": file_mark.id}))
    nodes = desktop.unwrapped.subenvs["ubuntu"].state().a11y()
    status = [n["name"] for n in nodes if n["role"] == "status bar"]
    assert any(f'"{attrs["filename"]}"' in s for s in status), status


def test_libreoffice_toolbar_marks_lie_on_their_buttons(desktop):
    """LibreOffice reports its toolbars a menu bar's height too high; the marks are corrected, so the Bold
    mark presses Bold."""
    desktop.reset(seed=0, options={"task": "vim_write_file-0"})
    desktop.step(desktop.encode_action("ubuntu", "search_application", {"name": "calc"}))
    bold = next(m for m in desktop.marks["ubuntu"] if m.name == "Bold" and m.source == "atspi")
    desktop.step(desktop.encode_action("ubuntu", "click", {"element": bold.id}))
    states = [n["states"] for n in desktop.unwrapped.subenvs["ubuntu"].state().a11y() if n["name"] == "Bold"]
    assert any("checked" in s or "pressed" in s for s in states), states


@pytest.mark.parametrize("engine", ["tesseract", "rapidocr"])
def test_ocr_engines_read_text_and_cache_by_frame(engine):
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (640, 200), "white")
    ImageDraw.Draw(img).text(
        (40, 70), "Invoice 2024", fill="black", font=ImageFont.truetype("DejaVuSans.ttf", 40)
    )
    frame = np.asarray(img)
    ocr = CachedOcr(engine)
    found = ocr(frame)
    assert any("Invoice" in text for _, text in found), found
    box = next(b for b, t in found if "Invoice" in t)
    assert box[0] < 60 and box[2] > 150 and box[1] < 90 < box[3], box  # the word sits at (40, 70)
    ocr(frame.copy())
    assert ocr.calls == 1, "the same frame was read twice"


def test_function_calls_on_marks_speak_element_ids(phone):
    from crab_gym.wrappers import FunctionCalls

    fc = FunctionCalls(phone)
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in fc.tools()}
    assert "element" in tools["tap"]["properties"] and "point" not in tools["tap"]["properties"]
    obs, info = fc.reset(seed=0, options={"task": V0_ANDROID[0]})
    contacts = next(m for m in phone.marks["android"] if m.name == "Contacts")
    _, _, _, _, info = fc.step({"name": "tap", "arguments": {"device": "android", "element": contacts.id}})
    assert "invalid_action" not in info, info.get("invalid_action")
    assert phone.unwrapped.subenvs["android"].state().foreground_package() == "com.android.contacts"
    _, _, _, _, info = fc.step({"name": "tap", "arguments": {"device": "android", "element": 64}})
    assert "is not on the android screen" in info["invalid_action"]

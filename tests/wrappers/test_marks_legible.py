"""Mark numbers people and models can read: sized by the frame and the view, white on dark tags placed apart,
and read back by Tesseract from marked desktop and phone frames at full size and after a model's downscale."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.wrappers import SetOfMarks
from crab_gym.wrappers.mark_legibility import read_tags
from crab_gym.wrappers.marks import (
    PALETTE,
    TEXT,
    VIEW_FONT_PX,
    Candidate,
    Mark,
    draw,
    layout_tags,
    merge,
    tag_style,
)

SIZES = (None, 1280, 1024)  # full size, and the longer side a model's downscale leaves


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_tags_contrast_with_their_white_digits():
    for colour in PALETTE:
        ratio = (_luminance(TEXT) + 0.05) / (_luminance(colour) + 0.05)
        assert ratio >= 4.5, (colour, ratio)


@pytest.mark.parametrize(("size", "view"), [((1280, 800), None), ((1080, 2400), None), ((1080, 2400), 1280)])
def test_digits_scale_with_the_frame_and_survive_the_downscale(size, view):
    style = tag_style(size, view)
    shown = min(view or 1024, max(size))
    assert style.font_px * shown / max(size) >= VIEW_FONT_PX - 0.5
    assert tag_style((1080, 2400)).font_px > tag_style((1280, 800)).font_px
    assert tag_style((96, 208)).font_px <= 16, "a tiny observation is not covered by its tags"


def test_tags_of_a_dense_row_do_not_cover_each_other():
    """A toolbar: 14 buttons of 24 px, 26 px apart. Tags alternate between spots so none hides another."""
    boxes = [(100 + 26 * i, 300, 124 + 26 * i, 324) for i in range(14)]
    marks = [Mark(i + 1, b, "push button", "", "atspi") for i, b in enumerate(boxes)]
    tags = layout_tags(marks, (1280, 800), tag_style((1280, 800)))
    for a, b in itertools.combinations(tags, 2):
        assert not _overlap(a, b), (a, b)


def test_tags_stay_on_the_frame():
    corners = [(0, 0, 30, 20), (1250, 0, 1280, 20), (0, 780, 30, 800), (1250, 780, 1280, 800)]
    marks = [Mark(i + 1, b, "button", "", "atspi") for i, b in enumerate(corners)]
    for x1, y1, x2, y2 in layout_tags(marks, (1280, 800), tag_style((1280, 800))):
        assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 800


def test_draw_puts_each_tag_where_the_layout_says():
    frame = np.full((800, 1280, 3), 255, np.uint8)
    marks = merge([Candidate((200, 200, 300, 240), "button", "x", "atspi")], (1280, 800))
    out = draw(frame, marks)
    assert (frame == 255).all(), "the input frame was modified"
    x1, y1, x2, y2 = layout_tags(marks, (1280, 800), tag_style((1280, 800)))[0]
    inside = out[y1 + 4 : y2 - 4, x1 + 4 : x2 - 4].reshape(-1, 3)
    colour = np.asarray(PALETTE[marks[0].id % len(PALETTE)])
    assert (inside == colour).all(axis=1).mean() > 0.4 and (inside == 255).all(axis=1).any()


@pytest.mark.parametrize("background", [30, 245])
@pytest.mark.parametrize("size", [(1280, 800), (1080, 2400)])
def test_synthetic_tags_read_back_on_dark_and_light_screens(size, background):
    w, h = size
    frame = np.full((h, w, 3), background, np.uint8)
    corners = [(60 + 150 * (i % 6), 80 + 120 * (i // 6)) for i in range(30)]
    marks = [Mark(i + 1, (x, y, x + 100, y + 50), "button", "", "atspi") for i, (x, y) in enumerate(corners)]
    marked = draw(frame, marks)
    for long_side in SIZES:
        rb = read_tags(marked, marks, long_side)
        assert rb.share >= 0.9, (long_side, rb.misread())


# ---- real frames: the desktop (after reset, with an app open) and the phone (launcher, Contacts) ---------


@pytest.fixture(scope="module")
def desktop_frames():
    env = SetOfMarks(gym.make("Crab-Desktop-v0", tasks="v0"))
    try:
        obs, _ = env.reset(seed=0, options={"task": "vim_write_file-0"})
        frames = [(obs["ubuntu"]["screen"], env.marks["ubuntu"])]
        obs, *_ = env.step(env.encode_action("ubuntu", "search_application", {"name": "text editor"}))
        frames.append((obs["ubuntu"]["screen"], env.marks["ubuntu"]))
        yield frames
    finally:
        env.close()


@pytest.fixture(scope="module")
def phone_frames():
    env = SetOfMarks(gym.make("Crab-Android-v0", tasks="v0"))
    try:
        task = next(t for t in env.unwrapped.task_ids() if t.startswith("contacts_"))
        obs, _ = env.reset(seed=0, options={"task": task})
        frames = [(obs["android"]["screen"], env.marks["android"])]
        contacts = next(m for m in env.marks["android"] if m.name == "Contacts")
        obs, *_ = env.step(env.encode_action("android", "tap", {"element": contacts.id}))
        frames.append((obs["android"]["screen"], env.marks["android"]))
        yield frames
    finally:
        env.close()


def _share_read(frames, long_side) -> tuple[float, list]:
    read = total = 0
    misread = []
    for frame, marks in frames:
        rb = read_tags(frame, marks, long_side)
        read += round(rb.share * len(marks))
        total += len(marks)
        misread += rb.misread()
    return read / total, misread


@pytest.mark.slow
@pytest.mark.parametrize("long_side", SIZES)
def test_desktop_mark_numbers_read_back(desktop_frames, long_side):
    assert all(len(marks) >= 8 for _, marks in desktop_frames), "the panel alone has 8 items"
    share, misread = _share_read(desktop_frames, long_side)
    assert share >= 0.9, misread


@pytest.mark.slow
@pytest.mark.parametrize("long_side", SIZES)
def test_phone_mark_numbers_read_back(phone_frames, long_side):
    share, misread = _share_read(phone_frames, long_side)
    assert share >= 0.9, misread

"""The desktop looks like a desktop: a wallpaper and a panel (application menu, launchers, window list, a
clock frozen to the task's date) whose items are in the accessibility tree, numbered by Set-of-Marks and
clickable; the panel never takes the focus, is no application window, and comes back pristine at reset."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import crab_gym  # noqa: F401
from crab_gym.envs.android.sim.storage.db import NOW_MS
from crab_gym.envs.desktop import evaluators as ev
from crab_gym.envs.desktop.backends.panel import DESKTOP_NOW, PANEL_APPS, PANEL_HEIGHT
from crab_gym.envs.desktop.backends.wallpaper import draw_wallpaper
from crab_gym.wrappers import SetOfMarks
from crab_gym.wrappers.regions import detect_regions

TASK = "vim_write_file-0"  # its setup opens no window
CLOCK = "Clock: Friday 15 March 2024, 09:30"
# each launcher button and the process whose window it opens
LAUNCHERS = [
    ("Terminal", "xfce4-terminal"), ("Files", "thunar"), ("Text Editor", "mousepad"),
    ("LibreOffice Writer", "soffice.bin"), ("LibreOffice Calc", "soffice.bin"),
    ("LibreOffice Impress", "soffice.bin"), ("GIMP", "gimp-2.10"),
]  # fmt: skip


@pytest.fixture(scope="module")
def env():
    e = SetOfMarks(gym.make("Crab-Desktop-v0", tasks="v0"))
    yield e
    e.close()


def _desk(env):
    return env.unwrapped.subenvs["ubuntu"]


def _mark(env, name: str):
    return next(m for m in env.marks["ubuntu"] if m.name == name)


def _click(env, name: str):
    return env.step(env.encode_action("ubuntu", "click", {"element": _mark(env, name).id}))


def _wait_active(desk, process: str, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        desk.invalidate_state()
        if desk.state().active_process() == process:
            desk.settle(quiet=0.3, timeout=10.0)
            return True
        time.sleep(0.1)
    return False


def test_every_app_the_tasks_use_has_a_launcher():
    assert [name for name, _, _, launcher, _ in PANEL_APPS if launcher] == [name for name, _ in LAUNCHERS]


def test_clock_is_frozen_to_the_phones_now():
    phone_now = dt.datetime.fromtimestamp(NOW_MS / 1000, dt.timezone.utc).replace(tzinfo=None)
    assert dt.datetime.fromisoformat(DESKTOP_NOW) == phone_now


def test_wallpaper_is_smooth_enough_for_the_region_detector():
    img = draw_wallpaper((1280, 800))
    assert img.shape == (800, 1280, 3) and img.dtype == np.uint8
    assert len({tuple(img[y, x]) for y in (0, 400, 799) for x in (0, 640, 1279)}) > 3, "a picture, not a fill"
    assert detect_regions(img) == []


def test_panel_items_are_marked_at_reset(env):
    obs, info = env.reset(seed=0, options={"task": TASK})
    desk = _desk(env)
    w, h = desk.screen_size
    marks = {m.name: m for m in env.marks["ubuntu"]}
    assert marks["Applications"].role == "toggle button"
    assert {name for name, _ in LAUNCHERS} <= set(marks)
    assert marks[CLOCK].role == "toggle button"
    for m in env.marks["ubuntu"]:
        assert m.source == "atspi" and m.box[1] >= h - PANEL_HEIGHT and m.box[3] <= h, m
    assert any(line.endswith('toggle button "Applications"') for line in info["marks"]["ubuntu"])
    # the picture above the panel is the wallpaper: nothing there to mark
    assert detect_regions(obs["ubuntu"]["screen"][: h - PANEL_HEIGHT - 40]) == []


@pytest.mark.parametrize(
    ("name", "process"),
    [pytest.param(n, p, marks=[pytest.mark.slow] if p == "soffice.bin" else []) for n, p in LAUNCHERS],
)
def test_each_launcher_opens_its_app(env, name, process):
    env.reset(seed=0, options={"task": TASK})
    _click(env, name)
    desk = _desk(env)
    assert _wait_active(desk, process), f"{name} opened no window of {process}"


def test_application_menu_opens_an_app(env):
    env.reset(seed=0, options={"task": TASK})
    _click(env, "Applications")
    items = {m.name: m for m in env.marks["ubuntu"] if m.role == "menu item"}
    assert {name for name, *_ in PANEL_APPS} <= set(items), sorted(items)
    env.step(env.encode_action("ubuntu", "click", {"element": items["Text Editor"].id}))
    assert _wait_active(_desk(env), "mousepad")


def test_window_list_follows_the_windows(env):
    env.reset(seed=0, options={"task": TASK})
    desk = _desk(env)
    desk.open_app("terminal")
    desk.open_app("text_editor")
    env.step(env.unwrapped.wait_action())
    window_buttons = {m.name for m in env.marks["ubuntu"] if m.role == "toggle button"} - {
        "Applications",
        CLOCK,
    }
    titles = {w.title for w in desk.state().windows()}
    assert window_buttons == titles and len(titles) == 2, (window_buttons, titles)
    states = {n["name"]: n["states"] for n in desk.state().a11y() if n["app"] == "crab-panel"}
    active = desk.state().active_window().title
    assert "checked" in states[active] or "pressed" in states[active], states[active]
    other = next(t for t in titles if t != active)
    _click(env, other)
    desk.invalidate_state()
    assert desk.state().active_window().title == other
    env.reset(seed=0, options={"task": TASK})
    assert {m.name for m in env.marks["ubuntu"] if m.role == "toggle button"} == {"Applications", CLOCK}


def test_panel_never_takes_the_focus_and_is_no_application_window(env):
    env.reset(seed=0, options={"task": TASK})
    desk = _desk(env)
    desk.open_app("text_editor")
    env.step(env.unwrapped.wait_action())
    title = desk.state().active_window().title
    check = ev.window_active(title_contains="Mousepad")
    _click(env, CLOCK)
    desk.invalidate_state()
    assert any(n["role"] == "calendar" and "showing" in n["states"] for n in desk.state().a11y())
    assert desk.state().active_window().title == title and check.fn(desk.state(), **check.kwargs)
    env.step(env.encode_action("ubuntu", "press", {"key": "esc"}))
    assert not any(n["role"] == "calendar" and "showing" in n["states"] for n in desk.state().a11y())
    _click(env, "Applications")
    env.step(env.encode_action("ubuntu", "press", {"key": "esc"}))
    desk.invalidate_state()
    assert desk.state().active_window().title == title
    assert [w.wm_class for w in desk.state().windows()] == ["Mousepad"]
    # a maximised window ends where the panel begins
    frame = next(n for n in desk.state().a11y() if n["app"] == "mousepad" and n["role"] == "frame")
    assert frame["box"][1] + frame["box"][3] <= desk.screen_size[1] - PANEL_HEIGHT


def test_reset_brings_back_the_pristine_screen(env):
    obs, _ = env.reset(seed=0, options={"task": TASK})
    desk = _desk(env)
    pristine = desk.screenshot()
    _click(env, CLOCK)
    env.step(env.encode_action("ubuntu", "move", {"point": (0.02, 0.98)}))  # hover Applications
    assert (desk.screenshot() != pristine).any()
    env.reset(seed=0, options={"task": TASK})
    assert (desk.screenshot() == pristine).all(), "the panel or wallpaper differs after reset"


def test_panel_survives_resets_and_is_restarted_when_killed(env):
    env.reset(seed=0, options={"task": TASK})
    session = _desk(env).session
    pid = session.panel.pid
    env.reset(seed=0, options={"task": TASK})
    assert session.panel.pid == pid, "the panel was restarted by a plain reset"
    os.kill(pid, 9)
    session.panel.proc.wait(timeout=10)  # SIGKILL lands asynchronously: reset once the panel is gone
    env.reset(seed=0, options={"task": TASK})
    assert session.panel.pid != pid and session.panel.alive()
    assert "Applications" in {m.name for m in env.marks["ubuntu"]}


def test_neither_xvfb_nor_the_panel_loads_a_gl_driver(env):
    """Xvfb runs without GLX: with it, Xvfb and every GTK client that probes GLX (the panel, the apps) map
    Mesa's software driver and LLVM, about 14 MB of PSS each (docs/scale.md, density)."""
    env.reset(seed=0, options={"task": TASK})
    session = _desk(env).session
    for pid in (session.identity()["xvfb_pid"], session.panel.pid):
        maps = Path(f"/proc/{pid}/maps").read_text()
        assert "_dri.so" not in maps and "libLLVM" not in maps, Path(f"/proc/{pid}/cmdline").read_text()

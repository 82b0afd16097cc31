"""A person's session in a real browser (Playwright + Debian's chromium): solve a phone task and a desktop
task by clicking and typing on the drawn screens, watch the graph pass, find the demonstration on disk, mark
the task and see the mark listed."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from crab_gym.episode import load_episode
from crab_gym.play.review import format_review, load_marks
from crab_gym.play.session import PlayConfig
from crab_gym.tasks import load_tasks

from .conftest import running_server

PHONE_TASK = "contacts_add-0"
DESKTOP_TASK = "terminal_create_folder-0"


def solution(task_id: str):
    return {t.id: t for t in load_tasks("v0")}[task_id].solution()


def wait_steps(page, n: int) -> None:
    page.wait_for_function(f"Number(document.body.dataset.steps) >= {n}", timeout=30_000)


def click_screen(page, device: str, point, button: str = "left", hold_ms: int = 0) -> None:
    """Press on the drawn screen at the normalised point, scaled to the img element's box."""
    box = page.locator(f"#dev-{device} img.screen").bounding_box()
    x, y = box["x"] + point[0] * box["width"], box["y"] + point[1] * box["height"]
    if hold_ms:
        page.mouse.move(x, y)
        page.mouse.down()
        page.wait_for_timeout(hold_ms)
        page.mouse.up()
    else:
        page.mouse.click(x, y, button=button)


def at(page, point, device: str = "ubuntu") -> tuple[float, float]:
    box = page.locator(f"#dev-{device} img.screen").bounding_box()
    return box["x"] + point[0] * box["width"], box["y"] + point[1] * box["height"]


def check_screenshot(path, min_bytes: int = 60_000) -> None:
    assert path.stat().st_size > min_bytes, "the page screenshot is nearly empty"
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.float32)
    assert img.std() > 20, "the page screenshot is flat"


def open_page(browser, base: str, tmp_path):
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/")
    page.wait_for_selector("body[data-episode]", timeout=60_000)
    return page, errors


def test_phone_task_in_the_browser(browser, phone_server, tmp_path):
    base, app, out = phone_server
    page, errors = open_page(browser, base, tmp_path)
    page.wait_for_selector("#dev-android img.screen[data-frames]")
    assert "Dmitri" in page.locator("#instruction").inner_text()
    assert page.locator("#node-list li[data-status=active]").count() == 1
    assert page.locator("#graph g.node").count() == 1
    done = 0
    for step in solution(PHONE_TASK):
        if step.action == "tap":
            click_screen(page, "android", step.params["point"])
        elif step.action == "long_tap":
            click_screen(page, "android", step.params["point"], hold_ms=800)
        elif step.action == "write_text":
            page.keyboard.type(step.params["text"])  # the tapped screen has the keyboard focus
        elif step.action == "press" and step.params["button"] == "home":
            page.locator("#dev-android button", has_text="Home").click()
        else:
            pytest.fail(f"no page gesture for {step}")
        done += 1
        wait_steps(page, done)
    page.wait_for_selector("body[data-done=true][data-success=true]")
    assert page.locator("#node-list li[data-status=passed]").count() == 1
    assert page.locator("#graph g.node.passed").count() == 1
    assert "1/1 checks passed" in page.locator("#ratio").inner_text()
    assert "Success" in page.locator("#banner").inner_text()
    shot = tmp_path / "play-phone.png"
    page.screenshot(path=str(shot), full_page=True)
    check_screenshot(shot)
    assert page.evaluate("document.querySelector('#dev-android img.screen').naturalWidth") > 0

    # the demonstration, in the native format of agent rollouts
    episode_id = page.evaluate("document.body.dataset.episode")
    ep = load_episode(out / episode_id)
    assert ep.complete and ep.meta["task_id"] == PHONE_TASK
    assert ep.meta["record"]["success"] and ep.meta["termination_reason"] == "success"
    names = [s["readable"]["action"] for s in ep.actions]
    assert names == [s.action for s in solution(PHONE_TASK)]
    typed = [s["readable"]["params"]["text"] for s in ep.actions if s["readable"]["action"] == "write_text"]
    assert typed == ["Dmitri", "555-172-3208"]
    assert ep.screen(len(ep.actions), "android").shape == (2400, 1080, 3)

    # validation: mark the task, then the review lists it
    page.locator("input[name=verdict][value=unclear]").check()
    page.locator("#mark-note").fill("which contact app field holds the number?")
    page.locator("#mark-save").click()
    page.wait_for_selector("body[data-marked=unclear]")
    marks = [m for m in load_marks(out) if m["episode_id"] == episode_id]
    assert [(m["task_id"], m["verdict"], m["success"]) for m in marks] == [(PHONE_TASK, "unclear", True)]
    assert PHONE_TASK in format_review(load_marks(out), unclear_only=True)
    assert not errors, errors
    page.close()


def logged(page) -> list[str]:
    """The page's actions in its log, oldest first."""
    return [t for t in page.locator("#log li").all_inner_texts()[::-1] if not t.startswith("episode ")]


def drag(page, device: str, start, end) -> None:
    box = page.locator(f"#dev-{device} img.screen").bounding_box()
    at = [(box["x"] + p[0] * box["width"], box["y"] + p[1] * box["height"]) for p in (start, end)]
    page.mouse.move(*at[0])
    page.mouse.down()
    page.mouse.move(*at[1], steps=8)
    page.mouse.up()


def wheel(page, device: str, point, dy: float) -> None:
    box = page.locator(f"#dev-{device} img.screen").bounding_box()
    page.mouse.move(box["x"] + point[0] * box["width"], box["y"] + point[1] * box["height"])
    page.mouse.wheel(0, dy)


def check_actions(page, episode_dir, expected) -> None:
    """The page logged, and the episode recorded, exactly the ``expected`` (device, action, params);
    ``page`` None: the episode only (its page is closed)."""
    if page is not None:
        assert [line.split("(")[0] for line in logged(page)] == [f"{d}.{a}" for d, a, _ in expected]
    ep = load_episode(episode_dir)
    got = [(s["readable"]["device"], s["readable"]["action"], s["readable"]["params"]) for s in ep.actions]
    assert len(got) == len(expected), got
    for (device, action, params), want in zip(got, expected, strict=True):
        assert (device, action) == want[:2]
        assert params.keys() == want[2].keys(), (action, params)
        for key, value in want[2].items():
            if isinstance(value, tuple):  # a point: where the mouse was, to a pixel
                assert params[key] == pytest.approx(list(value), abs=0.01), (action, key, params[key])
            else:
                assert params[key] == value, (action, key, params[key])


def test_phone_gestures_keys_and_root_buttons(browser, phone_server, tmp_path):
    base, app, out = phone_server
    page, errors = open_page(browser, base, tmp_path)
    page.wait_for_selector("#dev-android img.screen[data-frames]")
    button = page.locator
    gestures = [
        (
            lambda: click_screen(page, "android", (0.5, 0.5), button="right"),
            "long_tap",
            {"point": (0.5, 0.5)},
        ),
        (lambda: click_screen(page, "android", (0.25, 0.5), hold_ms=800), "long_tap", {"point": (0.25, 0.5)}),
        (
            lambda: drag(page, "android", (0.5, 0.8), (0.5, 0.3)),
            "swipe",
            {"direction": "up", "distance": "long"},
        ),
        (
            lambda: drag(page, "android", (0.3, 0.5), (0.45, 0.5)),
            "swipe",
            {"direction": "right", "distance": "short"},
        ),  # fmt: skip
        (lambda: wheel(page, "android", (0.5, 0.5), 100), "swipe", {"direction": "up", "distance": "short"}),
        (lambda: page.keyboard.press("Escape"), "press", {"button": "back"}),
        (lambda: page.keyboard.press("Enter"), "press", {"button": "enter"}),
        (lambda: (page.keyboard.type("hi"), page.keyboard.press("Enter")), "write_text", {"text": "hi\n"}),
        (lambda: button("#dev-android button", has_text="Apps").click(), "open_app_drawer", {}),
        (lambda: button("#dev-android button", has_text="Back").click(), "press", {"button": "back"}),
        (lambda: button("#root-wait").click(), "wait", {"seconds": 1}),
        (lambda: button("#root-complete").click(), "complete", {}),
    ]
    for n, (gesture, *_) in enumerate(gestures, 1):
        gesture()
        wait_steps(page, n)
    page.wait_for_selector("body[data-done=true][data-success=false]")
    assert "false_completion" in page.locator("#banner").inner_text()
    assert page.locator("#node-list li[data-status=active]").count() == 1
    expected = [("root" if a in ("wait", "complete") else "android", a, p) for _, a, p in gestures]
    check_actions(page, out / page.evaluate("document.body.dataset.episode"), expected)
    assert not errors, errors
    page.close()


@pytest.mark.slow
def test_desktop_task_in_the_browser(browser, tmp_path):
    out = tmp_path / "play"
    config = PlayConfig(
        tasks="v0",
        task=DESKTOP_TASK,
        devices=("ubuntu", "android"),
        out=out,
        max_sessions=1,
        frame_interval=0.3,
    )
    steps = solution(DESKTOP_TASK)
    assert [s.action for s in steps] == ["search_application", "write_text"]
    with running_server(config) as (base, app):
        page, errors = open_page(browser, base, tmp_path)
        page.wait_for_selector("#dev-ubuntu img.screen[data-frames]")
        page.wait_for_selector("#dev-android img.screen[data-frames]")
        page.locator("#dev-ubuntu input.app-name").fill(steps[0].params["name"])
        page.locator("#dev-ubuntu button", has_text="Open app").click()
        wait_steps(page, 1)
        page.locator("#dev-ubuntu .device-head").click()  # the desktop's panel takes the keys
        text = steps[1].params["text"]
        assert text.endswith("\n")
        page.keyboard.type(text[:-1])
        page.keyboard.press("Enter")
        wait_steps(page, 2)
        page.wait_for_selector("body[data-done=true][data-success=true]")
        assert page.locator("#graph g.node.passed").count() == 1
        page.wait_for_timeout(600)  # the terminal's last frame reaches the page
        shot = tmp_path / "play-desktop.png"
        page.screenshot(path=str(shot), full_page=True)
        check_screenshot(shot)
        episode_id = page.evaluate("document.body.dataset.episode")

        # every desktop gesture becomes its named action, in a new episode
        page.locator("#new-episode").click()
        page.wait_for_function(f"document.body.dataset.episode !== {episode_id!r}")
        second = page.evaluate("document.body.dataset.episode")
        page.locator("#log").evaluate("log => log.replaceChildren()")  # only this episode's actions
        gestures = [
            (lambda: click_screen(page, "ubuntu", (0.5, 0.5)), [("click", {"point": (0.5, 0.5)})]),
            (lambda: page.mouse.dblclick(*at(page, (0.3, 0.3))), [("double_click", {"point": (0.3, 0.3)})]),
            (
                lambda: click_screen(page, "ubuntu", (0.6, 0.6), button="right"),
                [("right_click", {"point": (0.6, 0.6)})],
            ),  # fmt: skip
            (lambda: page.keyboard.press("Escape"), [("press", {"key": "esc"})]),
            (
                lambda: drag(page, "ubuntu", (0.2, 0.2), (0.4, 0.4)),
                [("drag", {"start": (0.2, 0.2), "end": (0.4, 0.4)})],
            ),  # fmt: skip
            (
                lambda: wheel(
                    page, "ubuntu", (0.5, 0.5), 300
                ),  # the pointer goes there, then the wheel turns
                [("move", {"point": (0.5, 0.5)}), ("scroll", {"direction": "down", "amount": 3})],
            ),  # fmt: skip
            (lambda: page.keyboard.press("Control+a"), [("hotkey", {"keys": ["ctrl", "a"]})]),
            (lambda: page.keyboard.press("Shift+Tab"), [("hotkey", {"keys": ["shift", "tab"]})]),
            (lambda: page.keyboard.press("F5"), [("press", {"key": "f5"})]),
        ]
        expected = []
        for gesture, actions in gestures:
            gesture()
            expected += [("ubuntu", a, p) for a, p in actions]
            wait_steps(page, len(expected))
        assert [line.split("(")[0] for line in logged(page)] == [f"{d}.{a}" for d, a, _ in expected]
        assert not errors, errors
        page.close()  # the session ends: its unfinished episode is recorded as incomplete
    check_actions(None, out / second, expected)
    ep = load_episode(out / episode_id)
    assert ep.complete and ep.meta["record"]["success"]
    assert [(s["readable"]["action"], s["readable"]["params"]) for s in ep.actions] == [
        (s.action, s.params) for s in steps
    ]
    assert set(ep.devices) == {"ubuntu", "android"}

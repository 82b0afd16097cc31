"""Mouse buttons and keys held across steps on the desktop (issue 23): what they do to the next steps, read
back from the apps, and that a reset releases them, read back from the X server."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from Xlib import XK, X

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers import ActionDialect


@pytest.fixture(scope="module")
def env():
    base = gym.make("Crab-Desktop-v0", tasks=["terminal_create_folder-0"], max_steps=40)
    yield base
    base.close()


def _editor(env) -> object:
    """A fresh episode with mousepad open and focused; the desktop sub-env."""
    env.reset(seed=0, options={"task": "terminal_create_folder-0"})
    desk = env.unwrapped.subenvs["ubuntu"]
    assert desk.launch_from_launcher("text editor") == "window"
    return desk


def _primary(desk) -> str:
    return desk.session.run(["xclip", "-o", "-selection", "primary"]).stdout.decode()


def test_a_drag_in_three_steps_selects_text(env):
    """left_mouse_down, mouse_move and left_mouse_up in separate steps: the move drags, selecting text."""
    desk = _editor(env)
    desk.execute(desk.action("write_text"), {"text": "alpha\n\nzzz"})
    desk.settle()
    agent = ActionDialect(env, "anthropic")
    (x1, y1, x2, _), (w, h) = next(e for e in desk.ui_elements() if e.role == "text").box, desk.screen_size
    sw, sh = agent.context.screens["ubuntu"].shown

    def at(x: int, y: int) -> list[int]:
        return [round(x * sw / w), round(y * sh / h)]

    steps = [
        {"action": "mouse_move", "coordinate": at(x1 + 2, y1 + 10)},
        {"action": "left_mouse_down"},
        {"action": "mouse_move", "coordinate": at(x2 - 20, y1 + 10)},
        {"action": "left_mouse_up"},
    ]
    for step in steps:
        _, _, _, _, info = agent.step(json.dumps(step))
        assert "invalid_action" not in info and "error" not in info, info
    assert _primary(desk) == "alpha"


def test_shift_held_across_steps_makes_the_next_letter_upper_case(env):
    desk = _editor(env)
    agent = ActionDialect(env, "pyautogui")
    for code in ["pyautogui.keyDown('shift')", "pyautogui.press('a')", "pyautogui.keyUp('shift')",
                 "pyautogui.press('b')"]:  # fmt: skip
        _, _, _, _, info = agent.step(code)
        assert "invalid_action" not in info and "error" not in info, info
    desk.settle()
    assert desk.state().a11y_texts("mousepad") == ["Ab"]


def test_a_click_while_shift_is_held_is_a_shift_click(env):
    """key_down shift, a click step, key_up shift: the click extends the selection from the caret."""
    desk = _editor(env)
    desk.execute(desk.action("write_text"), {"text": "alpha" + " " * 40 + "omega"})
    desk.settle()
    (x1, y1, _, _), (w, h) = next(e for e in desk.ui_elements() if e.role == "text").box, desk.screen_size
    desk.execute(desk.action("click"), {"point": ((x1 + 2) / w, (y1 + 10) / h)})  # the caret at the start
    desk.execute(desk.action("key_down"), {"key": "shift"})
    desk.execute(desk.action("click"), {"point": ((x1 + 700) / w, (y1 + 10) / h)})  # past the line's end
    desk.execute(desk.action("key_up"), {"key": "shift"})
    desk.settle()
    assert _primary(desk) == "alpha" + " " * 40 + "omega"


@pytest.mark.parametrize("dialect", ["anthropic", "pyautogui"])
def test_a_shift_click_through_a_dialect_extends_the_selection(env, dialect):
    """The anthropic tool's click with text="shift", pyautogui's keyDown/click/keyUp: key_down, the click,
    key_up, and nothing stays held."""
    desk = _editor(env)
    desk.execute(desk.action("write_text"), {"text": "alpha" + " " * 40 + "omega"})
    desk.settle()
    agent = ActionDialect(env, dialect)
    (x1, y1, _, _), (w, h) = next(e for e in desk.ui_elements() if e.role == "text").box, desk.screen_size
    sw, sh = agent.context.screens["ubuntu"].shown
    desk.execute(desk.action("click"), {"point": ((x1 + 2) / w, (y1 + 10) / h)})  # the caret at the start
    x, y = round((x1 + 700) * sw / w), round((y1 + 10) * sh / h)  # past the line's end
    text = (
        json.dumps({"action": "left_click", "coordinate": [x, y], "text": "shift"})
        if dialect == "anthropic"
        else f"pyautogui.keyDown('shift')\npyautogui.click({x}, {y})\npyautogui.keyUp('shift')"
    )
    _, _, _, _, info = agent.step(text)
    assert "invalid_action" not in info and "error" not in info, info
    assert [a["name"] for a in info["dialect"]["actions"]] == ["key_down", "click", "key_up"]
    desk.settle()
    assert _primary(desk) == "alpha" + " " * 40 + "omega"
    assert _held(desk) == (False, False)


def test_hold_key_holds_within_one_step(env):
    desk = _editor(env)
    agent = ActionDialect(env, "anthropic")
    _, _, _, _, info = agent.step(json.dumps({"action": "hold_key", "text": "shift", "duration": 1}))
    names = [a["name"] for a in info["dialect"]["actions"]]
    assert names == ["key_down", "wait", "key_up"]
    assert _held(desk) == (False, False)


def _held(desk) -> tuple[bool, bool]:
    """(left button down, left ctrl or shift down) as the X server has them now."""
    d = desk.x._d  # the session's own connection: the X server's view of the pointer and keyboard
    mask = d.screen().root.query_pointer().mask
    keymap = d.query_keymap()
    codes = [d.keysym_to_keycode(k) for k in (XK.XK_Control_L, XK.XK_Shift_L)]
    return bool(mask & X.Button1Mask), any(keymap[c // 8] & (1 << (c % 8)) for c in codes)


def test_reset_releases_what_is_held(env):
    desk = _editor(env)
    desk.execute(desk.action("key_down"), {"key": "ctrl"})
    desk.execute(desk.action("mouse_down"), {"mouse_button": "left"})
    assert _held(desk) == (True, True)
    env.reset(seed=0, options={"task": "terminal_create_folder-0"})
    assert _held(desk) == (False, False)


@pytest.mark.parametrize(
    ("dialect", "name", "params"),
    [
        ("anthropic", "mouse_down", {"mouse_button": "left"}),
        ("anthropic", "mouse_up", {"mouse_button": "left"}),
        ("pyautogui", "mouse_down", {"mouse_button": "right"}),
        ("pyautogui", "mouse_up", {"mouse_button": "left"}),
        ("pyautogui", "key_down", {"key": "shift"}),
        ("pyautogui", "key_up", {"key": "ctrl"}),
    ],
)
def test_holds_translate_and_read_back(env, dialect, name, params):
    agent = ActionDialect(env, dialect)
    plan = [p for text in agent.translate("ubuntu", name, params) for p in agent.parse(text)]
    assert [(p.name, p.params) for p in plan] == [(name, params)]


def test_what_a_format_cannot_hold_is_refused_with_a_reason(env):
    agent = ActionDialect(env, "anthropic")
    with pytest.raises(InvalidAction, match="no key_down"):
        agent.translate("ubuntu", "key_down", {"key": "shift"})
    with pytest.raises(InvalidAction, match="duration"):
        agent.parse(json.dumps({"action": "hold_key", "text": "shift", "duration": 11}))

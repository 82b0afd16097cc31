"""ActionDialect's parsers: valid and malformed inputs from each format's documentation (phone and desktop),
and each format's particulars (keys, holds, scaling, devices, tool specs). The host and the fuzz:
test_dialect_fuzz.py; the round trip of v0: test_action_dialect.py."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers import ActionDialect

# ---- parser tables: valid and malformed inputs in each format's documented shape -------------------------

VALID = {
    "anthropic": [
        ('{"action": "left_click", "coordinate": [540, 1200]}', [("android", "tap")]),
        (
            '{"type": "tool_use", "name": "computer", "input": {"action": "type", "text": "hi"}}',
            [("android", "write_text")],
        ),
        ('{"action": "key", "text": "Return"}', [("android", "press")]),
        ('{"action": "key", "text": "Return Escape"}', [("android", "press"), ("android", "press")]),
        (
            '{"action": "scroll", "coordinate": [540, 1200], "scroll_direction": "down", "scroll_amount": 5}',
            [("android", "swipe")],
        ),
        (
            '{"action": "left_click_drag", "start_coordinate": [540, 1200], "coordinate": [540, 1200]}',
            [("android", "long_tap")],
        ),
        ('[{"action": "mouse_move", "coordinate": [10, 10]}]', "move is not supported on 'android'"),
        ('{"action": "screenshot"}', [("root", "wait")]),
        ('{"action": "wait", "duration": 2}', [("root", "wait")]),
        ('{"content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"}', [("root", "submit")]),
        ('{"type": "tool_use", "name": "ask_user", "input": {"question": "Who?"}}', [("root", "ask_user")]),
    ],
    "openai": [
        ('{"type": "click", "button": "left", "x": 540, "y": 1200}', [("android", "tap")]),
        ('{"type": "computer_call", "action": {"type": "type", "text": "hi"}}', [("android", "write_text")]),
        ('{"type": "keypress", "keys": ["ENTER"]}', [("android", "press")]),
        ('{"type": "scroll", "x": 540, "y": 1200, "scroll_x": 0, "scroll_y": 300}', [("android", "swipe")]),
        ('{"type": "drag", "path": [{"x": 5, "y": 5}, {"x": 5, "y": 5}]}', [("android", "long_tap")]),
        ('{"type": "wait"}', [("root", "wait")]),
        ('{"type": "message", "content": []}', [("root", "complete")]),
        (
            '{"type": "function_call", "name": "ask_user", "arguments": "{\\"question\\": \\"Who?\\"}"}',
            [("root", "ask_user")],
        ),
    ],
    "uitars": [
        (
            "Thought: tap it\nAction: click(start_box='<|box_start|>(500,500)<|box_end|>')",
            [("android", "tap")],
        ),
        ("Action: long_press(start_box='(100,200,300,400)')", [("android", "long_tap")]),
        ("Action: type(content='hello\\n')", [("android", "write_text")]),
        ("Action: scroll(start_box='[1, 1, 9, 9]', direction='down')", [("android", "swipe")]),
        ("Action: press_home()", [("android", "press")]),
        ("Action: click(point='<point>500 500</point>')", [("android", "tap")]),
        ("Action: open_app(app_name='Contacts')", [("android", "open_app_drawer"), ("android", "tap")]),
        ("Action: finished()", [("root", "complete")]),
        ("Action: wait()", [("root", "wait")]),
    ],
    "pyautogui": [
        ("pyautogui.click(540, 1200)", [("android", "tap")]),
        (
            "```python\nimport pyautogui\npyautogui.write('hi')\npyautogui.press('enter')\n```",
            [("android", "write_text"), ("android", "press")],
        ),
        (
            "pyautogui.mouseDown(10, 10)\ntime.sleep(0.8)\npyautogui.mouseUp(10, 10)",
            [("android", "long_tap")],
        ),
        ("pyautogui.scroll(-5, 540, 1200)", [("android", "swipe")]),
        ("WAIT", [("root", "wait")]),
        ("pyautogui.keyDown('enter')\npyautogui.keyUp('enter')", [("android", "press")]),
        ("DONE", [("root", "complete")]),
        ("time.sleep(2)", [("root", "wait")]),
        ("pyautogui.leftClick(540, 1200)\npyautogui.sleep(2)", [("android", "tap"), ("root", "wait")]),
        ("answer('42')", [("root", "submit")]),
        ("ask_user('Who is my boss?')", [("root", "ask_user")]),
    ],
    "androidworld": [
        ('{"action_type": "click", "x": 540, "y": 1200}', [("android", "tap")]),
        ('{"action_type": "click", "index": 0}', [("android", "tap")]),
        ('{"action_type": "input_text", "text": "hi", "index": 0}', [("android", "write_text")]),
        ('{"action_type": "keyboard_enter"}', [("android", "press")]),
        ('{"action_type": "navigate_back"}', [("android", "press")]),
        ('{"action_type": "scroll", "direction": "down"}', [("android", "swipe")]),
        (
            'Reason: done. Action: {"action_type": "status", "goal_status": "complete"}',
            [("root", "complete")],
        ),
        ('{"action_type": "answer", "text": "42"}', [("root", "submit")]),
    ],
}

MALFORMED = {
    "anthropic": [
        ('{"action": "fly"}', "unknown action 'fly'"),
        ('{"action": "left_click", "coordinate": [99999, 5]}', "outside the"),
        ('{"action": "hold_key", "text": "shift", "duration": 1}', "hold_key is not supported"),
        ('{"action": "left_mouse_down"}', "holding the button across steps is not supported"),
        ('{"action": "scroll", "scroll_direction": "sideways"}', "scroll_direction"),
        ('{"action": "key", "text": "Hyper_Q"}', "has no key 'Hyper_Q'"),
        (
            '{"action": "left_click", "coordinate": [5, 5], "text": "shift"}',
            "with keys held is not supported",
        ),
        ("click the button", "no JSON action found"),
        ('{"type": "tool_use", "name": "bash", "input": {"command": "ls"}}', "unknown tool 'bash'"),
    ],
    "openai": [
        ('{"type": "click", "button": "back", "x": 1, "y": 1}', "button 'back' is not supported"),
        ('{"type": "click", "x": 1}', 'needs "x" and "y"'),
        ('{"type": "drag", "path": [{"x": 1, "y": 1}]}', "at least 2 points"),
        ('{"type": "keypress", "keys": "enter"}', "'keys' has the wrong type"),
        ('{"type": "teleport"}', "unknown action type"),
        ('{"type": "function_call", "name": "shell", "arguments": "{}"}', "unknown function 'shell'"),
        ('{"type": "function_call", "name": "ask_user", "arguments": "{oops"}', "a JSON object in a string"),
    ],
    "uitars": [
        ("Action: click(start_box='(5)')", "start_box is '(x,y)'"),
        ("Action: call_user()", "put the question in the Thought"),
        ("Action: click(start_box=__import__('os'))", "a call refused"),
        ("Action: os.system('ls')", "call of 'os.system' refused"),
        ("Action: scroll(start_box='(1,1)', direction='diagonal')", "direction is up, down"),
        ("Action: click(start_box='(1,1)'", "not valid Python"),
    ],
    "pyautogui": [
        ("import os\nos.system('touch /tmp/x')", "import of 'os' refused"),
        ("open('/etc/passwd').read()", "attribute chain"),
        ("eval('1')", "call of 'eval' refused"),
        ("x = 5", "an assignment refused"),
        ("[pyautogui.click(i, i) for i in range(3)]", "a comprehension refused"),
        ("pyautogui.click(x, 10)", "a variable refused"),
        ("os.path.join('a', 'b')", "attribute chain 'os.path.join' refused"),
        ("\n".join(["pyautogui.press('a')"] * 40), "more than 32 calls"),
        ("pyautogui.keyDown('shift')", "without keyUp"),
        ("pyautogui.click(1, 1, button='middle')", "middle_click is not supported"),
        (
            "pyautogui.keyDown('shift')\npyautogui.click(5, 5)\npyautogui.keyUp('shift')",
            "held (shift) is not",
        ),
        ("answer(42)", "the text is a non-empty string"),
    ],
    "androidworld": [
        ('{"action_type": "click", "index": 9999}', "no element 9999"),
        ('{"action_type": "double_tap", "index": 0}', "double_tap is not supported"),
        ('{"action_type": "status", "goal_status": "maybe"}', "goal_status"),
        ('{"action_type": "open_app"}', "'app_name' is required"),
        ('{"action_type": "click"}', 'give an element "index"'),
    ],
}


U = "ubuntu"
DESKTOP_VALID = {  # the desktop's side of each format's documented actions (the phone's are above)
    "anthropic": [
        ('{"action": "triple_click", "coordinate": [640, 400]}', [(U, "triple_click")]),
        ('{"action": "middle_click", "coordinate": [640, 400]}', [(U, "middle_click")]),
        ('{"action": "double_click", "coordinate": [640, 400]}', [(U, "double_click")]),
        ('{"action": "right_click", "coordinate": [640, 400]}', [(U, "right_click")]),
        ('{"action": "mouse_move", "coordinate": [640, 400]}', [(U, "move")]),
        ('{"action": "cursor_position"}', [("root", "wait")]),
        ('{"action": "hold_key", "text": "shift", "duration": 1}',
         [(U, "key_down"), ("root", "wait"), (U, "key_up")]),
        ('{"action": "left_mouse_down"}', [(U, "mouse_down")]),
        ('{"action": "left_mouse_up"}', [(U, "mouse_up")]),
        ('{"action": "key", "text": "ctrl+shift+t"}', [(U, "hotkey")]),
        ('{"action": "scroll", "coordinate": [640, 400], "scroll_direction": "left", "scroll_amount": 3}',
         [(U, "move"), (U, "scroll")]),
        ('{"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [50, 50]}',
         [(U, "drag")]),
    ],
    "openai": [
        ('{"type": "double_click", "x": 640, "y": 400}', [(U, "double_click")]),
        ('{"type": "move", "x": 640, "y": 400}', [(U, "move")]),
        ('{"type": "screenshot"}', [("root", "wait")]),
        ('{"type": "click", "button": "right", "x": 640, "y": 400}', [(U, "right_click")]),
        ('{"type": "click", "button": "wheel", "x": 640, "y": 400}', [(U, "middle_click")]),
        ('{"type": "scroll", "x": 640, "y": 400, "scroll_x": -200, "scroll_y": 0}',
         [(U, "move"), (U, "scroll")]),
        ('{"type": "keypress", "keys": ["CTRL", "S"]}', [(U, "hotkey")]),
        ('{"type": "drag", "path": [{"x": 10, "y": 10}, {"x": 30, "y": 20}, {"x": 50, "y": 50}]}',
         [(U, "drag")]),
    ],
    "uitars": [
        ("Action: left_double(start_box='(500,500)')", [(U, "double_click")]),
        ("Action: right_single(start_box='(500,500)')", [(U, "right_click")]),
        ("Action: drag(start_box='(100,100)', end_box='(500,500)')", [(U, "drag")]),
        ("Action: hotkey(key='ctrl c')", [(U, "hotkey")]),
        ("Action: type(content='hi\\n')", [(U, "write_text")]),
        ("Action: scroll(start_box='(500,500)', direction='up')", [(U, "move"), (U, "scroll")]),
        ("Action: open_app(app_name='terminal')", [(U, "search_application")]),
        ("Action: finished(content='42')", [("root", "submit")]),
    ],
    "pyautogui": [
        ("pyautogui.doubleClick(640, 400)", [(U, "double_click")]),
        ("pyautogui.rightClick(640, 400)", [(U, "right_click")]),
        ("pyautogui.moveTo(640, 400)\npyautogui.dragTo(100, 100, duration=0.5)", [(U, "move"), (U, "drag")]),
        ("pyautogui.tripleClick(640, 400)", [(U, "triple_click")]),
        ("pyautogui.hscroll(3, 640, 400)", [(U, "move"), (U, "scroll")]),
        ("pyautogui.typewrite(['a', 'enter'])", [(U, "press"), (U, "press")]),
        ("pyautogui.hotkey('ctrl', 'c')", [(U, "hotkey")]),
        ("pyautogui.press('enter', presses=2)", [(U, "press"), (U, "press")]),
        ("pyautogui.click(640, 400, clicks=2)", [(U, "double_click")]),
        ("pyautogui.click(x=640, y=400, button='right')", [(U, "right_click")]),
        ("pyautogui.keyDown('shift')", [(U, "key_down")]),
        ("pyautogui.keyUp('shift')", [(U, "key_up")]),
        ("FAIL", [("root", "complete")]),
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def desktop_parsers():
    envs = {
        d: ActionDialect(gym.make("Crab-Desktop-v0", tasks="v0"), d) for d in DESKTOP_VALID
    }  # never reset
    yield envs
    for env in envs.values():
        env.close()


@pytest.mark.parametrize(
    "dialect, text, want", [(d, t, w) for d, rows in DESKTOP_VALID.items() for t, w in rows]
)
def test_documented_desktop_inputs_parse(desktop_parsers, dialect, text, want):
    assert _names(desktop_parsers[dialect], text) == want


def _names(env: ActionDialect, text: str) -> list[tuple[str, str]]:
    return [(p.device, p.name) for p in env.parse(text)]


@pytest.mark.parametrize("dialect, text, want", [(d, t, w) for d, rows in VALID.items() for t, w in rows])
def test_documented_inputs_parse(phone_parsers, dialect, text, want):
    env = phone_parsers[dialect]
    if isinstance(want, str):
        with pytest.raises(InvalidAction, match=want):
            env.parse(text)
    else:
        assert _names(env, text) == want


@pytest.mark.parametrize(
    "dialect, text, reason", [(d, t, r) for d, rows in MALFORMED.items() for t, r in rows]
)
def test_malformed_inputs_are_invalid_with_reasons(phone_parsers, dialect, text, reason):
    with pytest.raises(InvalidAction) as err:
        phone_parsers[dialect].parse(text)
    assert reason in str(err.value), str(err.value)


def test_an_invalid_step_touches_nothing(phone_parsers):
    env = phone_parsers["pyautogui"]
    screen = env.unwrapped.subenvs["android"].screenshot().copy()
    _, reward, terminated, truncated, info = env.step("pyautogui.click(1, 1)\nimport os")
    assert reward == 0 and not terminated and not truncated and info["actions"] == 0
    assert "import of 'os' refused" in info["invalid_action"]
    assert np.array_equal(screen, env.unwrapped.subenvs["android"].screenshot())


def test_several_calls_are_several_env_steps_with_rewards_summed(phone_parsers):
    env = phone_parsers["pyautogui"]
    _, info = env.reset(seed=0, options={"task": "contacts_add-0"})
    steps = info["steps"]
    _, _, _, _, info = env.step("WAIT\nWAIT\nWAIT")
    assert info["steps"] == steps + 3 and info["dialect"]["env_steps"] == 3


@pytest.mark.parametrize("dialect, text", [
    ("uitars", "Action: open_app(app_name='Contacts')"),
    ("androidworld", '{"action_type": "open_app", "app_name": "Contacts"}'),
])  # fmt: skip
def test_open_app_opens_it_from_the_drawer(phone_parsers, dialect, text):
    env = phone_parsers[dialect]
    env.reset(seed=0, options={"task": "contacts_add-0"})
    _, _, _, _, info = env.step(text)
    assert [a["name"] for a in info["dialect"]["actions"]] == ["open_app_drawer", "tap"]
    assert "contacts" in (env.unwrapped.subenvs["android"].state().foreground_package() or "")
    _, _, _, _, info = env.step(text.replace("Contacts", "Nope"))
    assert "no app named 'Nope'" in info["invalid_action"]


def test_elements_are_what_indices_point_at(phone_parsers):
    env = phone_parsers["androidworld"]
    env.reset(seed=0, options={"task": "contacts_add-0"})
    first = env.elements("android")[0]
    x1, y1, x2, y2 = first["box"]
    (plan,) = env.parse('{"action_type": "click", "index": 0}')
    w, h = env.unwrapped.subenvs["android"].screen_size
    assert plan.params["point"] == pytest.approx(((x1 + x2) / 2 / w, (y1 + y2) / 2 / h), abs=1e-3)


@pytest.mark.parametrize("dialect, text, keys", [
    ("openai", '{"type": "keypress", "keys": ["CTRL", "A"]}', ["ctrl", "a"]),
    ("anthropic", '{"action": "key", "text": "ctrl+A"}', ["ctrl", "shift", "a"]),  # xdotool's A is shift+a
    ("pyautogui", "pyautogui.hotkey('ctrl', 'shift', 't')", ["ctrl", "shift", "t"]),
    ("uitars", "Action: hotkey(key='ctrl s')", ["ctrl", "s"]),
])  # fmt: skip
def test_key_names_follow_each_format(dialect, text, keys):
    env = ActionDialect(gym.make("Crab-Desktop-v0", tasks="v0"), dialect)  # never reset: parsing only
    try:
        (plan,) = env.parse(text)
        assert plan.params["keys"] == keys
    finally:
        env.close()


@pytest.mark.parametrize("dialect, text, what", [
    ("anthropic", '{"action": "left_click", "coordinate": [640, 400], "text": "shift"}', "click"),
    ("anthropic", '{"action": "scroll", "coordinate": [640, 400], "scroll_direction": "up", "text": "ctrl"}',
     "scroll"),
    ("pyautogui", "pyautogui.keyDown('shift')\npyautogui.click(640, 400)\npyautogui.keyUp('shift')", "click"),
    ("pyautogui", "pyautogui.keyDown('ctrl')\npyautogui.scroll(2, 6, 4)\npyautogui.keyUp('ctrl')", "scroll"),
])  # fmt: skip
def test_a_click_or_scroll_with_keys_held_holds_them_around_it_on_the_desktop(dialect, text, what):
    env = ActionDialect(gym.make("Crab-Desktop-v0", tasks="v0"), dialect)  # never reset: parsing only
    try:
        plan = [(p.name, p.params.get("key")) for p in env.parse(text)]
        key = "shift" if what == "click" else "ctrl"
        moved = [("move", None)] if what == "scroll" else []
        assert plan == [("key_down", key), *moved, (what, None), ("key_up", key)]
    finally:
        env.close()


@pytest.mark.parametrize("dialect", ["openai", "uitars"])
def test_a_triple_click_is_a_click_and_select_all_where_the_format_has_none(dialect):
    env = ActionDialect(gym.make("Crab-Desktop-v0", tasks="v0"), dialect)  # never reset: parsing only
    try:
        texts = env.translate("ubuntu", "triple_click", {"point": (0.5, 0.5)})
        plans = [p for text in texts for p in env.parse(text)]
        assert [(p.name, p.params.get("keys")) for p in plans] == [("click", None), ("hotkey", ["ctrl", "a"])]
    finally:
        env.close()


def test_coordinates_scale_back_from_small_frames():
    env = ActionDialect(gym.make("Crab-Android-v0", tasks="v0", obs_size=(108, 240)), "anthropic")
    try:
        (plan,) = env.parse('{"action": "left_click", "coordinate": [54, 120]}')
        assert plan.params["point"] == pytest.approx((54.5 / 108, 120.5 / 240))
    finally:
        env.close()


def test_multi_device_env_needs_the_device_named():
    env = ActionDialect(gym.make("Crab-v0", tasks="v0"), "uitars")  # never reset: parsing needs no device
    try:
        with pytest.raises(InvalidAction, match="several devices"):
            env.parse("Action: click(start_box='(5,5)')")
        assert _names(env, "Action: click(start_box='(5,5)', device='android')") == [("android", "tap")]
        assert _names(env, "Action: click(start_box='(5,5)', device='ubuntu')") == [("ubuntu", "click")]
    finally:
        env.close()


def test_tool_specs_carry_display_sizes(phone_parsers):
    spec = phone_parsers["anthropic"].tool_spec()["tools"][0]
    assert (spec["display_width_px"], spec["display_height_px"]) == (1080, 2400)
    assert phone_parsers["openai"].tool_spec()["tools"][0]["display_width"] == 1080
    assert "open_app(app_name=" in phone_parsers["uitars"].tool_spec()["prompt"]
    assert '"action_type": "click"' in phone_parsers["androidworld"].tool_spec()["prompt"]

"""ActionDialect: v0 solved through every dialect (the oracle's actions translated), parser tables from each
format's documentation, a fuzz of any string, and code that never reaches the host."""

from __future__ import annotations

import functools
import importlib
import json
import os

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crab_gym  # noqa: F401
from crab_gym.core.actions import InvalidAction
from crab_gym.tasks import Task, load_tasks
from crab_gym.tasks.generator import SAMPLERS
from crab_gym.tasks.templates.desktop import CRAB_ONLY as CRAB_TEMPLATES
from crab_gym.wrappers import ActionDialect

DIALECTS = ["anthropic", "openai", "uitars", "pyautogui", "androidworld"]
V0 = load_tasks("v0")
V0_ANDROID = [t.id for t in V0 if set(t.platforms) <= {"android", "root"}]
V0_DESKTOP = [t.id for t in V0 if set(t.platforms) <= {"ubuntu", "root"}]
V0_CROSS = [t.id for t in V0 if {"ubuntu", "android"} <= set(t.platforms)]
PHONE_SLICE = ["contacts_add-0", "files_delete-0", "settings_dark_theme-0"]
DESKTOP_SLICE = ["terminal_create_folder-0"]


def phone_env(dialect: str, **kw) -> ActionDialect:
    env = ActionDialect(gym.make("Crab-Android-v0", tasks="v0", max_steps=120, **kw), dialect)
    env.unwrapped.subenvs["root"].time_scale = 0.0  # the simulated phone reacts at once
    return env


def solve(env: ActionDialect, task_id: str) -> dict:
    """Play the task's scripted solution, each action translated into the dialect, then complete."""
    _, info = env.reset(seed=0, options={"task": task_id})
    steps = [(s.env, s.action, dict(s.params)) for s in env.unwrapped.task.solution()]
    for device, name, params in [*steps, ("root", "wait", {"seconds": 1}), ("root", "complete", {})]:
        for text in env.translate(device, name, params):
            _, _, terminated, truncated, info = env.step(text)
            assert "invalid_action" not in info, (text, info["invalid_action"])
            if terminated or truncated:
                return info
    return info


@pytest.fixture(scope="module", params=DIALECTS)
def phone(request):
    env = phone_env(request.param)
    yield env
    env.close()


@pytest.mark.parametrize("task_id", PHONE_SLICE)
def test_phone_slice_solves_through_every_dialect(phone, task_id):
    assert solve(phone, task_id)["termination_reason"] == "success"


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if d != "androidworld"])
def test_a_desktop_task_solves_through_each_dialect(dialect):
    env = ActionDialect(gym.make("Crab-Desktop-v0", tasks=DESKTOP_SLICE, max_steps=40), dialect)
    try:
        assert solve(env, DESKTOP_SLICE[0])["termination_reason"] == "success"
    finally:
        env.close()


def test_an_app_opened_by_keys_is_waited_for_like_search_application():
    """Super, the name and Enter (what an agent without open_app does) return once the app's window is up,
    so the next keys reach the app and not the desktop it is still starting on."""
    env = ActionDialect(gym.make("Crab-Desktop-v0", tasks=DESKTOP_SLICE, max_steps=40), "anthropic")
    try:
        env.reset(seed=0, options={"task": DESKTOP_SLICE[0]})
        _, _, _, _, info = env.step('{"action": "key", "text": "super"}')
        assert info["launcher"] is True  # up and drawn before the name is typed
        _, _, _, _, info = env.step('{"action": "type", "text": "terminal\\n"}')
        assert info["launch"] == "window"
        active = env.unwrapped.subenvs["ubuntu"].x.active_window()
        assert active is not None and "terminal" in active.title.lower(), active
        _, _, _, _, info = env.step('{"action": "type", "text": "echo\\n"}')  # no launcher up: no wait
        assert "launch" not in info
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", V0_ANDROID)
def test_all_v0_phone_tasks_through_every_dialect(phone, task_id):
    assert solve(phone, task_id)["termination_reason"] == "success"


DESKTOP_PAIRS = [(e, d) for e in ("Crab-Desktop-v0", "Crab-v0") for d in DIALECTS[:4]]


@pytest.fixture(scope="module", params=DESKTOP_PAIRS, ids=[f"{e}-{d}" for e, d in DESKTOP_PAIRS])
def with_desktop(request):
    """An env with the desktop, per dialect that drives it (AndroidWorld drives the phone only)."""
    env_id, dialect = request.param
    env = ActionDialect(gym.make(env_id, tasks="v0", max_steps=80), dialect)
    yield env_id, env
    env.close()


@pytest.mark.dialects_full  # 4 dialects x every desktop and cross task: hours, so beyond CI's slice
@pytest.mark.parametrize("task_id", V0_DESKTOP + V0_CROSS)
def test_all_v0_desktop_and_cross_tasks_through_every_dialect(with_desktop, task_id):
    env_id, env = with_desktop
    if (env_id == "Crab-v0") != (task_id in V0_CROSS):
        pytest.skip("desktop tasks run on Crab-Desktop-v0, cross-device ones on Crab-v0")
    info = solve(env, task_id)
    assert info["termination_reason"] == "success", info.get("feedback")


# ---- CRAB-only, event and ask-user templates: the translator covers their actions too ---------------------

ASK, EVENTS = load_tasks("ask-user"), load_tasks("events")
# The first v1 task of each CRAB-only template v1 draws: four (web_download, web_download_clipboard,
# web_maps_share, web_country_to_calc) take attributes only CRAB's own task files give (a URL, a place type,
# a country), have no sampler, and so are in no v1 task.
CRAB_FIRST = [f"v1-{t.id}-0" for t in CRAB_TEMPLATES if set(t.attributes.values()) <= set(SAMPLERS)]


@functools.cache
def crab_only() -> list[Task]:
    """v1's tasks of the CRAB-only templates (loading v1 takes seconds: only where needed)."""
    return [t for t in load_tasks("v1") if len(t.subtasks) == 1 and t.subtasks[0].template in CRAB_TEMPLATES]


EXTRA_PHONE = ["ask_sms_boss-0", "event_sms_code_answer-0"]  # an ask_user, an event and a submitted answer
EXTRA_DESKTOP = ["v1-impress_image_darker-0"]  # triple clicks (a click and Ctrl+A where there is none)


@pytest.fixture(scope="module", params=DIALECTS)
def interactive_phone(request):
    env = ActionDialect(
        gym.make("Crab-Android-v0", tasks=[t for t in ASK + EVENTS if t.id in EXTRA_PHONE], max_steps=120),
        request.param,
    )
    env.unwrapped.subenvs["root"].time_scale = 0.0
    yield env
    env.close()


@pytest.mark.parametrize("task_id", EXTRA_PHONE)
def test_ask_user_and_event_tasks_solve_through_every_dialect(interactive_phone, task_id):
    info = solve(interactive_phone, task_id)
    assert info["termination_reason"] == "success", info.get("feedback")


@pytest.mark.slow
@pytest.mark.parametrize("dialect", DIALECTS[:4])
def test_a_crab_only_task_solves_through_each_dialect(dialect):
    tasks = [t for t in crab_only() if t.id == EXTRA_DESKTOP[0]]
    env = ActionDialect(gym.make("Crab-Desktop-v0", tasks=tasks, max_steps=80), dialect)
    try:
        assert solve(env, EXTRA_DESKTOP[0])["termination_reason"] == "success"
    finally:
        env.close()


@pytest.mark.parametrize("which", ["ask-user and events", pytest.param("crab-only", marks=pytest.mark.slow)])
def test_the_translator_writes_every_action_of_these_templates_in_every_dialect(which):
    """Each solution step of every CRAB-only, event and ask-user task, in each dialect that drives its
    devices, parses back (no env step: parsing only)."""
    tasks = crab_only() if which == "crab-only" else ASK + EVENTS
    envs = {d: ActionDialect(gym.make("Crab-v0", tasks=tasks, ask_user=True), d) for d in DIALECTS}
    try:
        for task in tasks:
            for d, env in envs.items():
                if d == "androidworld" and not set(task.platforms) <= {"android", "root"}:
                    continue
                for s in task.solution():
                    for text in env.translate(s.env, s.action, dict(s.params)):
                        assert env.parse(text), (task.id, d, text)
    finally:
        for env in envs.values():
            env.close()


@pytest.mark.dialects_full
@pytest.mark.parametrize("task_id", [t.id for t in ASK + EVENTS if "ubuntu" in t.platforms] + CRAB_FIRST)
def test_desktop_ask_user_event_and_crab_only_tasks_through_every_dialect(task_id):
    tasks = [t for t in ASK + EVENTS if t.id == task_id] or [t for t in crab_only() if t.id == task_id]
    env_id = "Crab-v0" if "android" in tasks[0].platforms else "Crab-Desktop-v0"
    for dialect in DIALECTS[:4]:
        env = ActionDialect(gym.make(env_id, tasks=tasks, max_steps=120), dialect)
        try:
            assert solve(env, task_id)["termination_reason"] == "success", dialect
        finally:
            env.close()


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


@pytest.fixture(scope="module")
def phone_parsers():
    envs = {d: phone_env(d, max_invalid_actions=10**6, ask_user=True) for d in DIALECTS}
    for env in envs.values():
        env.reset(seed=0, options={"task": "contacts_add-0"})
    yield envs
    for env in envs.values():
        env.close()


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


# ---- fuzz and the host -----------------------------------------------------------------------------------

CANARY = "/tmp/crab_dialect_canary"
HOSTILE = [
    f"import os\nos.system('touch {CANARY}')",
    f"__import__('os').system('touch {CANARY}')",
    f"open('{CANARY}', 'w').write('x')",
    f"exec(\"open('{CANARY}','w')\")",
    f"subprocess.Popen(['touch', '{CANARY}'])",
    f"pyautogui.click(__import__('os').system('touch {CANARY}'), 1)",
    f"Action: click(start_box=open('{CANARY}','w'))",
    f"pyautogui.write(''.join(chr(c) for c in [116]))\nos.system('sleep 30 && touch {CANARY}')",
]


def _children() -> set[int]:
    psutil = pytest.importorskip("psutil")
    return {p.pid for p in psutil.Process().children(recursive=True)}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_hostile_code_never_reaches_the_host(phone_parsers, dialect):
    if os.path.exists(CANARY):
        os.remove(CANARY)
    before = _children()
    env = phone_parsers[dialect]
    for text in HOSTILE:
        _, reward, _, _, info = env.step(text)
        assert "invalid_action" in info and reward == 0
    assert not os.path.exists(CANARY), "an action reached the host's files"
    assert _children() <= before, "an action started a process"


@pytest.mark.fuzz
@pytest.mark.parametrize("dialect", DIALECTS)
def test_any_string_is_an_action_or_a_reason(phone_parsers, dialect):
    env = phone_parsers[dialect]

    _fuzz(env, st.one_of(st.text(max_size=200), st.sampled_from(HOSTILE), _shaped(), _named(dialect)))


@pytest.mark.fuzz
@pytest.mark.parametrize("dialect", DIALECTS)
def test_any_action_of_the_format_on_both_devices_is_an_action_or_a_reason(dialect):
    """The format's own action names with random arguments and device names, on Crab-v0 (both devices'
    lowerings, key chords, holds, device naming)."""
    env = ActionDialect(gym.make("Crab-v0", tasks="v0"), dialect)  # never reset: parsing only
    try:
        _fuzz(env, _named(dialect))
    finally:
        env.close()


def _fuzz(env: ActionDialect, strings) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=strings)
    def check(text):
        try:
            env.parse(text)
        except InvalidAction as e:
            assert str(e).strip()

    check()
    assert not os.path.exists(CANARY)


def _shaped():
    """Strings in the formats' own shapes, with random pieces."""
    word = st.text(max_size=12)
    num = st.one_of(st.integers(-5, 5000), st.floats(allow_nan=True))
    return st.one_of(
        st.builds(lambda a, x, y: f'{{"action": "{a}", "coordinate": [{x}, {y}]}}', word, num, num),
        st.builds(lambda a, x: f'{{"type": "{a}", "x": {x}, "y": 5}}', word, num),
        st.builds(lambda a, b: f"Action: {a}(start_box='{b}')", word, word),
        st.builds(lambda a, x: f"pyautogui.{a}({x}, 1)", word, num),
        st.builds(lambda a, i: f'{{"action_type": "{a}", "index": {i}}}', word, num),
    )


def _named(dialect: str):
    """One action of the format: its own names (or a random word), random coordinates, keys and devices."""
    module = importlib.import_module(f"crab_gym.wrappers.dialects.{dialect}")
    names = st.one_of(st.sampled_from(getattr(module, "ACTIONS", ("x",))), st.text(max_size=8))
    if dialect == "pyautogui":
        names = st.one_of(st.sampled_from(module.NAMES), st.text(max_size=8))
    num = st.one_of(st.integers(-5, 3000), st.floats(allow_nan=True), st.booleans(), st.none())
    text = st.one_of(
        st.sampled_from(["shift", "ctrl+s", "Return", "a b", "super", "+", ""]), st.text(max_size=8)
    )
    device = st.one_of(st.none(), st.sampled_from(["ubuntu", "android", "root"]), st.text(max_size=4))
    point = st.one_of(st.lists(num, max_size=3), num)
    direction = st.one_of(st.sampled_from(["up", "down", "left", "right"]), st.text(max_size=5))

    def drop_none(d: dict) -> str:
        return json.dumps({k: v for k, v in d.items() if v is not None})

    if dialect == "anthropic":
        return st.builds(
            lambda a, c, s, t, d, di, n: drop_none({"action": a, "coordinate": c, "start_coordinate": s,
                "text": t, "device": d, "scroll_direction": di, "scroll_amount": n, "duration": n}),
            names, point, point, text, device, direction, num,
        )  # fmt: skip
    if dialect == "openai":
        return st.builds(
            lambda a, x, y, b, k, d, n: drop_none({"type": a, "x": x, "y": y, "button": b, "keys": k,
                "device": d, "scroll_y": n, "path": [{"x": x, "y": y}, {"x": n, "y": y}], "text": b}),
            names, num, num, st.sampled_from(["left", "right", "wheel", "back", ""]),
            st.lists(text, max_size=3), device, num,
        )  # fmt: skip
    if dialect == "androidworld":
        return st.builds(
            lambda a, i, x, t, di: drop_none({"action_type": a, "index": i, "x": x, "y": x, "text": t,
                "direction": di, "app_name": t, "goal_status": t}),
            names, num, num, text, direction,
        )  # fmt: skip
    if dialect == "uitars":
        return st.builds(
            lambda a, x, y, t, di, d: f"Thought: t\nAction: {a}(start_box='({x},{y})', end_box='({y},{x})', "
            f"key={t!r}, content={t!r}, direction={di!r}, app_name={t!r}"
            + (f", device={d!r})" if d else ")"),
            names, num, num, text, direction, device,
        )  # fmt: skip
    call = st.builds(
        lambda a, x, y, t, d: f"pyautogui.{a}({x}, {y}{', ' + repr(t) if t else ''}"
        + (f", device={d!r})" if d else ")"),
        names, num, num, text, device,
    )  # fmt: skip
    keys = st.builds(
        lambda a, t: f"pyautogui.{a}({t!r})", st.sampled_from(["keyDown", "keyUp", "press", "write"]), text
    )
    bare = st.sampled_from(["WAIT", "DONE", "time.sleep(2)", "pyautogui.mouseDown()", "pyautogui.mouseUp()"])
    return st.lists(st.one_of(call, keys, bare), min_size=1, max_size=6).map("\n".join)

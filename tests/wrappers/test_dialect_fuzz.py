"""ActionDialect and the host: hostile code never reaches it (a canary file and the process list), and a
fuzz of any string and of each format's own actions is an action or an invalid action with a reason."""

from __future__ import annotations

import importlib
import json
import os

import gymnasium as gym
import pytest
from dialect_support import DIALECTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers import ActionDialect

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

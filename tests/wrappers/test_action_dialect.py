"""ActionDialect: v0 solved through every dialect (the oracle's actions translated), with the ask-user, event
and CRAB-only templates. Parser tables, fuzz and the host: test_dialect_parsers.py."""

from __future__ import annotations

import functools

import gymnasium as gym
import pytest
from dialect_support import DIALECTS, phone_env

import crab_gym  # noqa: F401
from crab_gym.tasks import Task, load_tasks
from crab_gym.tasks.generator import SAMPLERS
from crab_gym.tasks.templates.desktop import CRAB_ONLY as CRAB_TEMPLATES
from crab_gym.wrappers import ActionDialect

V0 = load_tasks("v0")
V0_ANDROID = [t.id for t in V0 if set(t.platforms) <= {"android", "root"}]
V0_DESKTOP = [t.id for t in V0 if set(t.platforms) <= {"ubuntu", "root"}]
V0_CROSS = [t.id for t in V0 if {"ubuntu", "android"} <= set(t.platforms)]
PHONE_SLICE = ["contacts_add-0", "files_delete-0", "settings_dark_theme-0"]
DESKTOP_SLICE = ["terminal_create_folder-0"]


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


@pytest.mark.dialects_full  # 4 dialects x 125 desktop and cross tasks: ~40 min, beyond CI
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

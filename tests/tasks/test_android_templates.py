"""Android sub-task templates: well formed, unsolved after setup, solved by their scripted solution on the
in-process phone and through adb; and Crab-Android-v0 end to end (check_env, oracle, do-nothing)."""

from __future__ import annotations

import random

import gymnasium as gym
import pytest
from template_checks import assert_single_device_task

import crab_gym  # noqa: F401 - registers the env ids
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.core.tasks import Task, get_template
from crab_gym.envs.android import AndroidEnv
from crab_gym.envs.android.actions import ACTIONS
from crab_gym.tasks.generator import generate_tasks, sample_attributes
from crab_gym.tasks.templates.android import ANDROID_TEMPLATES, CRAB_PHONE
from crab_gym.tasks.templates.android.web import WEB_TEMPLATES, countries

# Fixed attributes per template, with characters that need care (quotes, '&', non-ASCII, '%').
ATTRS: dict[str, dict] = {
    "contacts_add": {"name": "Björn", "number": "555-201-3344"},
    "sms_send": {"number": "555-777-1234", "message": "Meet at 5 & bring the 'big' map"},
    "sms_send_to_contact": {"name": "Chloé", "number": "555-888-2020", "message": "Running late, 100% sorry"},
    "phone_call": {"number": "555-301-9999"},
    "calendar_add_event": {"title": "Dentist check", "date": "2024-06-12", "start": "14:45"},
    "clock_set_alarm": {"hour": 9, "minute": 5},
    "notes_create": {"title": "Packing", "body": 'Socks, charger and the "blue" jacket'},
    "tasks_add": {"title": "Renew the passport"},
    "tasks_complete": {"title": "Water the plants"},
    "settings_dark_theme": {},
    "settings_bluetooth_on": {},
    "camera_take_photo": {},
    "files_delete": {"filename": "old notes.txt"},
    "clock_start_timer": {"minutes": 25},
    "clock_turn_off_alarm": {"hour": 21, "minute": 45},
    "settings_wifi_off": {},
    "settings_airplane_mode": {},
    "tasks_delete": {"title": "Cancel the 'gym' plan"},
    "notes_edit": {"title": "Trip", "body": "Book the ferry", "extra": "Pack sunscreen & hats"},
    "notes_delete": {"title": "Old list", "body": "Batteries, 100% charged"},
    "sms_reply": {"sender": "555-404-1212", "message": "Yes, see you at 7 — café?"},
    "phone_call_back": {"number": "555-909-3131"},
    "mail_send": {
        "to": "rosa.budget@example.org",
        "subject": "Invoice",
        "body": "Attached is the 'final' one",
    },
    "notes_create_untitled": {"body": "Ideas: a 'quiet' café & 100% rest"},
    "calendar_add_all_day": {"title": "Chloé's birthday", "date": "1 January 2025"},
    "calendar_find_event": {"date": "16 July 2024", "title": "Trip to 'Kyoto'"},
    "contacts_add_email": {"name": "Zoë Park", "email": "zoe.park@example.org"},
    "contacts_find_email": {"name": "Ines Duarte", "email": "ines.d@example.net"},
    "settings_bluetooth_rename": {"name": "Crab's phone"},
    "files_find_date": {"path": "/Movies/movie list.txt", "date": "4 June 2024"},
    "clock_add_city": {"city": "kolkata"},
    "drive_create_folder": {"name": "Reçus 'été' & co"},
    "maps_find_address": {"place": "Eiffel Tower"},
    "maps_postal_city": {"code": "90460", "country": "Germany"},
    "maps_route_distance": {"origin": "Munich", "destination": "Zurich"},
    "chrome_capital_note": {"country": "South Korea", "title": "Seoul trip 'maybe'"},
    "chrome_currency_task": {"country": "Iceland"},
    "chrome_search_capital_sms": {"country": "Ethiopia", "number": "555-321-7788"},
    "worldclock_add_capital": {"country": "Argentina"},
    "worldclock_remove_city": {"first": "Tokyo", "city": "Lima", "last": "Denver"},
    "recents_clear_all": {"first": "Settings", "second": "Keep Notes"},
}
IDS = [t.id for t in ANDROID_TEMPLATES + CRAB_PHONE + WEB_TEMPLATES]
SPECS = {a.name: a for a in ACTIONS}


def make_task(template_id: str, attrs: dict | None = None) -> Task:
    sub = get_template(template_id).instantiate(**(ATTRS[template_id] if attrs is None else attrs))
    return Task(f"test-{template_id}", sub.instruction, [sub])


@pytest.fixture(scope="module", params=["sim", "adb-sim"])
def phone(request):
    port = request.getfixturevalue("adb_port") if request.param == "adb-sim" else None
    env = AndroidEnv(request.param, adb_server_port=port)
    yield env
    env.close()


# ---- static checks -----------------------------------------------------------------------------------


def test_every_template_has_test_attributes_and_there_are_enough() -> None:
    assert set(IDS) == set(ATTRS)
    assert len(IDS) >= 8
    areas = {"contacts", "sms", "calendar", "clock", "notes", "tasks", "settings", "files", "camera"}
    assert areas <= {i.split("_")[0] for i in IDS}


@pytest.mark.parametrize("template_id", IDS)
def test_template_is_well_formed(template_id: str) -> None:
    template = get_template(template_id)
    assert template.platforms == ("android",)
    assert template.apps and all("." in a for a in template.apps)
    assert_single_device_task(make_task(template_id), "android", SPECS)


def test_wiki_countries_are_those_the_world_clock_knows() -> None:
    from crab_gym.tasks.generator import wiki_countries

    assert sorted(wiki_countries()) == sorted(countries())
    assert make_task("chrome_capital_note").subtasks[0].output() == "Seoul"


def test_one_country_lookup_with_the_world_clock_filter() -> None:
    from crab_gym.envs.android.sim.apps.worldclock import city_named
    from crab_gym.web.content.encyclopedia import fact

    assert fact("new_zealand").capital == "Wellington"  # a page slug, any case
    with pytest.raises(ValueError, match="capital unknown"):
        fact("New Zealand", city_named)  # Wellington is no time zone database city
    with pytest.raises(ValueError, match="no encyclopedia page"):
        fact("Atlantis")


def test_some_templates_have_outputs_for_composition() -> None:
    typed = {t.id: t.output_type for t in ANDROID_TEMPLATES if t.output_type}
    assert typed.get("contacts_add") == "phone_number"
    assert make_task("contacts_add").subtasks[0].output() == "555-201-3344"
    assert len(typed) >= 2


def test_generator_samples_android_templates() -> None:
    tasks = generate_tasks(seed=5, n=30, platforms=["android"])
    assert {t.platforms for t in tasks} == {("android",)}
    rng = random.Random(0)
    for t in ANDROID_TEMPLATES + CRAB_PHONE + WEB_TEMPLATES:
        t.instantiate(**sample_attributes(t, rng))


# ---- live: every template on the in-process phone and through adb ---------------------------------------


def _solve(env: AndroidEnv, task: Task, seed: int = 0) -> tuple[float, float]:
    env.reset(seed=seed)
    task.setup({"android": env})
    env.settle()
    env.invalidate_state()
    graph = task.evaluator()
    graph.update({"android": env.state()})
    before = graph.completion_ratio
    for step in task.solution():
        env.execute(env.action(step.action), dict(step.params))
        env.settle()
        graph.update({"android": env.state()})
    return before, graph.completion_ratio


@pytest.mark.parametrize("template_id", IDS)
def test_scripted_solution_solves_template(phone: AndroidEnv, template_id: str) -> None:
    before, after = _solve(phone, make_task(template_id))
    assert before == 0.0, "a check already passes after setup"
    assert after == 1.0


@pytest.mark.parametrize("seed", [1, 7])
def test_solutions_hold_for_other_seeds_and_sampled_attributes(seed: int) -> None:
    env = AndroidEnv("sim")
    rng = random.Random(seed)
    try:
        for template in ANDROID_TEMPLATES + CRAB_PHONE + WEB_TEMPLATES:
            task = make_task(template.id, sample_attributes(template, rng))
            assert _solve(env, task, seed=seed) == (0.0, 1.0), template.id
    finally:
        env.close()


# ---- Crab-Android-v0 end to end -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def crab():
    tasks = [make_task(i) for i in IDS]
    env = gym.make("Crab-Android-v0", tasks=tasks, max_steps=15)
    yield env
    env.close()


def test_check_env(crab) -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(crab.unwrapped, skip_render_check=True)


@pytest.mark.slow  # ~24 s: every template's do-nothing
def test_do_nothing_scores_zero(crab) -> None:
    for task in crab.unwrapped.tasks:
        _, info = crab.reset(seed=0, options={"task": task.id})
        assert info["completion_ratio"] == 0.0
        _, reward, terminated, _, info = crab.step(crab.unwrapped.wait_action())
        assert reward == 0.0 and not terminated and info["completion_ratio"] == 0.0, task.id


def test_oracle_episode_returns_one(crab) -> None:
    agent = OracleAgent(crab)
    for task_id in ("contacts_add", "tasks_complete", "files_delete"):
        obs, info = crab.reset(seed=0, options={"task": f"test-{task_id}"})
        assert obs["android"]["screen"].shape == (2400, 1080, 3)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = crab.step(agent.act(obs, info))
            total += reward
            done = terminated or truncated
        assert info["termination_reason"] == "success", info
        assert total == pytest.approx(1.0)

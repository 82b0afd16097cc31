"""CRAB v0's Drive and Maps sub-tasks (the phone's online apps): files in CRAB's shape with its real UUIDs,
solved by the oracle on the phone, and not solved by doing nothing."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest
from test_crab_v0 import crab_file, dataset

import crab_gym  # noqa: F401
from crab_gym.baselines.oracle import OracleAgent
from crab_gym.rollout import rollout
from crab_gym.tasks.crab_v0 import crab_template

DRIVE_FOLDER = "a3d11574-2acf-4b26-a569-a5dbc9d548ar"
MAPS_ADDRESS = "a3d11574-2acf-4b26-a569-a5dbc9d548aw"
MAPS_POSTCODE = "51b2463c-9904-4a32-81ba-507bfb89d61f"
MAPS_ROUTE = "1a1b72d7-78c9-4027-8278-86083ae01045"

SMS = "caa29623-1811-402d-963a-19f7eecc63d8"
OXFORD = "Wellington Square, Oxford OX1 2JD, United Kingdom"  # CRAB's output: the real world's address
CHAINED = {
    "description": "Find the address of University of Oxford in Google Maps, then text it to 5550142.",
    "tasks": [
        {"task": MAPS_ADDRESS, "attribute": {"content": "University of Oxford"}, "output": OXFORD},
        {"task": SMS, "attribute": {"content": OXFORD, "number": "5550142"}, "output": None},
    ],
    "adjlist": "0 1\n1",
    "id": "7a1f0c2e-0000-4000-8000-0000000000d9",
}
ONLINE = [
    crab_file(
        "7a1f0c2e-0000-4000-8000-0000000000d1",
        'In Android, Using "Google Drive" app, create a new folder named content.',
        (DRIVE_FOLDER, {"content": "content"}),
        adjlist="0",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-0000000000d2",
        'In Android, using "Google Map" App, find the address of Tokyo Tower.',
        (MAPS_ADDRESS, {"content": "Tokyo Tower"}),
        adjlist="0",
    ),
    crab_file(  # CRAB gives the postal code as a number
        "7a1f0c2e-0000-4000-8000-0000000000d3",
        'In Android, using "Google Map" App, find the city of post code 2770885 in Japan.',
        (MAPS_POSTCODE, {"number": 2770885, "country": "Japan"}),
        adjlist="0",
    ),
    crab_file(  # CRAB's files spell countries as people type them
        "7a1f0c2e-0000-4000-8000-0000000000d5",
        'In Android, using "Google Map" App, find the city of post code 10179 in German.',
        (MAPS_POSTCODE, {"number": "10179", "country": "German"}),
        adjlist="0",
    ),
    crab_file(
        "7a1f0c2e-0000-4000-8000-0000000000d4",
        'In Android, using "Google Map" App, find the shortest route distance from Geneva to Zurich.',
        (MAPS_ROUTE, {"place_name_1": "Geneva", "place_name_2": "Zurich"}),
        adjlist="0",
    ),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return dataset(tmp_path / "dataset", {"android": ONLINE})


def test_a_maps_answer_feeds_the_next_sub_task_as_our_maps_give_it(tmp_path: Path) -> None:
    """CRAB's output is the real world's address; the next sub-task gets the offline maps' one instead."""
    from crab_gym.web.content.world import WebWorld

    root = dataset(tmp_path / "dataset", {"android": [CHAINED]})
    ours = WebWorld(0).maps.find("University of Oxford").address
    env = gym.make("Crab-Android-v0", tasks=f"crab-v0:{root}", max_steps=30)
    try:
        (task,) = env.unwrapped.tasks
        assert task.subtasks[1].attributes["content"] == ours != OXFORD
        record = rollout(env, OracleAgent(env), task=CHAINED["id"], seed=0)
        assert record.success, record.termination_reason
    finally:
        env.close()


def test_drive_uuid_keeps_crab_attribute_and_names_drive() -> None:
    t = crab_template(DRIVE_FOLDER)
    assert set(t.attributes) == {"content"}
    assert "Google Drive" in t.instantiate(content="content").instruction


def test_maps_uuids_keep_crab_attributes_and_give_the_worlds_answers() -> None:
    from crab_gym.web.content.world import WebWorld

    maps = WebWorld(0).maps
    address = crab_template(MAPS_ADDRESS).instantiate(content="Tokyo Tower")
    assert address.output() == maps.find("Tokyo Tower").address and "Tokyo Tower" in address.instruction
    city = crab_template(MAPS_POSTCODE).instantiate(number=63002, country="Japan")
    assert city.output() == maps.city_for_postal("63002", "Japan").name
    for typed, country in (
        ("Columbia", "Colombia"),
        ("German", "Germany"),
        ("united states", "United States"),
    ):
        city = crab_template(MAPS_POSTCODE).instantiate(number="110151", country=typed)
        assert city.output() == maps.city_for_postal("110151", country).name
    route = crab_template(MAPS_ROUTE).instantiate(place_name_1="Geneva", place_name_2="Zurich")
    assert route.output() == maps.route("Geneva", "Zurich").distance_text


def test_oracle_solves_the_online_files_and_doing_nothing_does_not(folder: Path) -> None:
    env = gym.make("Crab-Android-v0", tasks=f"crab-v0:{folder}", max_steps=30)
    try:
        agent = OracleAgent(env)
        for t in ONLINE:
            record = rollout(env, agent, task=t["id"], seed=0)
            assert record.success, (t["id"], record.termination_reason)
            _, info = env.reset(seed=0, options={"task": t["id"]})
            assert info["completion_ratio"] == 0.0
            _, reward, terminated, _, info = env.step(env.unwrapped.wait_action())
            assert reward == 0.0 and not terminated and info["completion_ratio"] == 0.0
    finally:
        env.close()


def test_set_of_marks_numbers_the_new_apps_elements(folder: Path) -> None:
    """Through marks only: the drawer's Chrome, Drive and Maps icons, Drive's entries, Chrome's address bar
    and a page's links, Maps' search box are all numbered elements an agent can act on."""
    from crab_gym.wrappers import SetOfMarks

    env = SetOfMarks(gym.make("Crab-Android-v0", tasks=f"crab-v0:{folder}", max_steps=40), detector=False)
    try:

        def marks() -> dict[str, int]:
            return {m.name: m.id for m in env.marks["android"]}

        def act(action: str, **params) -> None:
            env.step(env.encode_action("android", action, params))

        env.reset(seed=0, options={"task": ONLINE[0]["id"]})
        act("open_app_drawer")
        assert {"Chrome", "Drive", "Maps"} <= set(marks())
        act("tap", element=marks()["Drive"])
        assert {"Work Folder", "Photos Folder", "Resume.pdf"} <= set(marks())
        act("press", button="home")
        act("open_app_drawer")
        act("tap", element=marks()["Chrome"])
        act("tap", element=marks()["Search or type web address"])
        act("write_text", text="en.wikipedia.org")
        act("press", button="enter")
        assert {"Kenya", "Japan", "Search"} <= set(marks())  # links to country pages, the site's search
        act("tap", element=marks()["Kenya"])
        assert "https://en.wikipedia.org/wiki/Kenya" in marks()  # the address bar
        act("press", button="home")
        act("open_app_drawer")
        act("tap", element=marks()["Maps"])
        assert "Search here" in marks()
    finally:
        env.close()

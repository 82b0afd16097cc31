"""Handmade tasks: scenarios that composing templates cannot express, written directly in Python.

- a join node whose one check spans both devices (both results must hold at the same time);
- an order on one piece of state (a setting turned on, then off again), which single-state checks
  of composed sub-tasks cannot see.

Their templates are not registered, so the generator never draws them; ``load_tasks("v0")`` appends them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.evaluators import Check
from crab_gym.core.tasks import Step, SubTaskTemplate, Task, get_template
from crab_gym.envs.android import evaluators as phone
from crab_gym.envs.desktop import evaluators as desk
from crab_gym.tasks.templates.android.layout import NETWORK_SWITCHES

if TYPE_CHECKING:
    import networkx as nx

CONTACTS_FILE = "~/Documents/contacts.txt"


def _graph(checks: list[Check], edges: list[tuple[int, int]]) -> nx.DiGraph:
    import networkx as nx  # when a handmade task's checks are built, not when v0 loads (cold start)

    g: nx.DiGraph[int] = nx.DiGraph()
    for i, c in enumerate(checks):
        g.add_node(i, check=c)
    g.add_edges_from(edges)
    return g


def _terminal(command: str) -> list[Step]:
    return [
        Step("ubuntu", "search_application", {"name": "terminal"}),
        Step("ubuntu", "write_text", {"text": command + "\n"}),
    ]


def _sync_setup(envs: Mapping[str, Any], known: str, known_number: str, new: str, new_number: str) -> None:
    envs["android"].add_contact(known, known_number)
    envs["ubuntu"].write_file(CONTACTS_FILE, f"{new}: {new_number}\n")


def _sync_graph(known: str, known_number: str, new: str, new_number: str) -> nx.DiGraph:
    on_phone = phone.contact_exists(name=new, number=new_number)
    in_file = desk.file_contains(path=CONTACTS_FILE, text=f"{known}: {known_number}")
    return _graph([on_phone, in_file, on_phone & in_file], [(0, 2), (1, 2)])


TWO_WAY_SYNC = SubTaskTemplate(
    id="handmade_two_way_contact_sync",
    description=(
        "Sync contacts both ways. The desktop file " + CONTACTS_FILE + " lists {new}, who is not in the "
        "phone's Contacts yet: add {new} there with the number from the file. The phone knows {known}, "
        "who is not in the file: append a line '{known}: <number as the phone shows it>' to the file."
    ),
    attributes={"known": "name", "known_number": "phone_number", "new": "name", "new_number": "phone_number"},
    hidden=("known_number", "new_number"),
    evaluator=_sync_graph,
    setup=_sync_setup,
    solution=lambda known, known_number, new, new_number: [
        *get_template("contacts_add").solution(name=new, number=new_number),
        *_terminal(f"echo '{known}: {known_number}' >> {CONTACTS_FILE}"),
    ],
    platforms=("ubuntu", "android"),
    apps=("com.android.contacts", "terminal"),
)


def _radio_graph(path: str) -> nx.DiGraph:
    on = phone.setting_equals(namespace="global", key="airplane_mode_on", value="1")
    off = phone.setting_equals(namespace="global", key="airplane_mode_on", value="0")
    return _graph([on, off, desk.file_equals(path=path, text="radio reset")], [(0, 1), (1, 2)])


RADIO_RESET = SubTaskTemplate(
    id="handmade_radio_reset",
    description=(
        "Reset the phone's radios: turn airplane mode on in the phone's Settings, then turn it off again. "
        "Afterwards write 'radio reset' as the only line of the desktop file {path}."
    ),
    attributes={"path": "path"},
    evaluator=_radio_graph,
    solution=lambda path: [
        *get_template("settings_airplane_mode").solution(),
        Step("android", "tap", {"point": NETWORK_SWITCHES["airplane"]}),
        *_terminal(f"echo 'radio reset' > {path}"),
    ],
    platforms=("ubuntu", "android"),
    apps=("com.android.settings", "terminal"),
)


def handmade_tasks() -> list[Task]:
    """The handmade tasks of v0 (fixed attributes: they are part of the benchmark)."""
    out = []
    for k, attrs in enumerate(
        [
            {
                "known": "Farah Quinn",
                "known_number": "555-310-4471",
                "new": "Tomás Berg",
                "new_number": "555-902-1188",
            },
            {
                "known": "Hana Ito",
                "known_number": "555-477-0912",
                "new": "Sven Olsen",
                "new_number": "555-263-5540",
            },
        ]
    ):
        sub = TWO_WAY_SYNC.instantiate(**attrs)
        out.append(Task(f"handmade-two-way-contact-sync-{k}", sub.instruction, [sub]))
    for k, path in enumerate(["~/Documents/radio.txt", "~/Desktop/status.txt"]):
        sub = RADIO_RESET.instantiate(path=path)
        out.append(Task(f"handmade-radio-reset-{k}", sub.instruction, [sub]))
    return out

"""Typed composition and seeded generation: links by type, valid orders, fluent instructions, same seed same
tasks, the JSON round trip, and setups skipped for inputs a predecessor feeds."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from crab_gym.core.tasks import Task, get_template, task_from_json
from crab_gym.tasks import generate_tasks
from crab_gym.tasks.composition import compatible, compose, compose_description, feeds, links
from crab_gym.tasks.generator import build_v0, sample_attributes, templates_for


def t(template_id: str):
    return get_template(template_id)


def test_feeds_by_output_and_input_type() -> None:
    assert feeds(t("contacts_add"), t("sms_send")) == ["number"]
    assert feeds(t("contacts_add"), t("phone_call")) == ["number"]
    assert feeds(t("notes_create"), t("vim_write_file")) == ["text"]
    assert feeds(t("writer_create_document"), t("terminal_archive")) == ["source"]
    assert feeds(t("sms_send"), t("phone_call")) == []  # no output
    assert feeds(t("contacts_add"), t("tasks_add")) == []  # phone_number is not text
    pool = templates_for()
    assert all(a is not b and a.output_type == b.input_types[x] for a, b, x in links(pool))


def test_input_declarations_are_attributes() -> None:
    for tpl in templates_for():
        assert set(tpl.inputs) <= set(tpl.attributes), tpl.id
        assert set(tpl.setup_inputs) <= set(tpl.inputs), tpl.id
        assert set(tpl.hidden) <= set(tpl.attributes), tpl.id


def test_compatible_rejects_clashing_sub_tasks() -> None:
    assert compatible([t("contacts_add"), t("sms_send")])
    assert not compatible([t("sms_send"), t("sms_send")])  # same template twice
    assert not compatible([t("sms_send"), t("sms_reply")])  # the same phone app
    assert not compatible([t("text_editor_copy_text"), t("text_editor_write_file")])  # one-window app
    assert not compatible([t("writer_create_document"), t("impress_create_slides")])  # one soffice
    # a setup that opens a window must come first on its device
    assert compatible([t("text_editor_copy_text"), t("vim_write_file")])
    assert not compatible([t("vim_write_file"), t("files_rename")])
    assert compatible([t("notes_create"), t("files_rename")])  # first on the desktop


def test_composed_instruction_reads_in_order() -> None:
    text = compose_description(["Open the door.", "Björn is home.", "Call the number 555."])
    assert text == "First, open the door. Then, Björn is home. Finally, call the number 555."
    assert compose_description(["Only one."]) == "Only one."
    a = t("contacts_add").instantiate(name="Anna", number="555-111-2222")
    b = t("sms_send").instantiate(number=a.output(), message="Hi there")
    task = compose("c", [a, b], [(0, 1)])
    assert (
        task.description.startswith("First, in the Contacts app")
        and "Then, using the Messages" in task.description
    )
    assert task.node_count == 2 and list(task.graph().edges) == [(0, 1)]


def test_generate_is_seeded_and_mixes_single_and_composed() -> None:
    a = generate_tasks(seed=4, n=120)
    b = generate_tasks(seed=4, n=120)
    assert [x.to_json() for x in a] == [x.to_json() for x in b]
    assert [x.to_json() for x in a] != [x.to_json() for x in generate_tasks(seed=5, n=120)]
    sizes = Counter(len(x.subtasks) for x in a)
    assert set(sizes) == {1, 2, 3}
    assert all(1 <= x.node_count <= 11 for x in a)
    assert any({"ubuntu", "android"} <= set(x.platforms) for x in a)
    for x in a:
        if len(x.subtasks) > 1:
            assert compatible([s.template for s in x.subtasks]), x.id
            assert x.description.startswith("First, ")
            for u, v in x.edges:
                assert x.fed_inputs(v), (x.id, u, v)  # every edge carries a value
    only_phone = generate_tasks(seed=4, n=60, platforms=["android"])
    assert {x.platforms for x in only_phone} == {("android",)}


def test_composed_tasks_round_trip_through_json() -> None:
    for x in generate_tasks(seed=8, n=60):
        back = task_from_json(json.loads(json.dumps(x.to_json())))
        assert back.to_json() == x.to_json() and back.node_count == x.node_count


class _Recorder:
    def __init__(self) -> None:
        self.files: list[str] = []

    def write_file(self, path: str, content) -> None:
        self.files.append(path)


def test_setup_is_skipped_for_fed_inputs() -> None:
    rng = random.Random(0)
    vim = t("vim_write_file").instantiate(path="~/a.txt", text="hello")
    copy_fed = t("terminal_copy_file").instantiate(source="~/a.txt", folder="~/b")
    copy_alone = t("terminal_copy_file").instantiate(**sample_attributes(t("terminal_copy_file"), rng))
    rec = _Recorder()
    Task("fed", "x", [vim, copy_fed], [(0, 1)]).setup({"ubuntu": rec})
    assert rec.files == []  # the copy's source is vim's file: not overwritten by the copy's setup
    Task("alone", "x", [copy_alone]).setup({"ubuntu": rec})
    assert rec.files == [copy_alone.attributes["source"]]


def test_v0_build_is_stable_and_meets_the_counts() -> None:
    from crab_gym.tasks import DATA, load_tasks, tasks_from_file

    built = build_v0()
    assert [x.to_json() for x in built] == [x.to_json() for x in tasks_from_file(DATA / "v0.json")]
    stored = load_tasks("v0")  # the JSON benchmark plus the handmade tasks
    groups = Counter("cross" if {"ubuntu", "android"} <= set(x.platforms) else x.platforms[0] for x in stored)
    assert len(stored) >= 150 and groups["ubuntu"] >= 70 and groups["android"] >= 40 and groups["cross"] >= 30
    nodes = {x.node_count for x in stored}
    assert min(nodes) == 1 and max(nodes) == 11


@pytest.mark.parametrize("device", ["ubuntu", "android"])
def test_template_counts(device: str) -> None:
    n = sum(1 for x in templates_for() if x.platforms == (device,))
    assert n >= {"ubuntu": 24, "android": 20}[device]

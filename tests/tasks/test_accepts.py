"""A template's ``accepts`` predicate: the sampler redraws until it holds, compositions keep it after feeding,
one that never holds is a one-line error naming the template; Maps routes in v1 are drivable."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from crab_gym.core.tasks import SubTaskTemplate, get_template
from crab_gym.tasks import load_tasks
from crab_gym.tasks.composition import sample_composition
from crab_gym.tasks.generator import sample_attributes
from crab_gym.tasks.templates.android.online import maps


def _template(tid: str, **kw) -> SubTaskTemplate:  # not registered: only sampled here
    return SubTaskTemplate(
        id=tid,
        description="Write {n} in {t}.",
        attributes={"n": "number", "t": "text"},
        evaluator=lambda **_: [],
        solution=lambda **_: [],
        platforms=("ubuntu",),
        **kw,
    )


def test_sampler_redraws_until_the_predicate_holds() -> None:
    plain, rare = _template("plain"), _template("rare", accepts=lambda n, t: n % 10 == 7)
    rng = random.Random(0)
    assert any(sample_attributes(plain, rng)["n"] % 10 != 7 for _ in range(20))  # it would not hold by luck
    drawn = [sample_attributes(rare, rng) for _ in range(50)]
    assert all(a["n"] % 10 == 7 for a in drawn) and len({a["n"] for a in drawn}) > 10


def test_same_seed_same_draws_with_a_predicate() -> None:
    rare = _template("rare", accepts=lambda n, t: n > 900)
    a, b = random.Random(5), random.Random(5)
    assert [sample_attributes(rare, a) for _ in range(5)] == [sample_attributes(rare, b) for _ in range(5)]


def test_a_predicate_that_never_holds_is_a_one_line_error_naming_the_template() -> None:
    never = _template("never_fair", accepts=lambda n, t: False)
    with pytest.raises(RuntimeError) as err:
        sample_attributes(never, random.Random(0), tries=30)
    message = str(err.value)
    assert "\n" not in message and message.startswith("template never_fair: ") and "accepts" in message


def test_composition_keeps_the_predicate_after_feeding() -> None:
    source = SubTaskTemplate(
        id="src",
        description="Note {w}.",
        attributes={"w": "word"},
        evaluator=lambda **_: [],
        solution=lambda **_: [],
        platforms=("ubuntu",),
        output_type="text",
        output=lambda w: w,
    )
    # a drawn text ("The ...") passes; a fed word passes unless it starts with S (Science, Schedule, ...)
    picky = _template("picky", inputs=("t",), accepts=lambda n, t: not t.startswith("S"))
    rng = random.Random(1)
    tasks = [
        sample_composition(rng, [source, picky], f"c{i}", 2, sample_attributes, min_nodes=0)
        for i in range(40)
    ]
    fed = [task.subtasks[1].attributes["t"] for task in tasks if task is not None]
    assert len(fed) == 40 and not any(t.startswith("S") for t in fed)
    plain = _template("plain", inputs=("t",))  # without the predicate such words are fed
    rng = random.Random(1)
    tasks = [
        sample_composition(rng, [source, plain], f"c{i}", 2, sample_attributes, min_nodes=0)
        for i in range(40)
    ]
    assert any(task.subtasks[1].attributes["t"].startswith("S") for task in tasks if task is not None)
    # and when no fed value passes, nothing is drawn
    never = _template("never_fed", inputs=("t",), accepts=lambda n, t: t.startswith("The "))
    assert (
        sample_composition(
            random.Random(1), [source, never], "c", 2, sample_attributes, min_nodes=0, tries=20
        )
        is None
    )


def test_maps_route_distance_draws_only_drivable_pairs() -> None:
    template = get_template("maps_route_distance")
    rng = random.Random(3)
    draws = [sample_attributes(template, rng) for _ in range(20)]
    assert all(maps().route(a["origin"], a["destination"]) is not None for a in draws)
    assert not template.accepted({"origin": "Tokyo", "destination": "London"})  # another continent


def test_no_v1_family_has_one_answer_for_most_of_its_tasks() -> None:
    """A constant guess must not be right for most of a family's tasks ('no driving route' was, 76 %)."""
    answers: dict[str, Counter] = {}
    for task in load_tasks("v1"):
        for s in task.subtasks:
            if s.template.output is not None:
                answers.setdefault(s.template.id, Counter())[repr(s.output())] += 1
    assert (
        len(answers["maps_route_distance"]) > 40
        and "'no driving route'" not in answers["maps_route_distance"]
    )
    flat = {
        tid: c.most_common(1)[0]
        for tid, c in answers.items()
        if c.total() >= 4 and c.most_common(1)[0][1] > 0.5 * c.total()  # one instance: not a family to judge
    }
    assert not flat

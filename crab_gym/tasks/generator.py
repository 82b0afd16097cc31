"""Seeded task generation: typed attribute samplers and instances of the registered templates.

The same seed gives the same tasks forever: samplers draw only from ``random.Random(seed)`` and from fixed
word lists (tasks/words.py and below), never from the clock, the machine or a set's iteration order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from functools import cache
from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import SubTaskTemplate, Task, registered
from crab_gym.tasks.words import ADJECTIVES, EMAIL_NAMES, NAMES, NOUNS, VERBS
from crab_gym.web.content.encyclopedia import countries
from crab_gym.web.content.places import Maps

if TYPE_CHECKING:
    from crab_gym.envs.android.sim.apps import worldclock
else:  # the simulator's modules, imported when a task is built (a desktop's task library builds none)
    worldclock = lazy_module("crab_gym.envs.android.sim.apps.worldclock")

FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono")
BASES = ("~/Documents", "~/Desktop", "~/Downloads")

DEVICES = ("ubuntu", "android")  # templates on other (test) devices are never drawn unless asked for

Sampler = Callable[[random.Random], object]


@cache
def _maps() -> Maps:
    """The maps of the web world of seed 0, the phone's own web (its Maps app's places)."""
    return Maps(0)


@cache
def _doc_pages() -> tuple[str, ...]:
    from crab_gym.web.content.apidocs import PAGES

    return tuple(p.name for p in PAGES)


def _word(r: random.Random) -> str:
    return r.choice(NOUNS).capitalize()


def _filename(r: random.Random, ext: str = "txt") -> str:
    return f"{r.choice(ADJECTIVES)}_{r.choice(NOUNS)}.{ext}"


def _text(r: random.Random) -> str:
    return f"The {r.choice(ADJECTIVES)} {r.choice(NOUNS)} {r.choice(VERBS)} on day {r.randint(2, 28)}"


@cache
def wiki_countries() -> tuple[str, ...]:
    """The encyclopedia's countries whose capital the world clock's picker knows (a time zone database
    city); made when first drawn (it builds the encyclopedia and reads the time zone database)."""
    return tuple(c.name for c in countries(worldclock.city_named))


SAMPLERS: dict[str, Sampler] = {
    "word": _word,
    "text": _text,
    "name": lambda r: r.choice(NAMES),
    "number": lambda r: r.randint(2, 999),
    "font_size": lambda r: r.randint(8, 16),
    "phone_number": lambda r: f"555-{r.randint(100, 999)}-{r.randint(1000, 9999)}",
    "date": lambda r: f"2024-{r.randint(4, 12):02d}-{r.randint(1, 28):02d}",
    "clock_time": lambda r: f"{r.randint(8, 19):02d}:{r.choice((0, 15, 30, 45)):02d}",
    "hour": lambda r: r.randint(9, 22),  # the phone's seeded alarms are earlier
    "minute": lambda r: r.choice(range(0, 60, 5)),
    "filename": _filename,
    "city": lambda r: r.choice(("London", "Tokyo", "Jakarta", "Bogota", "Sydney", "Cairo", "Lima", "Denver")),
    "phone_file": lambda r: f"Download/{_filename(r)}",
    "foldername": lambda r: f"{r.choice(NOUNS)}_{r.randint(10, 99)}",
    "folder": lambda r: f"{r.choice(BASES)}/{r.choice(NOUNS)}_{r.randint(10, 99)}",
    "path": lambda r: f"{r.choice(BASES)}/{_filename(r)}",
    "scale": lambda r: r.choice((0.8, 0.9, 1.1, 1.25, 1.5)),
    "font": lambda r: r.choice(FONTS),
    "color_scheme": lambda r: r.choice(("dark", "light")),
    "email": lambda r: f"{r.choice(EMAIL_NAMES)}.{r.choice(NOUNS)}@example.org",
    "duration_minutes": lambda r: r.randint(2, 90),
    "cursor_size": lambda r: r.choice((32, 40, 48, 64)),
    "maps_place": lambda r: r.choice(_maps().places).name,  # a place of the offline web's maps
    "postal_code": lambda r: r.choice(r.choice(_maps().cities).postal_codes),
    "web_host": lambda r: r.choice(
        ("github.com", "en.wikipedia.org", "pytorch.org", "arxiv.org")
    ),  # offline web
    "maps_country": lambda r: r.choice(sorted({c.country for c in _maps().cities})),
    "docs_function": lambda r: r.choice(_doc_pages()),  # a function the offline web's API docs document
    "wiki_country": lambda r: r.choice(wiki_countries()),  # a country of the offline encyclopedia
    "recent_app": lambda r: r.choice(("Keep Notes", "Settings")),
}


def _path_with(ext: str) -> Sampler:
    return lambda r: f"{r.choice(BASES)}/{_filename(r, ext)}"


# "path.odt" and friends: a path whose file has that extension.
for _ext in ("odt", "ods", "odp", "txt", "md", "csv", "sh", "tar.gz", "png", "pdf"):
    SAMPLERS[f"path.{_ext}"] = _path_with(_ext)


def sample_attributes(template: SubTaskTemplate, rng: random.Random, tries: int = 200) -> dict[str, object]:
    """Attributes for ``template``: values of one type are distinct within a sub-task, and the template's
    ``accepts`` predicate holds (redrawn up to ``tries`` times, then a one-line error naming it)."""
    distinct = 0
    for _ in range(tries):
        attrs = {}
        for name, type_name in template.attributes.items():
            if type_name not in SAMPLERS:
                raise KeyError(
                    f"template {template.id}: no sampler for attribute type {type_name!r} ({name})"
                )
            attrs[name] = SAMPLERS[type_name](rng)
        values = [repr(v) for v in attrs.values()]
        if len(set(values)) != len(values):
            continue
        distinct += 1
        if template.accepted(attrs):
            return attrs
    if distinct:
        raise RuntimeError(
            f"template {template.id}: its accepts predicate held for none of {distinct} draws "
            f"(of {tries} tries)"
        )
    raise RuntimeError(f"template {template.id}: could not draw distinct attributes")


def templates_for(
    platforms: Sequence[str] | None = None, only: Collection[str] | None = None, in_set: str = "generated"
) -> list[SubTaskTemplate]:
    """The registered templates of task set ``in_set`` (their ``sets`` name it) on ``platforms`` (default:
    every device), by id; ``only`` those ids."""
    allowed = set(DEVICES if platforms is None else platforms)
    return [
        t
        for _, t in sorted(registered().items())
        if t.platforms and set(t.platforms) <= allowed and in_set in t.sets and (only is None or t.id in only)
    ]


def set_templates(name: str) -> tuple[SubTaskTemplate, ...]:
    """The registered templates of task set ``name``, in registration order."""
    return tuple(t for t in registered().values() if name in t.sets)


def generate_tasks(
    seed: int = 0,
    n: int = 100,
    platforms: Sequence[str] | None = None,
    composed: float = 0.5,
) -> list[Task]:
    """``n`` tasks drawn from ``seed`` over templates whose devices are in ``platforms``.

    About ``composed`` of them are typed compositions of two or three sub-tasks (see
    :mod:`crab_gym.tasks.composition`), the rest single sub-tasks. Ids are ``gen-<seed>-<i>-<templates>``.
    """
    from crab_gym.tasks.composition import sample_composition

    rng = random.Random(seed)
    pool = templates_for(platforms)
    if not pool:
        raise ValueError(f"no template runs on {platforms}")
    tasks = []
    for i in range(n):
        prefix = f"gen-{seed}-{i:04d}"
        if rng.random() < composed:
            length = 2 if rng.random() < 0.6 else 3
            task = sample_composition(rng, pool, prefix, length, sample_attributes)
            if task is None and length == 3:
                task = sample_composition(rng, pool, prefix, 2, sample_attributes)
            if task is not None:
                tasks.append(task)
                continue
        template = pool[rng.randrange(len(pool))]
        sub = template.instantiate(**sample_attributes(template, rng))
        tasks.append(Task(f"{prefix}-{template.id}", sub.instruction, [sub]))
    return tasks


def instances_per_template(
    seed: int,
    per_template: int,
    platforms: Sequence[str] | None = None,
    templates: Sequence[SubTaskTemplate] | None = None,
    only: Collection[str] | None = None,
) -> list[Task]:
    """``per_template`` tasks of every template (how the fixed v0 set is built), ids ``<template>-<k>``;
    ``templates``: of these instead (the interactive sets).

    Each template draws from its own stream (seeded by ``seed`` and its id), so adding a template leaves
    the other templates' tasks unchanged.
    """
    tasks = []
    for template in templates_for(platforms, only) if templates is None else templates:
        rng = random.Random(f"{seed}:{template.id}")
        for k in range(per_template):
            sub = template.instantiate(**sample_attributes(template, rng))
            tasks.append(Task(f"{template.id}-{k}", sub.instruction, [sub]))
    return tasks


V0_SEED = 2026
# v0 is fixed: it is built from the templates whose ``sets`` name "v0" (crab_gym.core.tasks.V0_SETS, 51 of
# them); a template added later joins it only when v0 is rebuilt on purpose (V0_SETS given, the file
# regenerated).
# Composed tasks of v0, appended after the single-template ones: (group, platforms the composition must
# touch, platforms its templates may use, number of sub-tasks, the node range of each task in the group).
_ANY = (1, 11)
V0_COMPOSED: tuple[
    tuple[str, tuple[str, ...], tuple[str, ...] | None, int, tuple[tuple[int, int], ...]], ...
] = (
    ("desktop", ("ubuntu",), ("ubuntu",), 2, (_ANY,) * 8),
    ("desktop3", ("ubuntu",), ("ubuntu",), 3, (_ANY,) * 4),
    ("android", ("android",), ("android",), 2, (_ANY,) * 7),
    ("android3", ("android",), ("android",), 3, (_ANY,) * 5),
    ("cross", ("ubuntu", "android"), None, 2, (_ANY,) * 12),
    ("cross3", ("ubuntu", "android"), None, 3, (_ANY,) * 6 + ((7, 7),) * 2),
    ("cross4", ("ubuntu", "android"), None, 4, ((7, 7), (8, 8), (9, 9))),
    ("cross5", ("ubuntu", "android"), None, 5, ((10, 10), (11, 11))),
)


def composed_v0(seed: int = V0_SEED) -> list[Task]:
    """The composed tasks of v0: each drawn from its own stream (``seed``, group, index), ids
    ``v0-<group>-<k>-<templates>``."""
    from crab_gym.tasks.composition import sample_composition

    tasks = []
    for group, required, platforms, length, ranges in V0_COMPOSED:
        pool = templates_for(platforms, in_set="v0")
        seen: set[tuple[str, ...]] = set()
        for k, (lo, hi) in enumerate(ranges):
            rng = random.Random(f"{seed}:composed:{group}:{k}")
            task = sample_composition(
                rng,
                pool,
                f"v0-{group}-{k}",
                length,
                sample_attributes,
                max_nodes=hi,
                min_nodes=lo,
                require_platforms=required,
                tries=5000,
                avoid=seen,
            )
            if task is None:
                raise RuntimeError(f"v0: no valid composition for {group} #{k}")
            seen.add(tuple(s.template.id for s in task.subtasks))
            tasks.append(task)
    return tasks


def build_v0(platforms: Sequence[str] | None = None) -> list[Task]:
    """The fixed benchmark v0, as stored in crab_gym/tasks/data/v0.json (rebuilt only on purpose):
    three instances of every template, then the composed tasks of :data:`V0_COMPOSED`."""
    v0 = templates_for(platforms, in_set="v0")
    singles = instances_per_template(V0_SEED, per_template=3, templates=v0)
    composed = [t for t in composed_v0() if platforms is None or set(t.platforms) <= set(platforms)]
    return singles + composed

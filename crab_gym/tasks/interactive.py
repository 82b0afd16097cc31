"""The interactive task sets: tasks that need the user (``"ask-user"``) or react to device events
(``"events"``); ``"interactive"`` is both. Three instances of each template, ids ``<template>-<k>``, each
template drawing from its own seeded stream (as v0's single tasks do), so adding one leaves the rest as they
are. Their templates' ``sets`` name "ask-user" or "events" (never "v0" or "generated").
"""

from __future__ import annotations

from crab_gym.core.tasks import SubTaskTemplate, Task
from crab_gym.tasks.generator import instances_per_template, set_templates

__all__ = ["INTERACTIVE_SETS", "interactive_tasks"]

SEED = 2026
PER_TEMPLATE = 3


def _templates(name: str) -> tuple[SubTaskTemplate, ...]:
    if name == "interactive":
        return set_templates("ask-user") + set_templates("events")
    return set_templates(name)


INTERACTIVE_SETS = ("ask-user", "events", "interactive")


def interactive_tasks(name: str = "interactive", per_template: int = PER_TEMPLATE) -> list[Task]:
    """The tasks of one interactive set (one of :data:`INTERACTIVE_SETS`)."""
    if name not in INTERACTIVE_SETS:
        raise ValueError(f"unknown interactive set {name!r}; sets: {', '.join(INTERACTIVE_SETS)}")
    return instances_per_template(SEED, per_template, templates=_templates(name))

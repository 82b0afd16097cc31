"""The fixed word lists task attributes are drawn from (the generator's samplers and the rl-phone names): a
module of their own, so a task set that only needs words imports no sampler, world or template."""

from __future__ import annotations

NOUNS = (
    "budget", "report", "invoice", "garden", "recipe", "travel", "meeting", "project", "lecture", "poster",
    "holiday", "inventory", "concert", "workshop", "harvest", "journal", "schedule", "package", "science",
    "museum", "library", "kitchen", "bicycle", "planet", "harbor", "river", "forest", "theater", "market",
)  # fmt: skip
ADJECTIVES = (
    "quarterly", "weekly", "green", "quiet", "early", "final", "spare", "urgent", "shared", "annual",
    "small", "bright", "local", "draft", "spring", "winter", "northern", "careful", "simple", "open",
)  # fmt: skip
VERBS = ("starts", "moves", "opens", "closes", "arrives", "begins", "ends", "changes", "returns", "waits")
NAMES = (
    "Anna", "Björn", "Chloé", "Dmitri", "Elif", "Farah", "Gustavo", "Hana", "Iker", "Jonas", "Kenji",
    "Lucía", "Mateo", "Noor", "Olga", "Pavel", "Quinn", "Rosa", "Sven", "Tomás", "Uma", "Zoë",
)  # fmt: skip
EMAIL_NAMES = ("anna", "bjorn", "chloe", "dmitri", "elif", "farah", "hana", "jonas", "kenji", "noor", "rosa")

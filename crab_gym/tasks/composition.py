"""Typed composition of sub-tasks (as in the CRAB paper).

Sub-task α may precede β when α's output type is one of β's input types: β's input attribute of that type
(see ``SubTaskTemplate.inputs``) takes α's output value, and the task graph links α's sinks to β's sources
(``Task.graph()``). A composition is also only *valid* when the sub-tasks cannot get in each other's way,
since the task must be solvable by the concatenated scripted solutions from the pristine state after every
setup has run:

- no template appears twice (two instances would share lists, rows and screens);
- a template with ``screen_setup`` (its setup opens a window) is the first sub-task on each of its devices;
- no two sub-tasks use the same phone app (the phone resumes an app where a previous sub-task left it),
  nor the same single-process desktop app (the Text Editor, the file manager, LibreOffice).

Composed instructions join the sub-instructions in order: "First, …. Then, …. Finally, …".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from crab_gym.core.tasks import SubTask, SubTaskTemplate, Task

__all__ = [
    "compatible",
    "compose",
    "compose_description",
    "feeds",
    "links",
    "sample_composition",
]

MAX_NODES = 11
# Desktop apps that run as one process per session: the Text Editor and the file manager answer a second
# launch with the window they already have (no new window opens, and the launcher waits for one), and
# LibreOffice's programs share one soffice process, which may drop a document still being saved when
# another of its programs starts. At most one sub-task of a composed task may use each family.
APP_FAMILIES = {
    "text_editor": "text_editor",
    "file_manager": "file_manager",
    "writer": "libreoffice",
    "calc": "libreoffice",
    "impress": "libreoffice",
}

# Words that may start a sub-instruction and are lowercased after "First, " / "Then, " (names are not).
_LOWER = frozenset(
    "a add an archive call change copy count create delete edit find in look make mark move on open press "
    "read rename reply save send set sort switch take the turn use using write".split()
)


def feeds(alpha: SubTaskTemplate, beta: SubTaskTemplate) -> list[str]:
    """β's input attributes that α's output may fill (α's output type is their type)."""
    if alpha.output_type is None or alpha.output is None:
        return []
    return [a for a, t in beta.input_types.items() if t == alpha.output_type]


def links(pool: Sequence[SubTaskTemplate]) -> list[tuple[SubTaskTemplate, SubTaskTemplate, str]]:
    """Every (α, β, β's attribute) with α ≠ β and α feeding β, in the pool's order."""
    return [(a, b, attr) for a in pool for b in pool if a is not b for attr in feeds(a, b)]


def _exclusive_apps(t: SubTaskTemplate) -> set[str]:
    phone = {a for a in t.apps if "." in a} if "android" in t.platforms else set()
    return phone | {APP_FAMILIES[a] for a in t.apps if a in APP_FAMILIES}


def compatible(templates: Sequence[SubTaskTemplate]) -> bool:
    """Whether sub-tasks of these templates, run in this order, cannot get in each other's way."""
    ids = [t.id for t in templates]
    if len(set(ids)) != len(ids):
        return False
    seen_platforms: set[str] = set()
    phone_apps: set[str] = set()
    for t in templates:
        if t.screen_setup and seen_platforms & set(t.platforms):
            return False
        seen_platforms |= set(t.platforms)
        apps = _exclusive_apps(t)
        if apps & phone_apps:
            return False
        phone_apps |= apps
    return True


def _lower_first(text: str) -> str:
    word = text.split(" ", 1)[0]
    if word.lower() in _LOWER and word[:1].isupper() and word[1:].islower() | (len(word) == 1):
        return text[0].lower() + text[1:]
    return text


def compose_description(instructions: Sequence[str]) -> str:
    """One instruction from several, in order: "First, …. Then, …. Finally, …"."""
    parts = [s.strip() for s in instructions]
    if len(parts) == 1:
        return parts[0]
    out = []
    for i, s in enumerate(parts):
        if not s.endswith((".", "!", "?")):
            s += "."
        lead = "First, " if i == 0 else ("Finally, " if i == len(parts) - 1 and len(parts) > 2 else "Then, ")
        out.append(lead + _lower_first(s))
    return " ".join(out)


def compose(task_id: str, subtasks: Sequence[SubTask], edges: Sequence[tuple[int, int]] = ()) -> Task:
    """A task of these sub-tasks (in this order) and edges, with the composed instruction."""
    return Task(task_id, compose_description([s.instruction for s in subtasks]), list(subtasks), list(edges))


def _distinct(subtasks: Sequence[SubTask], fed: set[tuple[int, str]]) -> bool:
    """Attribute values drawn (not fed) are distinct across sub-tasks: no two write the same path."""
    seen: set[str] = set()
    for i, s in enumerate(subtasks):
        for name, value in s.attributes.items():
            if (i, name) in fed:
                continue
            key = repr(value)
            if key in seen:
                return False
            seen.add(key)
    return True


def sample_composition(
    rng: random.Random,
    pool: Sequence[SubTaskTemplate],
    task_id: str,
    length: int,
    sample_attributes: Callable[[SubTaskTemplate, random.Random], dict[str, Any]],
    max_nodes: int = MAX_NODES,
    min_nodes: int = 1,
    require_platforms: Sequence[str] | None = None,
    tries: int = 200,
    avoid: set[tuple[str, ...]] | frozenset[tuple[str, ...]] = frozenset(),
) -> Task | None:
    """A random valid composition of ``length`` (2 or more) sub-tasks from ``pool``, or None if none is found.

    It starts from a random typed link α→β; each further sub-task is fed by the output of one already
    chosen (a chain α→β→γ, or a fork α→β, α→γ). ``sample_attributes(template, rng)`` draws a template's
    attributes, and fed attributes then take their predecessor's output (kept only if every template
    still ``accepts`` its attributes). Only ``rng`` is used for randomness and candidates are visited in
    the pool's order, so a seed fixes the result. Template sequences in ``avoid`` are not drawn.
    """
    pairs = links(pool)
    if not pairs:
        return None
    for _ in range(tries):
        a, b, attr_b = pairs[rng.randrange(len(pairs))]
        chosen = [a, b]
        edges = [(0, 1)]
        fed = [(0, 1, attr_b)]
        while len(chosen) < length:
            options = [
                (i, c, x) for i, t in enumerate(chosen) for c in pool if c not in chosen for x in feeds(t, c)
            ]
            if not options:
                break
            src, c, attr = options[rng.randrange(len(options))]
            chosen.append(c)
            edges.append((src, len(chosen) - 1))
            fed.append((src, len(chosen) - 1, attr))
        if len(chosen) < length or not compatible(chosen) or tuple(t.id for t in chosen) in avoid:
            continue
        if require_platforms is not None and not set(require_platforms) <= {
            p for t in chosen for p in t.platforms
        }:
            continue
        subs = [t.instantiate(**sample_attributes(t, rng)) for t in chosen]
        for src, dst, attr in fed:
            attrs = dict(subs[dst].attributes)
            attrs[attr] = subs[src].output()
            subs[dst] = chosen[dst].instantiate(**attrs)
        if not _distinct(subs, {(dst, attr) for _, dst, attr in fed}):
            continue
        if not all(s.template.accepted(s.attributes) for s in subs):  # a fed value may break it
            continue
        task = compose(task_id + "-" + "+".join(t.id for t in chosen), subs, edges)
        if not min_nodes <= task.node_count <= max_nodes:
            continue
        return task
    return None

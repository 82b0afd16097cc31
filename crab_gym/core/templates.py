"""Sub-task templates: a :class:`SubTaskTemplate` turns typed attributes into an instruction, a small DAG of
checks, a setup of device state and a scripted solution; :func:`register` keeps them by id, and the task
sets a template may be drawn into are named here."""

from __future__ import annotations

import string
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from crab_gym.core.evaluators import Check
from crab_gym.core.events import DeviceEvent
from crab_gym.core.user import UserFact

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "ASK_SETS",
    "BASE_SETS",
    "EVENT_SETS",
    "TEMPLATES",
    "V0_SETS",
    "V1_SETS",
    "GraphLike",
    "Step",
    "SubTask",
    "SubTaskTemplate",
    "as_graph",
    "chain",
    "get_template",
    "is_digraph",
    "register",
    "register_on_lookup",
    "registered",
]


@dataclass(frozen=True)
class Step:
    """One action of a scripted solution: which device, which action, its parameters."""

    env: str
    action: str
    params: Mapping[str, Any] = field(default_factory=dict)


GraphLike: TypeAlias = "nx.DiGraph | Sequence[Check]"


def chain(*checks: Check) -> nx.DiGraph:
    """A graph in which each check needs the one before it."""
    import networkx as nx

    g: nx.DiGraph[int] = nx.DiGraph()
    for i, c in enumerate(checks):
        g.add_node(i, check=c)
        if i:
            g.add_edge(i - 1, i)
    return g


def is_digraph(value: GraphLike) -> bool:
    """Whether ``value`` is a networkx graph (without importing networkx when nobody has built one)."""
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(value, nx.DiGraph)


def as_graph(value: GraphLike) -> nx.DiGraph:
    """``value`` as a check graph: a graph as it is, a list of checks chained."""
    if is_digraph(value):
        return cast("nx.DiGraph", value)
    return chain(*cast("Sequence[Check]", value))


# The task sets a template's tasks may be drawn into (``SubTaskTemplate.sets``; crab_gym.tasks builds them):
# "v0" the fixed benchmark (closed: a template added later is never in it), "generated" what
# ``generate_tasks`` draws, "v1" the large set, "ask-user" and "events" the interactive sets.
BASE_SETS = frozenset({"generated", "v1"})  # a template's default: drawn by the generator and in v1
V0_SETS = BASE_SETS | {"v0"}  # the 51 templates v0 was built from
ASK_SETS = frozenset({"ask-user", "v1"})  # only finished by asking the user
EVENT_SETS = frozenset({"events", "v1"})  # reacts to device events
V1_SETS = frozenset({"v1"})  # CRAB's sub-tasks beyond v0's: in v1, never drawn by the generator
_INTERACTIVE_SETS = frozenset({"ask-user", "events"})


@dataclass(frozen=True)
class SubTaskTemplate:
    """A family of sub-tasks: typed attributes in, instruction, checks, setup and solution out.

    ``evaluator(**attrs)`` returns a DAG (or a list of checks, chained); ``setup(envs, **attrs)`` prepares
    device state through the sub-envs' named setup operations; ``solution(**attrs)`` returns the steps that
    solve it from the pristine state after setup.
    """

    id: str
    description: str
    attributes: Mapping[str, str]  # attribute name -> attribute type name
    evaluator: Callable[..., GraphLike]
    solution: Callable[..., list[Step]]
    setup: Callable[..., None] | None = None
    platforms: tuple[str, ...] = ()
    apps: tuple[str, ...] = ()
    output_type: str | None = None
    output: Callable[..., Any] | None = None  # attrs -> the value this sub-task produces
    # Composition (see crab_gym.tasks.composition). ``inputs``: attributes a predecessor's output may fill
    # (each one's attribute type is an input type of this template). ``screen_setup``: the setup opens a
    # window or otherwise fixes what a device shows, so in a composed task this sub-task must be the first
    # to act on its devices. ``setup_inputs``: inputs the setup exists only to prepare (it writes the file
    # an input names), so the setup is skipped when a predecessor feeds one of them.
    inputs: tuple[str, ...] = ()
    screen_setup: bool = False
    setup_inputs: tuple[str, ...] = ()
    # ``setup_each``: the setup prepares each of its setup_inputs on its own (one file each), so a fed one is
    # passed as None (its predecessor makes it) and the setup still prepares the others.
    setup_each: bool = False
    # Attributes the agent must find out on the devices (a contact's number, a code in a message): checks
    # use them, the instruction does not state them. The task lint requires every other attribute a check
    # uses to appear in the instruction.
    hidden: tuple[str, ...] = ()
    # What the task's simulated user knows and answers to ``ask_user`` (crab_gym.core.user): hidden
    # attributes only the user can tell. Such a template is interactive: in "ask-user" (ASK_SETS).
    user: tuple[UserFact, ...] = ()
    # Device events its tasks schedule (crab_gym.core.events): attributes -> events; interactive too, in
    # "events" (EVENT_SETS).
    events: Callable[..., Sequence[DeviceEvent]] | None = None
    # The task sets its tasks may be drawn into (see BASE_SETS); empty: registered only for task files
    # that name it (CRAB's UUIDs). An interactive template is never in "v0" or "generated".
    sets: frozenset[str] = BASE_SETS
    # ``accepts(**attrs)``: whether sampled attributes make a fair task (a Maps route that exists, say);
    # the sampler redraws until it holds (crab_gym.tasks.generator.sample_attributes), and a composition
    # whose fed attributes break it is not drawn. None: any draw.
    accepts: Callable[..., bool] | None = None

    def __post_init__(self) -> None:
        fields = {
            f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(self.description) if f
        }
        unknown = fields - set(self.attributes)
        if unknown:
            raise ValueError(f"template {self.id}: instruction uses undeclared attributes {sorted(unknown)}")
        if not set(self.setup_inputs) <= set(self.inputs):
            raise ValueError(f"template {self.id}: setup_inputs must be among inputs")
        bad = (set(self.inputs) | set(self.hidden)) - set(self.attributes)
        if bad:
            raise ValueError(f"template {self.id}: inputs or hidden {sorted(bad)} are not attributes")
        told = {f.attribute for f in self.user} - set(self.hidden)
        if told:
            raise ValueError(f"template {self.id}: user facts {sorted(told)} must be hidden attributes")
        kinds = {"ask-user"} if self.user else set()
        kinds |= {"events"} if self.events is not None else set()
        wrong = self.sets & ({"v0", "generated"} | _INTERACTIVE_SETS if kinds else _INTERACTIVE_SETS) - kinds
        if wrong:
            raise ValueError(
                f"template {self.id}: not a set for it: {sorted(wrong)} (a template with user facts takes "
                "ASK_SETS, one with events EVENT_SETS, any other none of 'ask-user', 'events')"
            )

    @property
    def interactive(self) -> bool:
        """Its tasks need the user (``ask_user``) or react to device events."""
        return bool(self.user) or self.events is not None

    @property
    def input_types(self) -> dict[str, str]:
        """Input attribute -> its type: what a predecessor's output may fill."""
        return {a: self.attributes[a] for a in self.inputs}

    def accepted(self, attrs: Mapping[str, Any]) -> bool:
        """Whether ``attrs`` satisfy the template's ``accepts`` predicate (always, without one)."""
        return self.accepts is None or bool(self.accepts(**attrs))

    def instantiate(self, **attrs: Any) -> SubTask:
        missing = set(self.attributes) - set(attrs)
        extra = set(attrs) - set(self.attributes)
        if missing or extra:
            raise ValueError(
                f"template {self.id}: attributes missing {sorted(missing)}, unknown {sorted(extra)}; "
                f"expected {dict(self.attributes)}"
            )
        return SubTask(self, dict(attrs))


TEMPLATES: dict[str, SubTaskTemplate] = {}
"""Every registered template by id; which task sets draw from one is its ``sets``. Read it through
:func:`registered`, which first registers the built-in templates if they wait (:func:`register_on_lookup`)."""
_PENDING: list[Callable[[], object]] = []  # what registers templates, run at the first lookup


def register_on_lookup(load: Callable[[], object]) -> None:
    """Have ``load`` (an import that registers templates) run at the first lookup or registration, not now:
    a process that never looks a template up (one on a task set built without the registry) never imports
    them. ``crab_gym.tasks`` defers its built-in templates so."""
    _PENDING.append(load)


def registered() -> dict[str, SubTaskTemplate]:
    """:data:`TEMPLATES`, once what waits to register has (in the order it was deferred)."""
    while _PENDING:
        _PENDING.pop(0)()  # popped first: the templates it imports register through here again
    return TEMPLATES


def register(template: SubTaskTemplate) -> SubTaskTemplate:
    """Register a template by id (after the deferred ones, so a clash with a built-in id is always caught)."""
    known = registered().get(template.id)
    if known is not None and known is not template:
        raise ValueError(f"a sub-task template with id {template.id!r} is already registered")
    TEMPLATES[template.id] = template
    return template


def get_template(template_id: str) -> SubTaskTemplate:
    """A registered template by id. The built-in ones register at the first lookup once ``crab_gym.tasks`` is
    imported."""
    try:
        return registered()[template_id]
    except KeyError:
        raise KeyError(
            f"unknown sub-task template {template_id!r} ({len(TEMPLATES)} registered; "
            "the built-in templates register at the first lookup once crab_gym.tasks is imported)"
        ) from None


@dataclass(frozen=True)
class SubTask:
    template: SubTaskTemplate
    attributes: dict[str, Any]

    @property
    def instruction(self) -> str:
        return self.template.description.format(**self.attributes)

    def graph(self) -> nx.DiGraph:
        return as_graph(self.template.evaluator(**self.attributes))

    def output(self) -> Any:
        return self.template.output(**self.attributes) if self.template.output else None

    def events(self) -> list[DeviceEvent]:
        return list(self.template.events(**self.attributes)) if self.template.events else []

    def to_json(self) -> dict[str, Any]:
        return {"task": self.template.id, "attribute": self.attributes, "output": self.output()}

"""Sub-task templates, tasks composed from them, and the CRAB task JSON shape.

A :class:`SubTaskTemplate` turns typed attributes into an instruction, a small DAG of checks, a setup of
device state and a scripted solution. A :class:`Task` is sub-task instances plus edges between them; its
evaluator graph is the union of the sub-task graphs with an edge from every sink of a predecessor sub-task to
every source of its successor.
"""

from __future__ import annotations

import json
import re
import string
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from crab_gym.core.evaluators import Check
from crab_gym.core.events import DeviceEvent, EventError
from crab_gym.core.graph import GraphEvaluator, topological_order

if TYPE_CHECKING:
    import networkx as nx
from crab_gym.core.user import SimulatedUser, UserFact

__all__ = [
    "ASK_SETS",
    "BASE_SETS",
    "EVENT_SETS",
    "TEMPLATES",
    "V0_SETS",
    "V1_SETS",
    "Step",
    "SubTask",
    "SubTaskTemplate",
    "Task",
    "TaskFileError",
    "chain",
    "get_template",
    "parse_adjlist_text",
    "register",
    "task_from_json",
    "tasks_from_file",
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


def _is_digraph(value: GraphLike) -> bool:
    nx = sys.modules.get("networkx")  # not imported yet: nobody has built a networkx graph
    return nx is not None and isinstance(value, nx.DiGraph)


def _as_graph(value: GraphLike) -> nx.DiGraph:
    if _is_digraph(value):
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
"""Every registered template by id; which task sets draw from one is its ``sets``."""


def register(template: SubTaskTemplate) -> SubTaskTemplate:
    """Register a template by id."""
    known = TEMPLATES.get(template.id)
    if known is not None and known is not template:
        raise ValueError(f"a sub-task template with id {template.id!r} is already registered")
    TEMPLATES[template.id] = template
    return template


def get_template(template_id: str) -> SubTaskTemplate:
    """A registered template by id. The built-in ones register when ``crab_gym.tasks`` is imported."""
    try:
        return TEMPLATES[template_id]
    except KeyError:
        raise KeyError(
            f"unknown sub-task template {template_id!r} ({len(TEMPLATES)} registered; "
            "the built-in templates register when crab_gym.tasks is imported)"
        ) from None


@dataclass(frozen=True)
class SubTask:
    template: SubTaskTemplate
    attributes: dict[str, Any]

    @property
    def instruction(self) -> str:
        return self.template.description.format(**self.attributes)

    def graph(self) -> nx.DiGraph:
        return _as_graph(self.template.evaluator(**self.attributes))

    def output(self) -> Any:
        return self.template.output(**self.attributes) if self.template.output else None

    def events(self) -> list[DeviceEvent]:
        return list(self.template.events(**self.attributes)) if self.template.events else []

    def to_json(self) -> dict[str, Any]:
        return {"task": self.template.id, "attribute": self.attributes, "output": self.output()}


@dataclass
class Task:
    """A task: sub-tasks, the order they must happen in, and an instruction for the whole; ``events``:
    device events the task file declares, besides those of its templates."""

    id: str
    description: str
    subtasks: list[SubTask]
    edges: list[tuple[int, int]] = field(default_factory=list)
    events: list[DeviceEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.subtasks:
            raise ValueError(f"task {self.id}: needs at least one sub-task")
        for u, v in self.edges:
            if not (0 <= u < len(self.subtasks) and 0 <= v < len(self.subtasks)):
                raise ValueError(f"task {self.id}: adjlist edge {u}->{v} names a missing sub-task")
        try:
            self._order = cast("list[int]", topological_order(range(len(self.subtasks)), self.edges))
        except ValueError:
            raise ValueError(f"task {self.id}: adjlist has a cycle") from None

    @property
    def platforms(self) -> tuple[str, ...]:
        used = [p for s in self.subtasks for p in s.template.platforms] + [e.device for e in self.events]
        return tuple(dict.fromkeys(used))

    def all_events(self) -> list[DeviceEvent]:
        """The events of the episode: each sub-task's (in sub-task order), then the task file's."""
        return [e for s in self.subtasks for e in s.events()] + list(self.events)

    @property
    def apps(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for s in self.subtasks for a in s.template.apps))

    def graph(self, parts: Sequence[GraphLike] | None = None) -> nx.DiGraph:
        """Union of the sub-task graphs, sinks of each predecessor linked to sources of its successor
        (``parts``: what the sub-tasks' templates gave, if already asked)."""
        import networkx as nx

        if parts is None:
            parts = [s.template.evaluator(**s.attributes) for s in self.subtasks]
        g: nx.DiGraph[Hashable] = nx.DiGraph()
        sources: dict[int, list[Any]] = {}
        sinks: dict[int, list[Any]] = {}
        for i, part in enumerate(parts):
            sg = _as_graph(part)
            mapping = {n: (i, n) for n in sg.nodes}
            g.update(nx.relabel_nodes(sg, mapping))
            sources[i] = [mapping[n] for n in sg.nodes if sg.in_degree(n) == 0]
            sinks[i] = [mapping[n] for n in sg.nodes if sg.out_degree(n) == 0]
        for u, v in self.edges:
            g.add_edges_from((a, b) for a in sinks[u] for b in sources[v])
        # networkx returns g's own class (a DiGraph); its stub says Graph
        return cast("nx.DiGraph[int]", nx.convert_node_labels_to_integers(g, ordering="sorted"))

    def evaluator(self) -> GraphEvaluator:
        parts = [s.template.evaluator(**s.attributes) for s in self.subtasks]
        if any(_is_digraph(p) or not p or not all(isinstance(c, Check) for c in p) for p in parts):
            return GraphEvaluator(self.graph(parts))  # and its errors for an empty or malformed part
        # Every sub-task a chain of checks: the graph graph() would build, numbered as it numbers it
        # (sub-task by sub-task), without networkx (an import of ~0.1 s at every process start).
        chains = [list(cast("Sequence[Check]", p)) for p in parts]
        first = [sum(map(len, chains[:i])) for i in range(len(chains))]
        checks = [c for ch in chains for c in ch]
        succs: list[dict[int, None]] = [{n + 1: None} for n in range(len(checks))]
        for i, ch in enumerate(chains):
            succs[first[i] + len(ch) - 1] = {}
        for u, v in self.edges:
            succs[first[u] + len(chains[u]) - 1][first[v]] = None
        return GraphEvaluator._from_dag(checks, [list(s) for s in succs])

    def fed_inputs(self, i: int) -> set[str]:
        """Input attributes of sub-task ``i`` whose value is the output of a predecessor (an edge into it)."""
        sub = self.subtasks[i]
        fed = set()
        for u, v in self.edges:
            if v != i:
                continue
            pred = self.subtasks[u]
            out = pred.output()
            for name, typ in sub.template.input_types.items():
                kind = pred.template.output_type
                # "path.png" is a kind of "path": the value being the predecessor's output decides
                same_kind = kind is not None and typ.split(".")[0] == kind.split(".")[0]
                if same_kind and out is not None and sub.attributes[name] == out:
                    fed.add(name)
        return fed

    @property
    def needs_user(self) -> bool:
        """A sub-task needs the simulated user (``ask_user``)."""
        return any(s.template.user for s in self.subtasks)

    def simulated_user(self) -> SimulatedUser:
        """The user who answers ``ask_user``: the user facts of every sub-task, in sub-task order."""
        return SimulatedUser(tuple((f, s.attributes) for s in self.subtasks for f in s.template.user))

    def setup(self, envs: Mapping[str, Any]) -> None:
        root = envs.get("root")
        if root is not None and hasattr(root, "user"):  # the root device answers ask_user as this user
            root.user = self.simulated_user()
        for i in self._order:
            sub = self.subtasks[i]
            if sub.template.setup is None:
                continue
            fed = set(sub.template.setup_inputs) & self.fed_inputs(i)
            if fed and not sub.template.setup_each:
                continue
            sub.template.setup(envs, **{k: None if k in fed else v for k, v in sub.attributes.items()})

    def solution(self) -> list[Step]:
        return [
            step
            for i in self._order
            for step in self.subtasks[i].template.solution(**self.subtasks[i].attributes)
        ]

    @property
    def node_count(self) -> int:
        return self.graph().number_of_nodes()

    def to_json(self) -> dict[str, Any]:
        adj: dict[str, list[int]] = {str(i): [] for i in range(len(self.subtasks))}
        for u, v in self.edges:
            adj[str(u)].append(v)
        out = {
            "id": self.id,
            "description": self.description,
            "tasks": [s.to_json() for s in self.subtasks],
            "adjlist": adj,
        }
        if self.events:
            out["events"] = [e.to_json() for e in self.events]
        return out


class TaskFileError(ValueError):
    """A malformed task file; the message names the file and the field."""


def task_from_json(
    obj: Mapping[str, Any],
    source: str = "<task>",
    lookup: Callable[[str], SubTaskTemplate] = get_template,
) -> Task:
    """Build a Task from the CRAB JSON shape; errors name ``source`` and the field at fault.

    ``lookup`` finds a sub-task's template by id (KeyError with the reason when there is none)."""

    def fail(where: str, why: str) -> TaskFileError:
        return TaskFileError(f"{source}: {where}: {why}")

    if not isinstance(obj, Mapping):
        raise fail("(top level)", "must be an object with id, description, tasks, adjlist")
    for key, typ in (("id", str), ("description", str), ("tasks", list)):
        if not isinstance(obj.get(key), typ):
            raise fail(key, f"must be a {typ.__name__}")
    if not obj["tasks"]:
        raise fail("tasks", "needs at least one sub-task")
    tid = obj["id"]
    subs = []
    for i, entry in enumerate(obj["tasks"]):
        where = f"tasks[{i}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("task"), str):
            raise fail(f"{where}.task", "must name a sub-task template")
        try:
            template = lookup(entry["task"])
        except KeyError as e:
            raise fail(f"{where}.task", str(e.args[0])) from None
        attrs = entry.get("attribute", {})
        if not isinstance(attrs, Mapping):
            raise fail(f"{where}.attribute", "must be an object")
        try:
            sub = template.instantiate(**attrs)
        except ValueError as e:
            raise fail(f"{where}.attribute", str(e)) from None
        try:  # attribute values of the wrong kind break the template's instruction, checks or solution
            sub.instruction, _as_graph(sub.graph()), sub.template.solution(**sub.attributes)
        except Exception as e:
            raise fail(
                f"{where}.attribute", f"does not fit template {template.id} ({type(e).__name__}: {e})"
            ) from None
        subs.append(sub)
    adj = obj.get("adjlist", {})
    if isinstance(adj, str):  # CRAB's files: networkx's adjlist text, a line "node successor ..." each
        try:
            adj = parse_adjlist_text(adj)
        except ValueError as e:
            raise fail("adjlist", str(e)) from None
    if not isinstance(adj, Mapping):
        raise fail("adjlist", "must be an object of sub-task index -> list of indices, or adjlist text")
    edges: list[tuple[int, int]] = []
    for k, vs in adj.items():
        if (
            not re.fullmatch(r"[0-9]+", str(k))
            or not isinstance(vs, list)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in vs)
        ):
            raise fail(f"adjlist[{k!r}]", "keys must be sub-task indices and values lists of indices")
        edges.extend((int(k), v) for v in vs)
    events = obj.get("events", [])
    if not isinstance(events, list):
        raise fail("events", "must be a list of events")
    parsed = []
    for i, entry in enumerate(events):
        try:
            parsed.append(DeviceEvent.from_json(entry))
        except EventError as e:
            raise fail(f"events[{i}]", str(e)) from None
    try:
        return Task(tid, obj["description"], subs, edges, parsed)
    except ValueError as e:
        raise fail("adjlist", str(e)) from None


def parse_adjlist_text(text: str) -> dict[str, list[int]]:
    """``"0 1\\n1"`` -> ``{"0": [1], "1": []}``: each line a node then its successors, ``#`` comments."""
    adj: dict[str, list[int]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if not all(re.fullmatch(r"[0-9]+", w) for w in words):
            raise ValueError(f"line {n} {line!r}: adjlist text holds sub-task indices only")
        adj.setdefault(words[0], []).extend(int(w) for w in words[1:])
    return adj


def tasks_from_file(
    path: str | Path,
    lookup: Callable[[str], SubTaskTemplate] = get_template,
    prepare: Callable[[Any], Any] | None = None,
) -> list[Task]:
    """Load a JSON file holding one task object or a list of them; ``prepare`` may rewrite each object
    before it is read (a dialect's adaptations)."""
    path = Path(path)
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except json.JSONDecodeError as e:
        raise TaskFileError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from None
    except UnicodeDecodeError as e:
        raise TaskFileError(f"{path}: not valid JSON (not UTF-8 text at byte {e.start})") from None
    except RecursionError:
        raise TaskFileError(f"{path}: not valid JSON (nested too deeply to read)") from None
    items: Iterable[Any] = data if isinstance(data, list) else [data]
    if prepare is not None:
        items = [prepare(obj) for obj in items]
    return [
        task_from_json(obj, f"{path}[{i}]" if isinstance(data, list) else str(path), lookup)
        for i, obj in enumerate(items)
    ]

"""Tasks composed from sub-task templates (``crab_gym.core.templates``, whose names this module also
exports), and the CRAB task JSON shape.

A :class:`Task` is sub-task instances plus edges between them; its evaluator graph is the union of the
sub-task graphs with an edge from every sink of a predecessor sub-task to every source of its successor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from crab_gym.core.evaluators import Check
from crab_gym.core.events import DeviceEvent, EventError
from crab_gym.core.graph import GraphEvaluator, topological_order
from crab_gym.core.templates import (
    ASK_SETS,
    BASE_SETS,
    EVENT_SETS,
    TEMPLATES,
    V0_SETS,
    V1_SETS,
    GraphLike,
    Step,
    SubTask,
    SubTaskTemplate,
    as_graph,
    chain,
    get_template,
    is_digraph,
    register,
    register_on_lookup,
    registered,
)
from crab_gym.core.user import SimulatedUser

if TYPE_CHECKING:
    import networkx as nx

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
    "register_on_lookup",
    "registered",
    "task_from_json",
    "tasks_from_file",
]


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
            sg = as_graph(part)
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
        if any(is_digraph(p) or not p or not all(isinstance(c, Check) for c in p) for p in parts):
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
            # (the checks themselves: chaining a list of them, which needs networkx, cannot fail)
            sub.instruction, sub.template.evaluator(**sub.attributes), sub.template.solution(**sub.attributes)
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

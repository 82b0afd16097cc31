"""The CRAB graph evaluator: a DAG of checks that unlock one another as the agent makes progress.

A node is *active* when it has not passed and it has no predecessors or all of them have passed. Each update
checks the active nodes; a node that passes stays passed and unlocks its successors, which are checked in the
same update. The completion ratio is the share of passed nodes; the task succeeds when every sink has passed.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from crab_gym.core.evaluators import Check, CheckResult, _StateMemo

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["GraphEvaluator", "topological_order"]


def topological_order(
    nodes: Iterable[Hashable], edges: Iterable[tuple[Hashable, Hashable]]
) -> list[Hashable]:
    """The nodes in networkx's ``topological_sort`` order (generation by generation, in insertion order of
    nodes and edges; repeated edges count once), without importing networkx; ``ValueError`` on a cycle."""
    succs: dict[Hashable, dict[Hashable, None]] = {n: {} for n in nodes}
    for u, v in edges:
        succs.setdefault(u, {})[v] = None
        succs.setdefault(v, {})
    indegree = dict.fromkeys(succs, 0)
    for children in succs.values():
        for child in children:
            indegree[child] += 1
    order: list[Hashable] = []
    generation = [n for n, d in indegree.items() if d == 0]
    while generation:
        order += generation
        following = []
        for node in generation:
            for child in succs[node]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    following.append(child)
        generation = following
    if len(order) != len(succs):
        raise ValueError("the graph has a cycle")
    return order


class GraphEvaluator:
    """Tracks which checks of a task graph have passed; nodes carry their :class:`Check` as ``check``.

    The structure (topological order, predecessor and successor indices) is fixed at construction, so an
    update costs little more than the checks it runs.
    """

    def __init__(self, graph: nx.DiGraph) -> None:
        import networkx as nx  # the caller has a networkx graph: already imported

        if graph.number_of_nodes() == 0:
            raise ValueError("a task graph needs at least one node")
        for node, data in graph.nodes(data=True):
            if not isinstance(data.get("check"), Check):
                raise ValueError(
                    f"graph node {node!r} has no Check in its 'check' attribute (got {data.get('check')!r})"
                )
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            pass
        else:
            path = [u for u, _ in cycle] + [cycle[0][0]]
            raise ValueError("a task graph must be acyclic; cycle: " + " -> ".join(map(repr, path)))
        self._graph: nx.DiGraph | None = graph
        self._setup(
            tuple(nx.topological_sort(graph)),
            {n: graph.nodes[n]["check"] for n in graph.nodes},
            {n: tuple(graph.successors(n)) for n in graph.nodes},
        )

    def _setup(
        self,
        order: Sequence[Hashable],
        checks: Mapping[Hashable, Check],
        succs: Mapping[Hashable, Sequence[Hashable]],
    ) -> None:
        self.nodes: tuple[Hashable, ...] = tuple(order)
        index = {node: i for i, node in enumerate(self.nodes)}
        self._index = index
        self._checks: tuple[Check, ...] = tuple(checks[n] for n in self.nodes)
        self._succs = tuple(tuple(index[s] for s in succs[n]) for n in self.nodes)
        preds: list[list[int]] = [[] for _ in self.nodes]
        for i, succ in enumerate(self._succs):
            for j in succ:
                preds[j].append(i)
        self._preds = tuple(map(tuple, preds))
        self._sinks = tuple(i for i, succ in enumerate(self._succs) if not succ)
        self._n = len(self.nodes)
        self.reset()

    @classmethod
    def _from_dag(cls, checks: Sequence[Check], succs: Sequence[Sequence[int]]) -> GraphEvaluator:
        """Node ``i`` carries ``checks[i]`` and precedes ``succs[i]`` (in that order, no repeats), acyclic:
        the evaluator ``cls(graph)`` builds for the same networkx graph, without importing networkx."""
        self = cls.__new__(cls)
        self._graph = None
        nodes = range(len(checks))
        order = topological_order(nodes, ((i, j) for i in nodes for j in succs[i]))
        self._setup(order, dict(enumerate(checks)), dict(enumerate(succs)))
        return self

    @property
    def graph(self) -> nx.DiGraph:
        """The task graph (networkx; built on first use for an evaluator made without one)."""
        if self._graph is None:
            import networkx as nx

            g: nx.DiGraph[Hashable] = nx.DiGraph()
            for i in range(self._n):
                g.add_node(i, check=self._checks[self._index[i]])
            g.add_edges_from((i, self.nodes[j]) for i in range(self._n) for j in self._succs[self._index[i]])
            self._graph = g
        return self._graph

    @classmethod
    def from_checks(cls, checks: Sequence[Check], edges: Iterable[tuple[int, int]]) -> GraphEvaluator:
        """A graph whose node ``i`` carries ``checks[i]``; edges ``(i, j)`` mean i must pass before j."""
        import networkx as nx

        graph: nx.DiGraph[int] = nx.DiGraph()
        for i, check in enumerate(checks):
            graph.add_node(i, check=check)
        for u, v in edges:
            for end in (u, v):
                if end not in graph:
                    raise ValueError(
                        f"edge ({u}, {v}) names node {end!r}, but nodes are 0..{len(checks) - 1}"
                    )
            graph.add_edge(u, v)
        return cls(graph)

    # -- progress -------------------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget all progress: only the source nodes are active again."""
        self._passed = [False] * self._n
        self._waiting = [len(p) for p in self._preds]  # predecessors not yet passed
        self._errors: list[str | None] = [None] * self._n
        self._num_passed = 0

    def progress(self) -> tuple[tuple[bool, ...], tuple[str | None, ...]]:
        """What :meth:`update` has found so far (passed flags and last errors, by node): plain values."""
        return tuple(self._passed), tuple(self._errors)

    def set_progress(self, progress: tuple[Sequence[bool], Sequence[str | None]]) -> None:
        """Put back what :meth:`progress` returned, for a graph of the same nodes."""
        passed, errors = list(progress[0]), list(progress[1])
        if len(passed) != self._n or len(errors) != self._n:
            raise ValueError(f"progress of {len(passed)} nodes given to a graph of {self._n}")
        self._passed, self._errors = [bool(p) for p in passed], errors
        self._waiting = [sum(not passed[p] for p in preds) for preds in self._preds]
        self._num_passed = sum(self._passed)

    def update(self, states: Mapping[str, Any]) -> list[Hashable]:
        """Check the active nodes against ``states`` (cascading to unlocked successors); newly passed nodes.

        ``states`` maps sub-env names to their state objects and may be lazy: a state is read only when a
        check needs it, at most once per update, and each distinct check runs at most once per update.
        """
        memo = _StateMemo(states)
        cache: dict[Check, CheckResult] = {}
        passed, waiting, errors = self._passed, self._waiting, self._errors
        newly: list[Hashable] = []
        for i in range(self._n):  # topological order: a node unlocked here is reached later in this sweep
            if passed[i] or waiting[i]:
                continue
            result = self._checks[i]._run(memo, cache)
            errors[i] = result.error
            if result.passed:
                passed[i] = True
                self._num_passed += 1
                newly.append(self.nodes[i])
                for j in self._succs[i]:
                    waiting[j] -= 1
        return newly

    # -- read-outs ------------------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Number of nodes."""
        return self._n

    def __len__(self) -> int:
        return self._n

    @property
    def completion_ratio(self) -> float:
        """Passed nodes / all nodes."""
        return self._num_passed / self._n

    @property
    def success(self) -> bool:
        """Whether every sink (node without successors) has passed."""
        return all(self._passed[i] for i in self._sinks)

    @property
    def passed(self) -> set[Hashable]:
        """Nodes that have passed."""
        return {self.nodes[i] for i in range(self._n) if self._passed[i]}

    @property
    def active(self) -> set[Hashable]:
        """Nodes not yet passed whose predecessors have all passed."""
        return {self.nodes[i] for i in self._active_indices()}

    def _active_indices(self) -> list[int]:
        return [i for i in range(self._n) if not self._passed[i] and not self._waiting[i]]

    def check(self, node: Hashable) -> Check:
        """The check of ``node``."""
        return self._checks[self._index[node]]

    def node_states(self) -> list[dict[str, Any]]:
        """Per node, in topological order: id, name, description, status and the last evaluation error."""
        out = []
        for i, node in enumerate(self.nodes):
            if self._passed[i]:
                status = "passed"
            elif not self._waiting[i]:
                status = "active"
            else:
                status = "inactive"
            check = self._checks[i]
            out.append(
                {
                    "id": node,
                    "name": check.name,
                    "description": check.description,
                    "status": status,
                    "error": self._errors[i],
                }
            )
        return out

    def feedback(self) -> list[str]:
        """One sentence per active (unlocked, unmet) check: ``"Not yet: <the check's description>"``."""
        return [f"Not yet: {self._checks[i].description}" for i in self._active_indices()]

    def __repr__(self) -> str:
        return f"GraphEvaluator({self._num_passed}/{self._n} passed, success={self.success})"

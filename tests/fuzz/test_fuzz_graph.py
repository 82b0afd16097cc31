"""Properties of the graph evaluator over generated DAGs and generated device histories.

Each node's check asks whether its item is in the device state (a set of items), or raises for a poisoned
item. Over any sequence of states: CR never decreases and passed nodes stay passed, success holds iff every
sink passed, a node passes only after all its predecessors, and one update reaches the same fixpoint as a
reference cascade (every unlocked node whose check holds now is passed in that same update).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import networkx as nx
import pytest
from fuzz_support import budget
from hypothesis import given
from hypothesis import strategies as st

from crab_gym.core.evaluators import evaluator
from crab_gym.core.graph import GraphEvaluator

pytestmark = pytest.mark.fuzz

POISON = -1


@evaluator(env="fuzzdev")
def fuzz_holds(state: frozenset, item: int) -> bool:
    """item {item} holds"""
    if POISON in state and item % 5 == 0:
        raise RuntimeError(f"reading item {item} failed")
    return item in state


@st.composite
def dags(draw: st.DrawFn) -> tuple[nx.DiGraph, list[int]]:
    """A DAG of 1-12 nodes (edges only from lower to higher index) whose nodes check items; items repeat,
    so several nodes may share one check."""
    n = draw(st.integers(1, 12))
    items = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    edges = draw(
        st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda e: e[0] < e[1]))
    )
    order = draw(st.permutations(range(n)))  # node labels in another order than the topological one
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(order[i], check=fuzz_holds(item=items[i]))
    g.add_edges_from((order[u], order[v]) for u, v in edges)
    return g, items


histories = st.lists(st.frozensets(st.integers(POISON, 9), max_size=10), min_size=1, max_size=12)


class CountingStates(Mapping[str, Any]):
    """The device state, counting reads: an update reads a device's state at most once."""

    def __init__(self, state: frozenset) -> None:
        self.state, self.reads = state, 0

    def __getitem__(self, name: str) -> Any:
        if name != "fuzzdev":
            raise KeyError(name)
        self.reads += 1
        return self.state

    def __iter__(self) -> Iterator[str]:
        return iter(["fuzzdev"])

    def __len__(self) -> int:
        return 1


def reference_update(g: nx.DiGraph, passed: set, state: frozenset) -> set:
    """The cascade by its definition: pass unlocked nodes whose check holds until nothing changes."""
    passed = set(passed)
    changed = True
    while changed:
        changed = False
        for node in g.nodes:
            if node in passed or not all(p in passed for p in g.predecessors(node)):
                continue
            if g.nodes[node]["check"].evaluate({"fuzzdev": state}):
                passed.add(node)
                changed = True
    return passed


@budget(ci=400, long=20_000)
@given(dag=dags(), history=histories)
def test_graph_evaluator_properties(fuzz_profile, dag, history):
    g, _ = dag
    ev = GraphEvaluator(g)
    sinks = {n for n in g.nodes if g.out_degree(n) == 0}
    expected: set = set()
    cr = ev.completion_ratio
    assert cr == 0.0 and not ev.passed
    for state in history:
        before = ev.passed
        states = CountingStates(state)
        newly = ev.update(states)
        assert states.reads <= 1
        expected = reference_update(g, expected, state)
        assert ev.passed == expected  # the cascade reaches the fixpoint in one update
        assert set(newly) == expected - before and len(newly) == len(set(newly))
        assert before <= ev.passed  # passed nodes stay passed
        assert ev.completion_ratio >= cr  # CR never decreases
        cr = ev.completion_ratio
        assert cr == pytest.approx(len(expected) / g.number_of_nodes())
        assert ev.success == (sinks <= ev.passed)  # success iff every sink passed
        for node in ev.passed:  # a node passes only after all of its predecessors
            assert set(g.predecessors(node)) <= ev.passed
        active = {n for n in g.nodes if n not in ev.passed and set(g.predecessors(n)) <= ev.passed}
        assert ev.active == active
        for node in active:  # nothing left unlocked that holds now
            assert not g.nodes[node]["check"].evaluate({"fuzzdev": state})
        assert len(ev.feedback()) == len(active)
        statuses = {s["id"]: s["status"] for s in ev.node_states()}
        assert {n for n, s in statuses.items() if s == "passed"} == ev.passed
        assert {n for n, s in statuses.items() if s == "active"} == active
    ev.reset()
    assert not ev.passed and ev.completion_ratio == 0.0


@budget(ci=200, long=5_000)
@given(dag=dags(), history=histories)
def test_rewards_sum_to_the_final_completion_ratio(fuzz_profile, dag, history):
    """Dense reward is the growth of CR, so a return telescopes to the final CR (never negative)."""
    g, _ = dag
    ev = GraphEvaluator(g)
    total = 0.0
    for state in history:
        before = ev.completion_ratio
        ev.update(CountingStates(state))
        reward = ev.completion_ratio - before
        assert reward >= 0.0
        total += reward
    assert total == pytest.approx(ev.completion_ratio)


@budget(ci=200, long=5_000)
@given(
    n=st.integers(1, 8),
    edges=st.lists(st.tuples(st.integers(-2, 9), st.integers(-2, 9)), max_size=12),
)
def test_bad_graphs_are_value_errors_with_a_reason(fuzz_profile, n, edges):
    """Cycles, self-loops and edges to missing nodes are refused with a message; good graphs load."""
    checks = [fuzz_holds(item=i) for i in range(n)]
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    acyclic = nx.is_directed_acyclic_graph(g)
    in_range = all(0 <= u < n and 0 <= v < n for u, v in edges)
    if acyclic and in_range:
        assert GraphEvaluator.from_checks(checks, edges).total == n
    else:
        with pytest.raises(ValueError) as err:
            GraphEvaluator.from_checks(checks, edges)
        assert "cycle" in str(err.value) or "names node" in str(err.value)

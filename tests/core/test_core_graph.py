"""GraphEvaluator: the CRAB activation rule, cascades, completion ratio, success, feedback, laziness."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import networkx as nx
import pytest

from crab_gym.core import Check, GraphEvaluator, evaluator

ENV = "coregraph"
PHONE = "coregraph_phone"
CALLS: list[str] = []  # flags evaluated, in order


@evaluator(env=ENV)
def flag(state: set[str], name: str) -> bool:
    """flag {name} is set"""
    CALLS.append(name)
    return name in state


@evaluator(env=PHONE)
def phone_flag(state: set[str], name: str) -> bool:
    """the phone shows {name}"""
    return name in state


@evaluator(env=ENV)
def broken(state: set[str]) -> bool:
    """the impossible holds"""
    raise ZeroDivisionError("no")


class LazyStates(Mapping[str, Any]):
    """Counts state fetches per sub-env."""

    def __init__(self, **states: set[str]) -> None:
        self.states = states
        self.fetches: dict[str, int] = {}

    def __getitem__(self, env: str) -> Any:
        self.fetches[env] = self.fetches.get(env, 0) + 1
        return self.states[env]

    def __iter__(self) -> Iterator[str]:
        return iter(self.states)

    def __len__(self) -> int:
        return len(self.states)


def diamond() -> GraphEvaluator:
    """a -> b, a -> c, b -> d, c -> d."""
    checks = [flag(name=n) for n in "abcd"]
    return GraphEvaluator.from_checks(checks, [(0, 1), (0, 2), (1, 3), (2, 3)])


def states(*flags: str) -> dict[str, set[str]]:
    return {ENV: set(flags), PHONE: set()}


def test_initially_only_sources_are_active() -> None:
    g = diamond()
    assert g.active == {0} and g.passed == set()
    assert g.completion_ratio == 0.0 and not g.success
    assert len(g) == g.total == 4


def test_successor_waits_for_all_predecessors() -> None:
    g = diamond()
    assert g.update(states("a", "b")) == [0, 1]
    assert g.active == {2}, "d needs c as well"
    assert g.completion_ratio == 0.5
    assert g.update(states("d")) == [], "d is not active while c has not passed"
    assert 3 not in g.passed


def test_cascade_in_one_update() -> None:
    g = diamond()
    assert g.update(states("a", "b", "c", "d")) == [0, 1, 2, 3]
    assert g.success and g.completion_ratio == 1.0 and g.active == set()


def test_passed_nodes_stay_passed() -> None:
    g = diamond()
    g.update(states("a"))
    assert g.update(states()) == []
    assert g.passed == {0}
    assert g.update(states("b", "c", "d")) == [1, 2, 3]
    assert g.success


def test_inactive_nodes_are_not_evaluated() -> None:
    g = diamond()
    CALLS.clear()
    g.update(states())
    assert CALLS == ["a"]


def test_success_needs_every_sink() -> None:
    # two independent chains: a -> b and c; sinks are b and c
    g = GraphEvaluator.from_checks([flag(name="a"), flag(name="b"), flag(name="c")], [(0, 1)])
    g.update(states("a", "b"))
    assert not g.success and g.completion_ratio == pytest.approx(2 / 3)
    g.update(states("c"))
    assert g.success


def test_reset_clears_progress() -> None:
    g = diamond()
    g.update(states("a", "b", "c", "d"))
    g.reset()
    assert g.passed == set() and g.active == {0} and g.completion_ratio == 0.0


def test_cycle_rejected_with_its_path() -> None:
    with pytest.raises(ValueError, match=r"cycle: .*1 -> 2 -> 1|cycle: .*2 -> 1 -> 2"):
        GraphEvaluator.from_checks([flag(name=n) for n in "abc"], [(0, 1), (1, 2), (2, 1)])


def test_node_without_check_rejected() -> None:
    graph = nx.DiGraph()
    graph.add_node("x", check=flag(name="x"))
    graph.add_node("y")
    with pytest.raises(ValueError, match="'y'"):
        GraphEvaluator(graph)


def test_bad_edge_and_empty_graph_rejected() -> None:
    with pytest.raises(ValueError, match="5"):
        GraphEvaluator.from_checks([flag(name="a")], [(0, 5)])
    with pytest.raises(ValueError, match="at least one node"):
        GraphEvaluator.from_checks([], [])


def test_named_nodes_from_networkx() -> None:
    graph = nx.DiGraph()
    graph.add_node("open", check=phone_flag(name="settings"))
    graph.add_node("toggle", check=phone_flag(name="wifi off"))
    graph.add_edge("open", "toggle")
    g = GraphEvaluator(graph)
    assert g.update({PHONE: {"settings", "wifi off"}}) == ["open", "toggle"]
    assert g.check("toggle").description == "the phone shows wifi off"


def test_node_states_and_feedback() -> None:
    checks = [flag(name="a"), flag(name="b"), broken(), flag(name="d")]
    g = GraphEvaluator.from_checks(checks, [(0, 1), (0, 2), (1, 3)])
    g.update(states("a"))
    by_id = {s["id"]: s for s in g.node_states()}
    assert [by_id[i]["status"] for i in range(4)] == ["passed", "active", "active", "inactive"]
    assert by_id[1]["name"] == "flag(name='b')" and by_id[1]["description"] == "flag b is set"
    assert by_id[1]["error"] is None
    assert by_id[2]["error"] == "broken() raised ZeroDivisionError: no"
    assert sorted(g.feedback()) == ["Not yet: flag b is set", "Not yet: the impossible holds"]


def test_shared_check_evaluated_once_per_update() -> None:
    # the same check object in two nodes, and an equal check built separately in a third
    same = flag(name="x")
    g = GraphEvaluator.from_checks([same, same, flag(name="x"), flag(name="y")], [])
    CALLS.clear()
    g.update(states())
    assert sorted(CALLS) == ["x", "y"]
    CALLS.clear()
    g.update(states())
    assert sorted(CALLS) == ["x", "y"], "the cache lives for one update only"


def test_check_shared_inside_combinators_evaluated_once() -> None:
    x = flag(name="x")
    g = GraphEvaluator.from_checks([x & flag(name="y"), x | flag(name="z"), x], [])
    CALLS.clear()
    g.update(states("x", "y"))
    assert CALLS.count("x") == 1
    assert g.success


def test_states_are_fetched_lazily_and_once() -> None:
    g = GraphEvaluator.from_checks(
        [flag(name="a"), flag(name="b"), phone_flag(name="call")], [(0, 1), (1, 2)]
    )
    lazy = LazyStates(**{ENV: {"a"}, PHONE: {"call"}})
    g.update(lazy)
    assert lazy.fetches == {ENV: 1}, "the phone check is not active, so its state is never asked for"
    lazy = LazyStates(**{ENV: {"a", "b"}, PHONE: {"call"}})
    g.update(lazy)
    assert lazy.fetches == {ENV: 1, PHONE: 1}
    assert g.success


def test_mixed_env_combinator_node() -> None:
    g = GraphEvaluator.from_checks([flag(name="a") & phone_flag(name="ok")], [])
    assert g.update({ENV: {"a"}, PHONE: set()}) == []
    assert g.update({ENV: {"a"}, PHONE: {"ok"}}) == [0]


def test_ad_hoc_checks_work_too() -> None:
    always = Check(name="always", description="always", env=ENV, fn=lambda state: True)
    g = GraphEvaluator.from_checks([always, flag(name="q")], [(0, 1)])
    assert g.update(states()) == [0]
    assert g.active == {1}


def test_topological_order_is_networkx_order() -> None:
    import random

    import networkx as nx

    from crab_gym.core.graph import topological_order

    rng = random.Random(0)
    for _ in range(200):
        n = rng.randint(1, 9)
        perm = rng.sample(range(n), n)  # a DAG along a random permutation, edges in random order, repeats
        edges = [(perm[a], perm[b]) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.4]
        edges = rng.sample(edges, len(edges)) + edges[:2]
        nodes = rng.sample(range(n), n)
        g: nx.DiGraph[int] = nx.DiGraph()
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
        assert topological_order(nodes, edges) == list(nx.topological_sort(g))
    with pytest.raises(ValueError, match="cycle"):
        topological_order([0, 1, 2], [(0, 1), (1, 2), (2, 0)])


def test_a_tasks_evaluator_without_networkx_is_the_one_from_its_graph() -> None:
    from crab_gym.tasks import load_tasks

    for task in load_tasks("rl-phone") + load_tasks("v0"):
        fast, full = task.evaluator(), GraphEvaluator(task.graph())
        assert fast.nodes == full.nodes and fast._checks == full._checks and fast._succs == full._succs
        assert sorted(fast.graph.edges) == sorted(full.graph.edges), task.id
        assert [fast.graph.nodes[n]["check"] for n in fast.graph] == [
            full.graph.nodes[n]["check"] for n in full.graph
        ]

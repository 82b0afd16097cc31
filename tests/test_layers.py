"""The packages of crab_gym form layers: no import cycle between packages, and no `_private` name imported
from another package.

A node of the graph is a package (``crab_gym.envs.android.sim``, ``crab_gym.tasks``) or a top-level module
of ``crab_gym`` (``crab_gym.env``, ``crab_gym.cli``); a module belongs to the package that holds it. Every
import counts wherever it stands: at the top, inside a function (a lazy import still ties the two layers
together, it only hides the knot from the interpreter) and under ``TYPE_CHECKING`` (a low layer that names a
high layer's types knows about it; the cure is a Protocol in the low layer, not a guarded import).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "crab_gym"

# (importer, imported): an edge that may close a cycle, each with the reason it is fine. Keep it short.
ALLOWED: dict[tuple[str, str], str] = {
    ("crab_gym.runs.distributed", "crab_gym.runs"): (
        "one layer in two packages: the Ray actors run the same worker pool (runs.pool) that collect and"
        " eval hand their jobs to Ray with; Ray's code sits in its own package, imported only when asked"
    ),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
PACKAGES = {m for m, p in MODULES.items() if p.name == "__init__.py"} | {
    _module_name(p.parent / "__init__.py") for p in MODULES.values()
}


def node_of(module: str) -> str:
    """The package a module belongs to; a top-level module of crab_gym is its own node."""
    if module in PACKAGES:
        return module
    parent = module.rpartition(".")[0]
    return module if parent == "crab_gym" else parent


def _known(dotted: str) -> str | None:
    """The longest prefix of ``dotted`` that is a module or package of crab_gym."""
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in MODULES or name in PACKAGES:
            return name
    return None


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def imports(module: str, path: Path) -> list[tuple[str, list[str], int, str]]:
    """Every import of crab_gym in a module: (target module, names imported from it, line, source text)."""
    source = path.read_text()
    lines = source.splitlines()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source, str(path))):
        text = lines[node.lineno - 1].strip() if hasattr(node, "lineno") else ""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "crab_gym" and (target := _known(alias.name)):
                    out.append((target, [alias.name.rpartition(".")[2]], node.lineno, text))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                dotted = ".".join([*base, node.module] if node.module else base)
            else:
                dotted = node.module or ""
            if dotted.split(".")[0] != "crab_gym":
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                target = _known(f"{dotted}.{alias.name}") or _known(dotted)
                if target:
                    out.append((target, [alias.name], node.lineno, text))
    return out


def _graph() -> tuple[nx.DiGraph, dict[tuple[str, str], list[str]], list[str]]:
    graph: nx.DiGraph = nx.DiGraph()
    where: dict[tuple[str, str], list[str]] = defaultdict(list)
    private = []
    for module, path in MODULES.items():
        src = node_of(module)
        graph.add_node(src)
        rel = path.relative_to(ROOT)
        for target, names, line, text in imports(module, path):
            dst = node_of(target)
            if dst == src:
                continue
            graph.add_edge(src, dst)
            if (at := f"{rel}:{line}  {text}") not in where[(src, dst)]:
                where[(src, dst)].append(at)
            bad = [n for n in [*target.split(".")[1:], *names] if _private(n)]
            if bad:
                private.append(f"{rel}:{line}  {text}  ({', '.join(bad)} of {dst})")
    return graph, where, private


def _cycles(graph: nx.DiGraph) -> list[list[str]]:
    """The short cycles of every knot (strongly connected set of packages), and the shortest cycle through
    each package of a knot that no short one passes through."""
    found = []
    for knot in nx.strongly_connected_components(graph):
        if len(knot) < 2:
            continue
        sub = graph.subgraph(knot)
        cycles = sorted(nx.simple_cycles(sub, length_bound=3), key=lambda c: (len(c), c))[:40]
        for node in sorted(knot - {n for c in cycles for n in c}):
            paths = [nx.shortest_path(sub, s, node) for s in sub.successors(node)]
            cycles.append([node, *min(paths, key=len)[:-1]])
        found += cycles
    return found


def test_no_import_cycle_between_packages():
    graph, where, _ = _graph()
    stale = [edge for edge in ALLOWED if edge not in where]
    assert not stale, f"allowed edges that no longer exist (remove them from ALLOWED): {stale}"
    graph.remove_edges_from(ALLOWED)
    knots = [sorted(k) for k in nx.strongly_connected_components(graph) if len(k) > 1]
    if not knots:
        return
    report = [f"{len(knots)} import cycle(s) between packages of crab_gym; cut one edge of each:"]
    for knot in knots:
        report.append(f"\nknot of {len(knot)}: {', '.join(knot)}")
    for cycle in _cycles(graph):
        report.append("\n" + " -> ".join([*cycle, cycle[0]]))
        for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
            report.append(f"  {a} -> {b}:")
            report += [f"    {w}" for w in where[(a, b)][:4]]
            if len(where[(a, b)]) > 4:
                report.append(f"    ... {len(where[(a, b)]) - 4} more")
    raise AssertionError("\n".join(report))


def test_no_private_name_imported_from_another_package():
    _, _, private = _graph()
    assert not private, "imports of another package's _private names:\n" + "\n".join(private)


def test_the_parser_sees_lazy_guarded_and_relative_imports(tmp_path):
    path = tmp_path / "fake.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import phone\n"
        "from ..device import Device\n"
        "if TYPE_CHECKING:\n"
        "    from crab_gym.env import CrabEnv\n"
        "def f():\n"
        "    import crab_gym.tasks.validate\n"
    )
    found = {(target, line) for target, _, line, _ in imports("crab_gym.envs.android.sim.fake", path)}
    assert found == {
        ("crab_gym.envs.android.sim.phone", 2),
        ("crab_gym.envs.android.device", 3),
        ("crab_gym.env", 5),
        ("crab_gym.tasks.validate", 7),
    }
    assert node_of("crab_gym.envs.android.sim.phone") == "crab_gym.envs.android.sim"
    assert node_of("crab_gym.env") == "crab_gym.env"

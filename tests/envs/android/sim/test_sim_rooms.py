"""The simulated phone's import graph: no module circles inside it, no circles between its rooms (shell/,
system/, ui/, apps/, adbd/, storage/), and apps and the shell never import each other (they meet through
system/). Every import counts, at any depth (inside functions and `if TYPE_CHECKING:` too).

Run as a script to print the circles and the room edges: `python tests/envs/android/sim/test_sim_rooms.py`.
"""

from __future__ import annotations

import ast
from pathlib import Path

SIM = Path(__file__).resolve().parents[4] / "crab_gym" / "envs" / "android" / "sim"
PKG = "crab_gym.envs.android.sim"
TOP = "(top)"  # modules at the package's top: phone.py and __init__.py


def _modules() -> dict[str, Path]:
    """Dotted name -> file of every module in sim (a package by its __init__)."""
    out = {}
    for path in sorted(SIM.rglob("*.py")):
        parts = list(path.relative_to(SIM).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([PKG, *parts])] = path
    return out


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The sim modules `name` imports anywhere in its file, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from pkg import submodule` imports the submodule; any other name comes from pkg itself
            for a in node.names:
                found.add(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target)
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def room(module: str) -> str:
    """The room a module lives in: its first package under sim, or TOP."""
    rest = module[len(PKG) + 1 :].split(".") if module != PKG else []
    return rest[0] if len(rest) > 1 or (rest and (SIM / rest[0]).is_dir()) else TOP


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def room_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for a, targets in edges.items():
        for b in targets:
            if room(a) != room(b):
                out.setdefault(room(a), set()).add(room(b))
    return out


def _short(m: str) -> str:
    return m[len(PKG) + 1 :] or "sim"


def test_graph_is_read() -> None:
    edges = graph()
    assert len(edges) > 50 and any(edges.values())


def test_every_module_is_in_a_room() -> None:
    top = sorted(_short(m) for m in graph() if room(m) == TOP)
    assert top == ["phone", "sim"], f"modules outside the rooms (only phone.py and __init__.py stay): {top}"


def test_no_module_circles() -> None:
    found = [[_short(m) for m in c] for c in cycles(graph())]
    assert not found, f"import circles inside sim: {found}"


def test_no_room_circles() -> None:
    found = cycles(room_edges(graph()))
    assert not found, f"import circles between sim's rooms: {found}"


def test_apps_and_shell_meet_only_through_system() -> None:
    crossing = sorted(
        f"{_short(a)} -> {_short(b)}"
        for a, targets in graph().items()
        for b in targets
        if {room(a), room(b)} == {"apps", "shell"}
    )
    assert not crossing, f"apps and shell import each other: {crossing}"


if __name__ == "__main__":
    g = graph()
    for c in cycles(g):
        print("circle:", " ".join(_short(m) for m in c))
    for a, bs in sorted(room_edges(g).items()):
        print(f"room {a} -> {', '.join(sorted(bs))}")

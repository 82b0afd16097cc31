"""Safe reading of call-style actions (UI-TARS' ``click(start_box=...)``, pyautogui code): the text is parsed
with :mod:`ast` and only literal arguments of allowed calls are read. Nothing is ever executed.

Refused, with the reason naming what: imports (but ``import pyautogui`` / ``import time`` where the dialect
allows them: the names are bound already), any call not on the dialect's list (``os.system``, ``open``,
``eval``, ``exec``, ``__import__``, ...), attribute chains (``os.path.join``), variables, assignments, loops,
comprehensions, lambdas and more than ``MAX_CALLS`` calls. Arguments are constants, tuples and lists of
them, and plain arithmetic on numbers (``100 + 20``).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, NoReturn

from crab_gym.core.actions import InvalidAction
from crab_gym.wrappers.dialects.base import MAX_CALLS

MAX_CODE_CHARS = 20_000
_FENCE = re.compile(r"```[ \t]*(?:python|py|Python)?[ \t]*\n(.*?)```", re.S)
_ARITH: dict[type, Any] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
}  # fmt: skip
_WORDS = {
    "ListComp": "a comprehension", "SetComp": "a comprehension", "DictComp": "a comprehension",
    "GeneratorExp": "a comprehension", "Lambda": "a lambda", "Name": "a variable",
    "Attribute": "an attribute", "Call": "a call", "Subscript": "a subscript", "JoinedStr": "an f-string",
    "Starred": "a * argument", "Assign": "an assignment", "AugAssign": "an assignment",
    "AnnAssign": "an assignment", "For": "a loop", "While": "a loop", "If": "an if statement",
    "FunctionDef": "a function definition", "With": "a with block",
    "Try": "a try block", "ClassDef": "a class definition", "Global": "global", "Delete": "del",
    "NamedExpr": "an assignment", "Await": "await", "Dict": "a dict", "Set": "a set",
    "Compare": "a comparison",
}  # fmt: skip


@dataclass(frozen=True)
class Call:
    """One allowed call: its dotted name and literal arguments."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


def code_of(text: str) -> str:
    """The code of a reply: its first ```python block, else the whole text."""
    if not isinstance(text, str):
        raise InvalidAction(f"an action is a string; got {type(text).__name__}")
    if len(text) > MAX_CODE_CHARS:
        raise InvalidAction(f"the action is {len(text)} characters long; the limit is {MAX_CODE_CHARS}")
    m = _FENCE.search(text)
    return m.group(1) if m else text


def parse_calls(
    source: str,
    allowed: Collection[str],
    bare: Collection[str] = (),
    imports: Collection[str] = (),
) -> list[Call]:
    """The calls of ``source`` in order, or InvalidAction naming what was refused."""
    try:
        tree = ast.parse(source.strip(), mode="exec")
    except SyntaxError as e:
        raise InvalidAction(f"not valid Python: {e.msg} (line {e.lineno})") from None
    except (ValueError, RecursionError, MemoryError) as e:
        raise InvalidAction(f"not readable as Python ({type(e).__name__})") from None
    calls: list[Call] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in stmt.names]
            if isinstance(stmt, ast.Import) and all(n in imports for n in names):
                if all(a.asname is None for a in stmt.names):
                    continue
            module = getattr(stmt, "module", None) or names[0]
            raise InvalidAction(f"import of {module!r} refused: imports are not allowed")
        if not isinstance(stmt, ast.Expr):
            raise InvalidAction(f"{_word(stmt)} refused: only calls are allowed")
        node = stmt.value
        if isinstance(node, ast.Name) and node.id in bare:
            calls.append(Call(node.id))
        elif isinstance(node, ast.Call):
            calls.append(_call(node, allowed))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            continue  # a docstring-like comment
        else:
            raise InvalidAction(f"{_word(node)} refused: only calls are allowed")
        if len(calls) > MAX_CALLS:
            raise InvalidAction(f"more than {MAX_CALLS} calls in one step refused")
    return calls


def _call(node: ast.Call, allowed: Collection[str]) -> Call:
    name = _dotted(node.func)
    if name not in allowed:
        raise InvalidAction(f"call of {name!r} refused; allowed: {', '.join(sorted(allowed))}")
    args = []
    for i, a in enumerate(node.args):
        if isinstance(a, ast.Starred):
            raise InvalidAction(f"{name}: a * argument refused")
        args.append(_literal(a, f"{name}: argument {i + 1}"))
    kwargs = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise InvalidAction(f"{name}: a ** argument refused")
        kwargs[kw.arg] = _literal(kw.value, f"{name}: argument {kw.arg!r}")
    return Call(name, tuple(args), kwargs)


def _dotted(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    if isinstance(func, ast.Attribute):
        _refuse_chain(func)
    raise InvalidAction(f"calling {_word(func)} refused")


def _refuse_chain(func: ast.Attribute) -> NoReturn:
    parts = [func.attr]
    node: ast.expr = func.value
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    head = node.id if isinstance(node, ast.Name) else _word(node)
    raise InvalidAction(f"attribute chain {'.'.join([head, *reversed(parts)])!r} refused")


def _literal(node: ast.expr, where: str) -> Any:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        raise InvalidAction(f"{where}: {type(node.value).__name__} constants refused")
    if isinstance(node, (ast.Tuple, ast.List)):
        if len(node.elts) > 64:
            raise InvalidAction(f"{where}: more than 64 items refused")
        items = [_literal(e, where) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _number(_literal(node.operand, where), where)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, right = _number(_literal(node.left, where), where), _number(_literal(node.right, where), where)
        try:
            out = _ARITH[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError):
            raise InvalidAction(f"{where}: arithmetic that fails refused") from None
        if not math.isfinite(out) or abs(out) > 1e9:
            raise InvalidAction(f"{where}: a number out of range")
        return out
    raise InvalidAction(f"{where}: {_word(node)} refused (only literal values)")


def _number(v: Any, where: str) -> float | int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or abs(v) > 1e9:
        raise InvalidAction(f"{where}: arithmetic on {type(v).__name__} refused (numbers only)")
    return v


def _word(node: ast.AST) -> str:
    return _WORDS.get(type(node).__name__, type(node).__name__)

"""Shell arithmetic, `$((...))`: C integer expressions over 64-bit signed values and shell variables."""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping

from .tokens import ShellError

TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|([A-Za-z_][A-Za-z0-9_]*)"
    r"|(<<=|>>=|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\+\+|--|[-+*/%<>=!~&|^?:()]))"
)
BINARY = {  # operator: precedence (higher binds tighter)
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}
ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}


def _wrap(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _apply(op: str, a: int, b: int, expr: str) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise ShellError(f"{expr}: division by zero", 1)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return q if op == "/" else a - q * b
    fns: dict[str, Callable[[int, int], int]] = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "<<": lambda x, y: x << (y & 63),
        ">>": lambda x, y: x >> (y & 63),
        "&": lambda x, y: x & y,
        "|": lambda x, y: x | y,
        "^": lambda x, y: x ^ y,
        "<": lambda x, y: int(x < y),
        ">": lambda x, y: int(x > y),
        "<=": lambda x, y: int(x <= y),
        ">=": lambda x, y: int(x >= y),
        "==": lambda x, y: int(x == y),
        "!=": lambda x, y: int(x != y),
        "&&": lambda x, y: int(bool(x) and bool(y)),
        "||": lambda x, y: int(bool(x) or bool(y)),
    }
    return _wrap(fns[op](a, b))


class _Arith:
    def __init__(self, expr: str, env: MutableMapping[str, str]) -> None:
        self.expr, self.env = expr, env
        self.toks: list[tuple[str, str]] = []
        pos = 0
        while pos < len(expr):
            m = TOKEN.match(expr, pos)
            if not m or m.end() == pos:
                if expr[pos:].strip() == "":
                    break
                raise ShellError(f"{expr}: syntax error in expression", 1)
            pos = m.end()
            num, name, op = m.groups()
            self.toks.append(("n", num) if num else ("v", name) if name else ("o", op))
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take_op(self, *ops: str) -> str | None:
        t = self.peek()
        if t and t[0] == "o" and t[1] in ops:
            self.i += 1
            return t[1]
        return None

    def var(self, name: str) -> int:
        text = self.env.get(name, "").strip()
        if not text:
            return 0
        try:
            return _wrap(int(text, 16) if text[:2].lower() == "0x" else int(text, 10))
        except ValueError as e:
            raise ShellError(f"{text}: bad number", 1) from e

    def run(self) -> int:
        if not self.toks:
            return 0
        v = self.assign()
        if self.peek() is not None:
            raise ShellError(f"{self.expr}: syntax error in expression", 1)
        return v

    def assign(self) -> int:
        t, nxt = self.peek(), self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
        if t and t[0] == "v" and nxt and nxt[0] == "o" and nxt[1] in ASSIGN:
            self.i += 2
            value = self.assign()
            if nxt[1] != "=":
                value = _apply(nxt[1][:-1], self.var(t[1]), value, self.expr)
            self.env[t[1]] = str(value)
            return value
        return self.ternary()

    def ternary(self) -> int:
        cond = self.binary(1)
        if self.take_op("?"):
            a = self.assign()
            if not self.take_op(":"):
                raise ShellError(f"{self.expr}: ':' expected", 1)
            b = self.assign()
            return a if cond else b
        return cond

    def binary(self, min_prec: int) -> int:
        left = self.unary()
        while True:
            t = self.peek()
            if not t or t[0] != "o" or t[1] not in BINARY or BINARY[t[1]] < min_prec:
                return left
            self.i += 1
            right = self.binary(BINARY[t[1]] + 1)
            left = _apply(t[1], left, right, self.expr)

    def unary(self) -> int:
        op = self.take_op("-", "+", "!", "~", "++", "--")
        if op in ("++", "--"):
            t = self.peek()
            if not t or t[0] != "v":
                raise ShellError(f"{self.expr}: syntax error in expression", 1)
            self.i += 1
            value = _wrap(self.var(t[1]) + (1 if op == "++" else -1))
            self.env[t[1]] = str(value)
            return value
        if op:
            v = self.unary()
            return {"-": _wrap(-v), "+": v, "!": int(not v), "~": _wrap(~v)}[op]
        return self.power()

    def power(self) -> int:
        base = self.primary()
        if self.take_op("**"):
            exp = self.unary()
            if exp < 0:
                raise ShellError(f"{self.expr}: exponent less than 0", 1)
            return _wrap(base**exp)
        return base

    def primary(self) -> int:
        t = self.peek()
        if t is None:
            raise ShellError(f"{self.expr}: syntax error in expression", 1)
        self.i += 1
        if t[0] == "n":
            text = t[1]
            try:
                return _wrap(
                    int(text, 16) if text[:2].lower() == "0x" else int(text, 8 if text[0] == "0" else 10)
                )
            except ValueError as e:
                raise ShellError(f"{self.expr}: bad number", 1) from e
        if t[0] == "v":
            op = self.take_op("++", "--")
            value = self.var(t[1])
            if op:
                self.env[t[1]] = str(_wrap(value + (1 if op == "++" else -1)))
            return value
        if t[1] == "(":
            v = self.assign()
            if not self.take_op(")"):
                raise ShellError(f"{self.expr}: ')' expected", 1)
            return v
        raise ShellError(f"{self.expr}: syntax error in expression", 1)


def arith(expr: str, env: MutableMapping[str, str]) -> int:
    """The value of an arithmetic expression; assignments in it update `env`. Raises ShellError."""
    return _Arith(expr, env).run()

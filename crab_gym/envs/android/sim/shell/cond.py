"""mksh's `[[ expr ]]`: no field splitting or globbing of its words, `&&` `||` `!` `( )`, the unary and binary
tests of `test`, `<` `>` on strings, and `==` `=` `!=` matching the right side as a shell pattern.

mksh has no `=~` (that is bash): it is a syntax error there, and here.
"""

from __future__ import annotations

from .parse import Op, Word
from .testcmd import BINARY, UNARY, _Test, _TestError
from .tokens import ShellError, SyntaxErr

PATTERN_OPS = frozenset({"=", "==", "!="})


class _Cond:
    def __init__(self, shell, items: list[Word | Op]) -> None:
        self.sh, self.items, self.i = shell, items, 0
        self.skip = 0  # > 0 while parsing a side that && or || does not need: nothing is expanded
        self.test = _Test(_TestCtx(shell), [])

    def peek(self) -> str | None:
        if self.i >= len(self.items):
            return None
        t = self.items[self.i]
        return t.text if isinstance(t, Op) else t.raw

    def is_op(self, text: str) -> bool:
        return self.i < len(self.items) and isinstance(self.items[self.i], Op) and self.peek() == text

    def take_word(self) -> str:
        if self.i >= len(self.items):
            raise SyntaxErr("missing expression in [[")
        t = self.items[self.i]
        self.i += 1
        return t.text if isinstance(t, Op) else t.raw

    def run(self) -> bool:
        value = self.or_expr()
        if self.i != len(self.items):
            raise SyntaxErr(f"'{self.peek()}' unexpected operator/operand")
        return value

    def or_expr(self) -> bool:
        value = self.and_expr()
        while self.is_op("||"):
            self.i += 1
            value = self._side(value, self.and_expr) or value
        return value

    def and_expr(self) -> bool:
        value = self.not_expr()
        while self.is_op("&&"):
            self.i += 1
            value = self._side(not value, self.not_expr) and value
        return value

    def _side(self, needless: bool, parse) -> bool:
        """Parse the right side of && or ||, expanding it only when its value matters."""
        self.skip += needless
        try:
            return parse()
        finally:
            self.skip -= needless

    def not_expr(self) -> bool:
        if self.peek() == "!" and not isinstance(self.items[self.i], Op):
            self.i += 1
            return not self.not_expr()
        if self.is_op("("):
            self.i += 1
            value = self.or_expr()
            if not self.is_op(")"):
                raise SyntaxErr("')' expected in [[")
            self.i += 1
            return value
        return self.primary()

    def primary(self) -> bool:
        exp = self.sh.expander
        first = self.take_word()
        op = self.peek()
        if op == "=~":
            raise SyntaxErr("'=~' unexpected operator/operand")
        if op in PATTERN_OPS or op in BINARY or op in ("<", ">"):
            self.i += 1
            raw = self.take_word()
            if self.skip:
                return False
            left = exp.word(first)
            if op in PATTERN_OPS:
                matched = bool(exp.pattern(raw).fullmatch(left))
                return matched if op != "!=" else not matched
            try:
                return self.test.binary(left, op, exp.word(raw))
            except _TestError as e:
                raise ShellError(str(e), 1) from e
        if first in UNARY and op is not None and not self.is_op("&&") and not self.is_op("||"):
            raw = self.take_word()
            return False if self.skip else self.test.unary(first, exp.word(raw))
        return False if self.skip else exp.word(first) != ""


class _TestCtx:
    """What `test`'s evaluator reads from a command context: the filesystem and the working directory."""

    def __init__(self, shell) -> None:
        self.shell, self.fs = shell, shell.fs


def evaluate(shell, items: list[Word | Op]) -> int:
    """The exit status of `[[ items ]]`: 0 true, 1 false; a bad expression raises ShellError (status 2)."""
    try:
        return 0 if _Cond(shell, items).run() else 1
    except _TestError as e:
        raise ShellError(str(e), 2) from e

"""`test` and `[`: POSIX file, string and integer tests, with the argument-count rules, ! -a -o and ( )."""

from __future__ import annotations

from typing import Protocol

from ..storage.fs import Sandbox
from .context import Ctx, Shell, command
from .tokens import ShellError


class _TestError(Exception):
    pass


class _Where(Protocol):
    """What the evaluator reads of its context (a command's Ctx, or `[[`'s): the filesystem and the shell."""

    @property
    def fs(self) -> Sandbox: ...

    @property
    def shell(self) -> Shell: ...


UNARY = frozenset("-e -f -d -r -w -x -s -L -h -c -b -p -S -t -z -n -g -u -k -O -G".split())
BINARY = frozenset("= == != < > -eq -ne -lt -le -gt -ge -nt -ot -ef".split())


class _Test:
    """POSIX test: the argument-count rules for up to 4 arguments, then ! -a -o and parentheses."""

    def __init__(self, ctx: _Where, args: list[str]) -> None:
        self.ctx, self.args, self.i = ctx, args, 0

    def run(self) -> bool:
        a = self.args
        n = len(a)
        if n == 0:
            return False
        if n == 1:
            return a[0] != ""
        if n == 2 and a[0] == "!":
            return a[1] == ""
        if n == 2 and a[0] in UNARY:
            return self.unary(a[0], a[1])
        if n == 3 and a[1] in BINARY:
            return self.binary(a[0], a[1], a[2])
        if n in (3, 4) and a[0] == "!":
            return not _Test(self.ctx, a[1:]).run()
        if n in (3, 4) and a[0] == "(" and a[-1] == ")":
            return _Test(self.ctx, a[1:-1]).run()
        value = self.or_expr()
        if self.i != n:
            raise _TestError(f"{a[self.i]}: unexpected operator")
        return value

    def peek(self) -> str | None:
        return self.args[self.i] if self.i < len(self.args) else None

    def take(self) -> str:
        if self.i >= len(self.args):
            raise _TestError("argument expected")
        self.i += 1
        return self.args[self.i - 1]

    def or_expr(self) -> bool:
        value = self.and_expr()
        while self.peek() == "-o":
            self.i += 1
            value = self.and_expr() or value
        return value

    def and_expr(self) -> bool:
        value = self.not_expr()
        while self.peek() == "-a":
            self.i += 1
            value = self.not_expr() and value
        return value

    def not_expr(self) -> bool:
        if self.peek() == "!":
            self.i += 1
            return not self.not_expr()
        return self.primary()

    def primary(self) -> bool:
        tok = self.take()
        if tok == "(" and self.peek() is not None:
            value = self.or_expr()
            if self.take() != ")":
                raise _TestError("')' expected")
            return value
        nxt = self.peek()
        if nxt in BINARY and self.i + 1 < len(self.args):
            self.i += 1
            return self.binary(tok, nxt, self.take())
        if tok in UNARY and nxt is not None:
            return self.unary(tok, self.take())
        return tok != ""

    def unary(self, op: str, arg: str) -> bool:
        if op == "-z":
            return arg == ""
        if op == "-n":
            return arg != ""
        if op == "-t":
            return False
        fs = self.ctx.fs
        if fs.is_device(arg, self.ctx.shell.cwd):
            return op in ("-e", "-r", "-w", "-c")
        try:
            host = fs.resolve(arg, self.ctx.shell.cwd)
            if op in ("-L", "-h"):
                return host.is_symlink()
            if not host.exists():
                return False
            mode = host.stat().st_mode
        except OSError:
            return False
        return {
            "-e": True,
            "-f": host.is_file(),
            "-d": host.is_dir(),
            "-r": True,
            "-w": True,
            "-x": host.is_dir() or bool(mode & 0o111),
            "-s": host.is_dir() or host.stat().st_size > 0,
        }.get(op, False)

    def binary(self, a: str, op: str, b: str) -> bool:
        if op in ("=", "=="):
            return a == b
        if op == "!=":
            return a != b
        if op in ("<", ">"):
            return a < b if op == "<" else a > b
        if op in ("-nt", "-ot", "-ef"):
            return self._files(a, op, b)
        x, y = _integer(a), _integer(b)
        return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]

    def _files(self, a: str, op: str, b: str) -> bool:
        try:
            ha, hb = (self.ctx.fs.resolve(p, self.ctx.shell.cwd) for p in (a, b))
            if op == "-ef":
                return ha.exists() and hb.exists() and ha.samefile(hb)
            self.ctx.fs.times.settle()
            ta, tb = ha.stat().st_mtime, hb.stat().st_mtime
        except OSError:
            return False
        return ta > tb if op == "-nt" else ta < tb


def _integer(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError as e:
        raise _TestError(f"{text}: bad number") from e


@command("test", "[")
def _test(ctx: Ctx, args: list[str]) -> int:
    if ctx.argv0 == "[":
        if not args or args[-1] != "]":
            raise ShellError("missing ]", 2)
        args = args[:-1]
    try:
        return 0 if _Test(ctx, args).run() else 1
    except _TestError as e:
        raise ShellError(str(e), 2) from e

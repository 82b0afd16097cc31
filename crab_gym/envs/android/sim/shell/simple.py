"""Simple commands: expansion of their words, assignments, redirections, `set -x` tracing, and running a
function or a registered command with its own context. Mixed into `shell.Shell`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..storage.fs import FsError, Sandbox
from .commands import find
from .context import Ctx, ExitShell, FileSink, Input, Sink
from .errors import failure
from .expand import Expander, Fatal
from .parse import Node, Redir, Simple
from .tokens import ShellError

if TYPE_CHECKING:
    from .context import Shell

FILE_MUTATORS = {"rm", "mkdir", "touch", "cp", "mv", "rmdir"}
MAX_DEPTH = 64  # nested function calls and subshells
PLAIN_WORD = re.compile(r"[A-Za-z0-9_./:,+@%=-]+")


class LoopControl(Exception):
    """`break N` / `continue N`."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind, self.levels = kind, levels


class ReturnFromFunction(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@dataclass
class IO:
    """A command's standard input and its open output descriptors."""

    input: Input
    fds: dict[int, Sink]

    def with_fd(self, fd: int, sink: Sink) -> IO:
        return IO(self.input, {**self.fds, fd: sink})

    def write(self, fd: int, data: bytes) -> None:
        sink = self.fds.get(fd)
        if sink is not None and data:
            sink.write(data)


class SimpleCommands:
    """The simple-command half of the shell (see `shell.Shell` for the state it uses)."""

    # what `shell.Shell` sets up and provides (declared for the type checker only)
    fs: Sandbox
    expander: Expander
    cwd: str
    vars: dict[str, str]
    exported: set[str]
    positional: list[str]
    funcs: dict[str, Node]
    opts: set[str]
    status: int
    depth: int
    substitutions: int

    if TYPE_CHECKING:

        def execute(self, node: Node, io: IO) -> int: ...

    # -- redirections
    def _redirect(self, redirs: list[Redir], io: IO) -> IO:
        """The descriptors after applying redirections in order; raises ShellError for a bad target."""
        fs = self.fs
        for r in redirs:
            if r.op == "<<":
                body = r.target if r.quoted else self.expander.heredoc(r.target)
                io = IO(Input(body.encode()), io.fds) if r.fd == 0 else io
                continue
            target = self.expander.word(r.target)
            if r.op in (">&", "<&"):
                if target == "-":
                    io = IO(Input(b""), io.fds) if r.fd == 0 else io.with_fd(r.fd, Sink())
                elif target.isdigit() and r.op == ">&":
                    src = io.fds.get(int(target))
                    if src is None:
                        raise ShellError(f"{target}: bad file descriptor", 1)
                    io = io.with_fd(r.fd, src)
                elif not target.isdigit() and r.op == ">&":  # `>&file`: stdout and stderr to the file
                    sink = self._file_sink(target, False, io)
                    io = io.with_fd(1, sink).with_fd(2, sink)
                continue
            try:
                path = fs.android_path(target, self.cwd)
                if r.op in ("<", "<>"):
                    if r.fd == 0 and path != "/dev/stdin":
                        io = IO(Input(fs.read_bytes(path)), io.fds)
                else:
                    io = io.with_fd(r.fd, self._file_sink(target, r.op == ">>", io))
            except FsError as e:
                raise ShellError(f"{target}: {str(e).split(': ', 1)[-1]}", 1) from e
        return io

    def _file_sink(self, target: str, append: bool, io: IO | None = None) -> Sink:
        path = self.fs.android_path(target, self.cwd)
        std = {"/dev/stdout": 1, "/dev/tty": 1, "/dev/stderr": 2}.get(path)
        if std is not None and io is not None and std in io.fds:
            return io.fds[std]
        try:
            return FileSink(self.fs, self.fs.android_path(target, self.cwd), append)
        except FsError as e:
            raise ShellError(f"{target}: {str(e).split(': ', 1)[-1]}", 1) from e

    # -- simple commands
    def _simple(self, cmd: Simple, io: IO) -> int:
        exp = self.expander
        substitutions = self.substitutions
        try:
            argv = exp.words(cmd.words)
            assigns = [(a.split("=", 1)[0], exp.word(a.split("=", 1)[1])) for a in cmd.assigns]
            io = self._redirect(cmd.redirs, io)
        except ShellError as e:
            io.write(2, (str(e) if str(e).startswith("/system") else f"/system/bin/sh: {e}").encode() + b"\n")
            if isinstance(e, Fatal):  # an unset parameter under `set -u`, or ${x:?}: the shell exits
                raise ExitShell(e.code) from e
            return e.code
        if "x" in self.opts:
            shown = [f"{n}={v}" for n, v in assigns] + argv
            io.write(2, ("+ " + " ".join(_xtrace_quote(w) for w in shown) + "\n").encode())
        if not argv:
            for name, value in assigns:
                self.vars[name] = value
            return self.status if self.substitutions != substitutions else 0  # POSIX: the last $(...)
        saved = {name: self.vars.get(name) for name, _ in assigns}
        added = {name for name, _ in assigns} - self.exported
        self.vars.update(assigns)
        self.exported |= added  # `VAR=x cmd`: in cmd's environment only
        try:
            if argv[0] in self.funcs:
                return self._call(argv, io)
            return self._command(argv, io)
        finally:
            self.exported -= added
            for name, old in saved.items():
                if old is None:
                    self.vars.pop(name, None)
                else:
                    self.vars[name] = old

    def _call(self, argv: list[str], io: IO) -> int:
        saved = self.positional
        self.positional = [saved[0]] + argv[1:]
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise ShellError(f"{argv[0]}: too deeply nested", 1)
            return self.execute(self.funcs[argv[0]], io)
        except ReturnFromFunction as e:
            return e.code
        finally:
            self.depth -= 1
            self.positional = saved

    def run_command(self, argv: list[str], io: IO) -> int:
        """Run a registered command (not a function) with these descriptors; its exit status."""
        return self._command(argv, io)

    def _command(self, argv: list[str], io: IO) -> int:
        if argv[0] in FILE_MUTATORS:
            self.fs.changed()
        ctx = Ctx(cast("Shell", self), io.input)  # always mixed into `shell.Shell`
        ctx.fds = io.fds
        ctx.argv0 = argv[0].rsplit("/", 1)[-1] if argv[0].startswith("/system/") else argv[0]
        fn = find(ctx.argv0)
        if fn is None:
            ctx.eprint(f"/system/bin/sh: {argv[0]}: inaccessible or not found")
            code = 127
        else:
            try:
                code = fn(ctx, argv[1:])
            except (ExitShell, LoopControl, ReturnFromFunction):
                io.write(2, bytes(ctx.err))
                io.write(1, bytes(ctx.out))
                raise
            except Exception as e:  # a bug in a command is that command's failure, never the shell's
                said, code = failure(argv[0], e)
                if said:
                    ctx.eprint(said)
        io.write(2, bytes(ctx.err))
        io.write(1, bytes(ctx.out))
        return code


def _xtrace_quote(word: str) -> str:
    """How `set -x` shows a word: as is when plain, else single-quoted."""
    return word if PLAIN_WORD.fullmatch(word) else "'" + word.replace("'", "'\\''") + "'"

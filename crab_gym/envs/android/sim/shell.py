"""A small POSIX shell, mksh-flavoured: runs a parsed command line (see `shparse`) against the phone.

Words are expanded by `shexpand` when their command runs; output goes through file-descriptor sinks, so
`>f 2>&1` and `2>&1 >f` differ as in a real shell. Commands are Python functions in `REGISTRY`
(phone commands in `commands.py`, files in `filecmds.py`, text in `textcmds.py`, builtins in `shbuiltins.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .fs import FsError
from .shctx import (  # noqa: F401  (re-exported: the command modules import these from here)
    ENV,
    MAX_SLEEP,
    REGISTRY,
    CommandFn,
    Ctx,
    ExitShell,
    FileSink,
    Input,
    Sink,
    command,
    split_flags,
    unlocked,
)
from .shexpand import Expander
from .shparse import AndOr, Case, For, FuncDef, Group, If, Loop, Node, Pipeline, Redir, Seq, Simple, parse
from .shtokens import ShellError, SyntaxErr  # noqa: F401

FILE_MUTATORS = {"rm", "mkdir", "touch", "cp", "mv", "rmdir"}
MAX_LOOPS = 10_000  # iterations of one loop: a runaway `while true` must not hold the phone forever
MAX_DEPTH = 64  # nested function calls and subshells


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


class Shell:
    """Runs command lines against a phone; `run` never raises."""

    def __init__(self, phone, parent: Shell | None = None, exported_only: bool = False) -> None:
        self.phone, self.fs = phone, phone.fs
        self.merged = bytearray()
        self.status = 0
        self.depth = 0
        if parent is None:
            self.cwd = "/"
            self.vars: dict[str, str] = dict(ENV)
            self.exported: set[str] = set(ENV)
            self.positional: list[str] = ["/system/bin/sh"]
            self.funcs: dict[str, Node] = {}
        else:
            self.cwd, self.status, self.depth = parent.cwd, parent.status, parent.depth + 1
            names = parent.exported if exported_only else parent.vars.keys()
            self.vars = {k: v for k, v in parent.vars.items() if k in names}
            self.exported = set(parent.exported)
            self.positional = list(parent.positional)
            self.funcs = {} if exported_only else dict(parent.funcs)
        if self.depth > MAX_DEPTH:
            raise ShellError("/system/bin/sh: too deeply nested", 1)
        self.expander = Expander(self)
        self.substitutions = 0  # command substitutions run so far (an assignment's status is the last one's)
        self._err: Sink = Sink()

    # -- entry points
    def run(self, line: str, stdin: bytes | Callable[[], bytes] = b"") -> tuple[bytes, bytes, int]:
        """(stdout, stderr, status); `self.merged` holds both streams in the order commands wrote them."""
        out, err = bytearray(), bytearray()
        self.merged = bytearray()
        io = IO(Input(stdin, self.phone.lock), {1: Sink(out, self.merged), 2: Sink(err, self.merged)})
        self.status = self.run_in(line, io)
        return bytes(out), bytes(err), self.status

    def run_in(self, line: str, io: IO) -> int:
        """Parse and run a program with the given descriptors; its exit status (syntax errors give 2)."""
        self._err = io.fds.get(2, Sink())
        try:
            program = parse(line)
        except ShellError as e:
            io.write(2, (str(e) + "\n").encode())
            return e.code
        try:
            return self.execute(program, io)
        except ExitShell as e:
            return e.code
        except (LoopControl, ReturnFromFunction):
            return self.status

    def substitute(self, program: str) -> str:
        """Command substitution: the output of `program` run in a subshell, trailing newlines removed."""
        self.substitutions += 1
        child = Shell(self.phone, self)
        buf = bytearray()
        self.status = child.run_in(program, IO(Input(b""), {1: Sink(buf), 2: self._err}))
        return buf.decode("utf-8", "replace").rstrip("\n")

    # -- the tree
    def execute(self, node: Node, io: IO) -> int:
        if isinstance(node, Simple):
            status = self._simple(node, io)
        elif isinstance(node, Seq):
            status = 0
            for item in node.items:
                status = self.execute(item, io)
        elif isinstance(node, AndOr):
            status = self.execute(node.first, io)
            for op, nxt in node.rest:
                if (op == "&&") == (status == 0):
                    status = self.execute(nxt, io)
        elif isinstance(node, Pipeline):
            status = self._pipeline(node, io)
        elif isinstance(node, FuncDef):
            self.funcs[node.name] = node.body
            status = 0
        else:
            try:
                io = self._redirect(node.redirs, io)  # type: ignore[union-attr]
            except ShellError as e:
                io.write(2, f"/system/bin/sh: {e}\n".encode())
                status = 1
            else:
                status = self._compound(node, io)
        self.status = status
        return status

    def _compound(self, node: Node, io: IO) -> int:
        if isinstance(node, If):
            for cond, body in node.branches:
                if self.execute(cond, io) == 0:
                    return self.execute(body, io)
            return self.execute(node.orelse, io) if node.orelse else 0
        if isinstance(node, Loop):
            return self._loop(node.body, io, cond=node.cond, until=node.until)
        if isinstance(node, For):
            words = self.expander.words(node.words) if node.words is not None else self.positional[1:]
            return self._loop(node.body, io, name=node.name, values=words)
        if isinstance(node, Case):
            word = self.expander.word(node.word)
            for patterns, body in node.items:
                if any(self.expander.pattern(p).fullmatch(word) for p in patterns):
                    return self.execute(body, io)
            return 0
        assert isinstance(node, Group)
        if not node.subshell:
            return self.execute(node.body, io)
        child = Shell(self.phone, self)
        child._err = io.fds.get(2, Sink())
        try:
            return child.execute(node.body, io)
        except ExitShell as e:
            return e.code

    def _loop(self, body: Seq, io: IO, cond=None, until=False, name="", values=()) -> int:
        status, count = 0, 0
        items = iter(values)
        while True:
            count += 1
            if count > MAX_LOOPS:
                io.write(2, f"/system/bin/sh: loop stopped after {MAX_LOOPS} iterations\n".encode())
                return 1
            if cond is not None:
                if (self.execute(cond, io) == 0) == until:
                    return status
            else:
                value = next(items, None)
                if value is None:
                    return status
                self.vars[name] = value
            try:
                status = self.execute(body, io)
            except LoopControl as e:
                if e.levels > 1:
                    e.levels -= 1
                    raise
                if e.kind == "break":
                    return 0
                status = 0

    def _pipeline(self, node: Pipeline, io: IO) -> int:
        status = 0
        stdin = io.input
        for k, cmd in enumerate(node.cmds):
            if k == len(node.cmds) - 1:
                status = self.execute(cmd, IO(stdin, io.fds))
            else:
                buf = bytearray()
                try:
                    self.execute(cmd, IO(stdin, {**io.fds, 1: Sink(buf)}))
                except ExitShell:  # each element but the last runs in a subshell
                    pass
                stdin = Input(bytes(buf))
        return int(status == 0) if node.negate else status

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
            return e.code
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
        ctx = Ctx(self, io.input)
        ctx.argv0 = argv[0].rsplit("/", 1)[-1] if argv[0].startswith("/system/") else argv[0]
        fn = REGISTRY.get(ctx.argv0)
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
            except ShellError as e:
                if str(e):
                    ctx.eprint(f"{argv[0]}: {e}")
                code = e.code
            except FsError as e:
                ctx.eprint(f"{argv[0]}: {e}")
                code = 1
            except Exception as e:  # a bug in a command is that command's failure, never the shell's
                ctx.eprint(f"{argv[0]}: {type(e).__name__}: {e}")
                code = 1
        io.write(2, bytes(ctx.err))
        io.write(1, bytes(ctx.out))
        return code

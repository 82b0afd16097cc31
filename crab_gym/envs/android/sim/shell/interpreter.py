"""A small POSIX shell, mksh-flavoured: runs a parsed command line (see `parse`) against the phone.

Words are expanded by `expand` when their command runs; output goes through file-descriptor sinks, so
`>f 2>&1` and `2>&1 >f` differ as in a real shell. Commands are Python functions in `REGISTRY`
(context.py): files in `filecmds.py`, text in `textcmds.py`, processes in `proccmds.py`, builtins in
`builtins.py`, jobs and traps in `jobs.py`; the system services add theirs (system/). Options: `set -e`,
`-u`, `-x`, `-o pipefail`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial

from . import jobs
from .cond import evaluate
from .context import (
    ENV,
    ExitShell,
    HangUp,
    Input,
    Live,
    Sink,
    unlocked,
)
from .expand import Expander
from .parse import (
    AndOr,
    Background,
    Case,
    Cond,
    For,
    FuncDef,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    Seq,
    Simple,
    parse,
)
from .simple import IO, MAX_DEPTH, LoopControl, ReturnFromFunction, SimpleCommands
from .tokens import ShellError

MAX_LOOPS = 10_000  # iterations of one loop: a runaway `while true` must not hold the phone forever
__all__ = ["IO", "LoopControl", "ReturnFromFunction", "Shell"]


class Shell(SimpleCommands):
    """Runs command lines against a phone; `run` never raises."""

    def __init__(self, phone, parent: Shell | None = None, exported_only: bool = False) -> None:
        self.phone, self.fs = phone, phone.fs
        self.merged = bytearray()
        self.status = 0
        self.depth = 0
        self.suppress = 0  # > 0 inside conditions, where `set -e` does not exit
        self.exec_fds: dict[int, Sink] = {}  # descriptors `exec >f 2>&1` set for the rest of the shell
        self.traps: dict[str, str] = {}
        self.cancel: threading.Event | None = None  # set to stop a background job
        self.deadline = float("inf")
        if parent is None:
            self.root: Shell = self
            self.live: Live | None = None  # the host's stream while the line runs (see flush_live)
            self.top_sinks: tuple[Sink, ...] = ()
            self.jobs: list[jobs.Job] = []
            self.last_job = 0
            self.cwd = "/"
            self.vars: dict[str, str] = dict(ENV)
            self.exported: set[str] = set(ENV)
            self.positional: list[str] = ["/system/bin/sh"]
            self.funcs: dict[str, Node] = {}
            self.opts: set[str] = set()
        else:
            self.root = parent.root
            self.cwd, self.status, self.depth = parent.cwd, parent.status, parent.depth + 1
            names = parent.exported if exported_only else parent.vars.keys()
            self.vars = {k: v for k, v in parent.vars.items() if k in names}
            self.exported = set(parent.exported)
            self.positional = list(parent.positional)
            self.funcs = {} if exported_only else dict(parent.funcs)
            self.opts = set() if exported_only else set(parent.opts)
            self.suppress = 0 if exported_only else parent.suppress
            self.cancel, self.deadline = parent.cancel, parent.deadline
        if self.depth > MAX_DEPTH:
            raise ShellError("/system/bin/sh: too deeply nested", 1)
        self.expander = Expander(self)
        self.substitutions = 0  # command substitutions run so far (an assignment's status is the last one's)
        self._err: Sink = Sink()

    # -- entry points
    def run(
        self, line: str, stdin: bytes | Callable[[], bytes] = b"", live: Live | None = None
    ) -> tuple[bytes, bytes, int]:
        """(stdout, stderr, status); `self.merged` holds both streams in the order commands wrote them.

        With `live`, output a command flushes (see `Ctx.flush`) goes to the host at once; what is returned is
        what was not sent yet."""
        out, err = bytearray(), bytearray()
        self.merged = bytearray()
        self.live, self._bufs = live, (out, err)
        self.top_sinks = (Sink(out, self.merged), Sink(err, self.merged))
        io = IO(Input(stdin, self.phone.lock), {1: self.top_sinks[0], 2: self.top_sinks[1]})
        self.status = self.run_in(line, io)
        self.status = jobs.finish(self, io, self.status)
        if live is not None and not live.closed:
            try:
                self.flush_live()
            except HangUp:
                pass
        return bytes(out), bytes(err), self.status

    def flush_live(self) -> None:
        """Send the output gathered so far to the host (phone lock released while sending)."""
        live = self.live
        if live is None:
            return
        if live.closed:
            raise HangUp()
        out, err = self._bufs
        merged = getattr(live, "merged", False)
        chunks = [(1, bytes(self.merged))] if merged else [(1, bytes(out)), (2, bytes(err))]
        out.clear()
        err.clear()
        self.merged.clear()
        for fd, data in chunks:
            if data:
                try:
                    unlocked(self.phone.lock, partial(live.write, fd, data))
                except Exception as e:
                    raise HangUp() from e

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
        except ShellError as e:  # an expansion of a compound command's word failed
            shown = str(e) if str(e).startswith("/system/bin/sh") else f"/system/bin/sh: {e}"
            io.write(2, f"{shown}\n".encode())
            return e.code

    def subshell(self, exported_only: bool = False) -> Shell:
        """A child shell (its own variables, cwd and options), as `sh` and `$(...)` run in."""
        return Shell(self.phone, self, exported_only)

    def substitute(self, program: str) -> str:
        """Command substitution: the output of `program` run in a subshell, trailing newlines removed."""
        self.substitutions += 1
        child = Shell(self.phone, self)
        buf = bytearray()
        self.status = child.run_in(program, IO(Input(b""), {1: Sink(buf), 2: self._err}))
        return buf.decode("utf-8", "replace").rstrip("\n")

    # -- the tree
    def execute(self, node: Node, io: IO) -> int:
        if self.cancel is not None and (self.cancel.is_set() or time.monotonic() > self.deadline):
            raise ExitShell(jobs.TERMINATED)
        if self.exec_fds:
            io = IO(io.input, {**io.fds, **self.exec_fds})
        if isinstance(node, Simple):
            status = self._errexit(self._simple(node, io))
        elif isinstance(node, Seq):
            status = 0
            for item in node.items:
                status = self.execute(item, io)
        elif isinstance(node, AndOr):
            status = self.conditional(node.first, io)
            for k, (op, nxt) in enumerate(node.rest):
                if (op == "&&") == (status == 0):
                    last = k == len(node.rest) - 1
                    status = self.execute(nxt, io) if last else self.conditional(nxt, io)
        elif isinstance(node, Pipeline):
            status = self._pipeline(node, io)
            if not node.negate:
                self._errexit(status)
        elif isinstance(node, FuncDef):
            self.funcs[node.name] = node.body
            status = 0
        elif isinstance(node, Background):
            status = jobs.start(self, node.body, io)
        else:
            try:
                io = self._redirect(node.redirs, io)
            except ShellError as e:
                io.write(2, f"/system/bin/sh: {e}\n".encode())
                status = 1
            else:
                status = self._compound(node, io)
                if isinstance(node, Cond) or (isinstance(node, Group) and node.subshell):
                    self._errexit(status)
        self.status = status
        return status

    def conditional(self, node: Node, io: IO) -> int:
        """Run a node whose failure is tested (an if/while condition, a non-last && || part): no errexit."""
        self.suppress += 1
        try:
            return self.execute(node, io)
        finally:
            self.suppress -= 1

    def _errexit(self, status: int) -> int:
        if status and "e" in self.opts and not self.suppress:
            raise ExitShell(status)
        return status

    def _compound(self, node: Node, io: IO) -> int:
        if isinstance(node, If):
            for cond, body in node.branches:
                if self.conditional(cond, io) == 0:
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
        if isinstance(node, Cond):
            return evaluate(self, node.items)
        assert isinstance(node, Group)
        if not node.subshell:
            return self.execute(node.body, io)
        child = Shell(self.phone, self)
        child._err = io.fds.get(2, Sink())
        try:
            status = child.execute(node.body, io)
        except ExitShell as e:
            if isinstance(e, HangUp):
                raise
            status = e.code
        return jobs.run_exit_trap(child, io, status)

    def _loop(self, body: Seq, io: IO, cond=None, until=False, name="", values=()) -> int:
        status, count = 0, 0
        items = iter(values)
        while True:
            count += 1
            if count > MAX_LOOPS:
                io.write(2, f"/system/bin/sh: loop stopped after {MAX_LOOPS} iterations\n".encode())
                return 1
            if cond is not None:
                if (self.conditional(cond, io) == 0) == until:
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
        """Each element but the last runs in a subshell; errexit looks at the pipeline's status only."""
        status, failed = 0, 0
        stdin = io.input
        self.suppress += 1
        try:
            for k, cmd in enumerate(node.cmds):
                if k == len(node.cmds) - 1:
                    status = self.execute(cmd, IO(stdin, io.fds))
                else:
                    buf = bytearray()
                    try:
                        code = self.execute(cmd, IO(stdin, {**io.fds, 1: Sink(buf)}))
                    except ExitShell as e:
                        if isinstance(e, HangUp):
                            raise
                        code = e.code
                    failed = code or failed
                    stdin = Input(bytes(buf))
        finally:
            self.suppress -= 1
        if "pipefail" in self.opts and not status:
            status = failed
        return int(status == 0) if node.negate else status

"""A small mksh-like shell: quoting, `;` `&&` `||` `|`, redirections, `$?`, and the file commands.

Phone-specific commands (input, screencap, dumpsys, content, ...) are registered by `commands.py`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from .fs import FsError

STATUS = "\x00?"  # placeholder for $? (expanded when the command runs)
OPS = ("&&", "||", ";;", ">>", "2>>", "2>&1", ">&2", "1>&2", "2>", "1>", ";", "|", "&", ">", "<", "\n")
ENV = {
    "EXTERNAL_STORAGE": "/sdcard",
    "HOME": "/",
    "PATH": "/product/bin:/apex/com.android.runtime/bin:"
    "/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
    "ANDROID_DATA": "/data",
    "ANDROID_ROOT": "/system",
    "USER": "root",
    "SHELL": "/system/bin/sh",
    "TMPDIR": "/data/local/tmp",
}
MAX_SLEEP = 5.0
FILE_MUTATORS = {"rm", "mkdir", "touch", "cp", "mv", "rmdir"}


def unlocked(lock, fn: Callable[[], bytes] | None = None, timeout: float | None = None) -> bytes:
    """Run fn() (or just wait `timeout` seconds) with the phone's re-entrant lock fully released, so waiting
    for a host's stdin or a `sleep` never stalls other adb streams or the in-process API."""
    cond = threading.Condition(lock)
    if fn is None:
        with cond:
            cond.wait(timeout)
        return b""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # handed back to the caller below
            box["error"] = e
        with cond:
            box["done"] = True
            cond.notify_all()

    threading.Thread(target=run, daemon=True, name="shell-stdin").start()
    with cond:
        cond.wait_for(lambda: "done" in box)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value", b"")  # type: ignore[return-value]


class ShellError(Exception):
    """A command failed: the message goes to stderr, `code` is the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Word:
    text: str


@dataclass
class Op:
    text: str


def tokenize(line: str) -> list[Word | Op]:
    """Split a command line into words and operators, honouring '...', "...", backslashes and $NAME."""
    out: list[Word | Op] = []
    cur: list[str] = []
    in_word = False
    i, n = 0, len(line)

    def flush() -> None:
        nonlocal cur, in_word
        if in_word:
            out.append(Word("".join(cur)))
        cur, in_word = [], False

    def dollar(j: int) -> tuple[str, int]:
        if j + 1 < n and line[j + 1] == "?":
            return STATUS, j + 2
        m = re.match(r"\{?([A-Za-z_][A-Za-z0-9_]*)\}?", line[j + 1 :])
        if m:
            return ENV.get(m.group(1), ""), j + 1 + m.end()
        return "$", j + 1

    while i < n:
        c = line[i]
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellError("/system/bin/sh: no closing quote", 1)
            cur.append(line[i + 1 : end])
            in_word, i = True, end + 1
        elif c == '"':
            i += 1
            in_word = True
            while True:
                if i >= n:
                    raise ShellError("/system/bin/sh: no closing quote", 1)
                c = line[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and line[i + 1] in '"\\$`\n':
                    cur.append(line[i + 1])
                    i += 2
                elif c == "$":
                    s, i = dollar(i)
                    cur.append(s)
                else:
                    cur.append(c)
                    i += 1
        elif c == "\\":
            if i + 1 < n and line[i + 1] != "\n":
                cur.append(line[i + 1])
                in_word = True
            i += 2
        elif c == "$":
            s, i = dollar(i)
            cur.append(s)
            in_word = True
        elif c in " \t\r":
            flush()
            i += 1
        elif c == "#" and not in_word:
            while i < n and line[i] != "\n":
                i += 1
        else:
            op = next((o for o in OPS if line.startswith(o, i)), None)
            # "2>" and "1>" are operators only at the start of a word
            if op and op[0] in "12" and in_word:
                op = None
            if op:
                flush()
                out.append(Op(op))
                i += len(op)
            else:
                cur.append(c)
                in_word = True
                i += 1
    flush()
    return out


@dataclass
class Command:
    argv: list[str] = field(default_factory=list)
    redirs: list[tuple[str, str]] = field(default_factory=list)


def parse(tokens: list[Word | Op]) -> list[tuple[str, list[Command]]]:
    """[(connector, pipeline)], connector being the operator before the pipeline (";" for the first)."""
    result: list[tuple[str, list[Command]]] = []
    connector, pipeline, cmd = ";", [], Command()
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if isinstance(t, Word):
            cmd.argv.append(t.text)
        elif t.text in (">", ">>", "<", "2>", "2>>", "1>"):
            if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], Word):
                raise ShellError(f"/system/bin/sh: syntax error: '{t.text}' unexpected", 1)
            cmd.redirs.append((t.text, tokens[i + 1].text))  # type: ignore[union-attr]
            i += 1
        elif t.text in ("2>&1", ">&2", "1>&2"):
            cmd.redirs.append((t.text, ""))
        elif t.text == "|":
            if not cmd.argv:
                raise ShellError("/system/bin/sh: syntax error: '|' unexpected", 1)
            pipeline.append(cmd)
            cmd = Command()
        else:  # ; && || & newline
            if cmd.argv or cmd.redirs:
                pipeline.append(cmd)
            if pipeline:
                result.append((connector, pipeline))
            elif t.text in ("&&", "||"):
                raise ShellError(f"/system/bin/sh: syntax error: '{t.text}' unexpected", 1)
            connector = t.text if t.text in ("&&", "||") else ";"
            pipeline, cmd = [], Command()
        i += 1
    if cmd.argv or cmd.redirs:
        pipeline.append(cmd)
    if pipeline:
        result.append((connector, pipeline))
    return result


class ExitShell(Exception):
    """`exit N`: stop the command line with status N."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Ctx:
    """What a running command sees: argv, stdin bytes (read lazily), stdout/stderr buffers, the phone."""

    def __init__(self, shell: Shell, stdin: bytes | Callable[[], bytes]) -> None:
        self.shell, self.phone, self.fs = shell, shell.phone, shell.phone.fs
        self._stdin = stdin
        self.argv0 = ""
        self.out = bytearray()
        self.err = bytearray()

    @property
    def stdin(self) -> bytes:
        if callable(self._stdin):
            self._stdin = unlocked(self.phone.lock, self._stdin) or b""
        return self._stdin

    def print(self, text: str = "", end: str = "\n") -> None:
        self.out += (text + end).encode()

    def eprint(self, text: str) -> None:
        self.err += (text + "\n").encode()

    def read_input(self, name: str) -> bytes:
        """A file argument's bytes, or stdin for "-"."""
        if name == "-":
            return self.stdin
        try:
            return self.fs.read_bytes(self.fs.android_path(name, self.shell.cwd))
        except FsError as e:
            raise ShellError(f"{name}: {str(e).split(': ', 1)[-1]}") from e


CommandFn = Callable[[Ctx, list[str]], int]
REGISTRY: dict[str, CommandFn] = {}


def command(*names: str) -> Callable[[CommandFn], CommandFn]:
    def deco(fn: CommandFn) -> CommandFn:
        for n in names:
            REGISTRY[n] = fn
        return fn

    return deco


class Shell:
    """Runs command lines against a phone; `run` never raises."""

    def __init__(self, phone) -> None:
        self.phone = phone
        self.cwd = "/"
        self.status = 0
        self.merged = bytearray()

    def run(self, line: str, stdin: bytes | Callable[[], bytes] = b"") -> tuple[bytes, bytes, int]:
        """(stdout, stderr, status); `self.merged` holds both streams in the order commands wrote them."""
        out, err = bytearray(), bytearray()
        self.merged = bytearray()
        self.cwd = "/"
        try:
            program = parse(tokenize(line))
        except ShellError as e:
            return b"", (str(e) + "\n").encode(), 2 if "syntax" in str(e) else e.code
        status = 0
        for connector, pipeline in program:
            if (connector == "&&" and status != 0) or (connector == "||" and status == 0):
                continue
            self.status = status
            try:
                status = self._pipeline(pipeline, stdin, out, err, status)
            except ExitShell as e:
                status = e.code
                break
            stdin = b""
        self.status = status
        return bytes(out), bytes(err), status

    def _pipeline(self, pipeline: list[Command], stdin, out: bytearray, err: bytearray, status: int) -> int:
        data: bytes | Callable[[], bytes] = stdin
        code = 0
        for k, cmd in enumerate(pipeline):
            argv = [a.replace(STATUS, str(status)) for a in cmd.argv]
            redirs = [(op, t.replace(STATUS, str(status))) for op, t in cmd.redirs]
            ctx = Ctx(self, data)
            code = self._exec(ctx, argv, redirs)
            last = k == len(pipeline) - 1
            err += ctx.err
            self.merged += ctx.err
            if last:
                out += ctx.out
                self.merged += ctx.out
            data = bytes(ctx.out)
        return code

    def _exec(self, ctx: Ctx, argv: list[str], redirs: list[tuple[str, str]]) -> int:
        fs = self.phone.fs
        if argv and argv[0] in FILE_MUTATORS:
            fs.changed()
        try:
            for op, target in redirs:
                if op == "<":
                    ctx._stdin = ctx.read_input(target)
        except ShellError as e:
            ctx.eprint(f"/system/bin/sh: {e}")
            return 1
        if not argv:
            code = 0
        else:
            ctx.argv0 = argv[0].rsplit("/", 1)[-1] if argv[0].startswith("/system/") else argv[0]
            fn = REGISTRY.get(ctx.argv0)
            if fn is None:
                ctx.eprint(f"/system/bin/sh: {argv[0]}: inaccessible or not found")
                code = 127
            else:
                try:
                    code = fn(ctx, argv[1:])
                except ExitShell:
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
        for op, target in redirs:
            try:
                if op in (">", ">>", "1>"):
                    if target != "/dev/null":
                        fs.write_bytes(fs.android_path(target, self.cwd), bytes(ctx.out), append=op == ">>")
                    ctx.out.clear()
                elif op in ("2>", "2>>"):
                    if target != "/dev/null":
                        fs.write_bytes(fs.android_path(target, self.cwd), bytes(ctx.err), append=op == "2>>")
                    ctx.err.clear()
                elif op == "2>&1":
                    ctx.out += ctx.err
                    ctx.err.clear()
                elif op in (">&2", "1>&2"):
                    ctx.err += ctx.out
                    ctx.out.clear()
            except FsError as e:
                ctx.eprint(f"/system/bin/sh: {target}: {str(e).split(': ', 1)[-1]}")
                code = 1
        return code


# --- builtins ---


def split_flags(
    args: list[str], flags: str, with_value: str = ""
) -> tuple[set[str], dict[str, str], list[str]]:
    """Single-letter flags (combined like -la), flags taking a value, and the remaining operands."""
    seen: set[str] = set()
    values: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            rest += args[i + 1 :]
            break
        if a.startswith("-") and len(a) > 1 and not a[1].isdigit():
            j = 1
            while j < len(a):
                f = a[j]
                if f in with_value:
                    if j + 1 < len(a):
                        values[f] = a[j + 1 :]
                    elif i + 1 < len(args):
                        i += 1
                        values[f] = args[i]
                    break
                if f not in flags:
                    raise ShellError(f"Unknown option '{f}'", 1)
                seen.add(f)
                j += 1
        else:
            rest.append(a)
        i += 1
    return seen, values, rest

"""What commands see of the shell: their context (argv, stdin, output buffers), the command registry, the
file-descriptor sinks output goes to, and small helpers shared by the command modules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ..storage.fs import FsError
from .errors import ShellError

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
    "HOSTNAME": "localhost",
    "IFS": " \t\n",
}
MAX_SLEEP = 5.0
T = TypeVar("T")


def unlocked(lock, fn: Callable[[], T] | None = None, timeout: float | None = None) -> T | bytes:
    """Run fn() (or just wait `timeout` seconds) with the phone's re-entrant lock fully released, so waiting
    for a host's stdin or a `sleep` never stalls other adb streams or the in-process API."""
    cond = threading.Condition(lock)
    if fn is None:
        with cond:
            cond.wait(timeout)
        return b""
    box: dict[str, Any] = {}  # fn's value or its exception

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
        raise box["error"]
    return box.get("value", b"")


class ExitShell(Exception):
    """`exit N`: stop the command line (or the subshell) with status N."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class HangUp(ExitShell):
    """The host closed the stream a command was writing to: the shell ends, as on SIGPIPE (128 + 13)."""

    def __init__(self) -> None:
        super().__init__(141)


class Live(Protocol):
    """Where a shell's output goes while its command line still runs (an adb stream): `write` sends bytes
    of fd 1 or 2 now; `closed` turns true once the host has gone."""

    @property
    def closed(self) -> bool: ...

    def write(self, fd: int, data: bytes) -> None: ...


class Input:
    """A standard input shared by the commands that read it: bytes, or a callable (the host's stdin) fetched
    on the first read with the phone's lock released. What one command reads, the next does not see."""

    def __init__(self, source: bytes | Callable[[], bytes] = b"", lock=None) -> None:
        self._source, self._lock = source, lock
        self._data: bytes | None = source if isinstance(source, bytes) else None
        self._pos = 0

    def _load(self) -> bytes:
        if self._data is None:
            fn = self._source
            assert callable(fn)
            self._data = (unlocked(self._lock, fn) if self._lock is not None else fn()) or b""
        return self._data

    def read_all(self) -> bytes:
        data = self._load()[self._pos :]
        self._pos += len(data)
        return data

    def read_exact(self, n: int) -> bytes:
        """Up to n bytes, without waiting for the host to end its input when it can say how much it sends
        (`pm install -S SIZE`)."""
        exact = getattr(self._source, "read_exact", None)
        if self._data is None and exact is not None:
            self._data = (
                unlocked(self._lock, lambda: exact(n)) if self._lock is not None else exact(n)
            ) or b""
        data = self._load()[self._pos : self._pos + n]
        self._pos += len(data)
        return data

    def read_line(self) -> bytes | None:
        """One line with its newline; None at end of input. A host's stream that can give one line
        (`read_line`) is read only that far, so `read` returns when the host sends a line, as on a device."""
        line_fn = getattr(self._source, "read_line", None)
        if self._data is None and line_fn is not None:
            line = unlocked(self._lock, line_fn) if self._lock is not None else line_fn()
            return bytes(line) or None
        data = self._load()
        if self._pos >= len(data):
            return None
        end = data.find(b"\n", self._pos)
        end = len(data) if end < 0 else end + 1
        line = data[self._pos : end]
        self._pos = end
        return line


class Sink:
    """Where a file descriptor's bytes go: a buffer (and the merged pty view), a file, or nowhere."""

    def __init__(self, buf: bytearray | None = None, merged: bytearray | None = None) -> None:
        self.buf, self.merged = buf, merged

    def write(self, data: bytes) -> None:
        if self.buf is not None:
            self.buf += data
        if self.merged is not None:
            self.merged += data


class FileSink(Sink):
    """A redirection to a file: truncated (or created) when the redirection is made, appended to after."""

    def __init__(self, fs, path: str, append: bool) -> None:
        super().__init__()
        self.fs, self.path = fs, path
        fs.write_bytes(path, b"", append=append)

    def write(self, data: bytes) -> None:
        if data:
            self.fs.write_bytes(self.path, data, append=True)


class Shell(Protocol):
    """What commands use of the running shell (interpreter.Shell), so this module need not import it."""

    phone: Any
    root: Shell
    cwd: str
    status: int
    vars: dict[str, str]
    exported: set[str]
    positional: list[str]
    opts: set[str]  # set -e, -u, -x, -o pipefail
    funcs: dict[str, Any]  # name -> its parsed body
    traps: dict[str, str]
    exec_fds: dict[int, Sink]
    cancel: threading.Event | None
    jobs: list[Any]  # the root shell's background jobs (jobs.Job)
    live: Live | None

    def execute(self, node: Any, io: Any) -> int: ...

    def run_command(self, argv: list[str], io: Any) -> int: ...

    def run_in(self, line: str, io: Any) -> int: ...

    def flush_live(self) -> None: ...

    def subshell(self, exported_only: bool = False) -> Shell: ...


class Ctx:
    """What a running command sees: argv, stdin bytes (read lazily), stdout/stderr buffers, the phone."""

    def __init__(self, shell: Shell, stdin: Input | bytes | Callable[[], bytes]) -> None:
        self.shell, self.phone, self.fs = shell, shell.phone, shell.phone.fs
        self.input = stdin if isinstance(stdin, Input) else Input(stdin, shell.phone.lock)
        self._stdin: bytes | None = None
        self.argv0 = ""
        self.out = bytearray()
        self.err = bytearray()
        self.fds: dict[int, Sink] = {}  # the command's open descriptors (set by the shell)

    @property
    def stdin(self) -> bytes:
        """All of standard input (read on first use)."""
        if self._stdin is None:
            self._stdin = self.input.read_all()
        return self._stdin

    def print(self, text: str = "", end: str = "\n") -> None:
        self.out += (text + end).encode()

    def eprint(self, text: str) -> None:
        self.err += (text + "\n").encode()

    def flush(self) -> None:
        """Hand what the command printed so far to its descriptors, and to the host now if the shell is
        streaming (a following `logcat`); raises HangUp once the host has gone."""
        for fd, buf in ((2, self.err), (1, self.out)):
            sink = self.fds.get(fd)
            if sink is not None and buf:
                sink.write(bytes(buf))
            buf.clear()
        self.shell.root.flush_live()

    @property
    def hung_up(self) -> bool:
        """True once the host that reads this shell's output has closed the stream."""
        live = self.shell.root.live
        return live is not None and live.closed

    def read_input(self, name: str) -> bytes:
        """A file argument's bytes, or stdin for "-"."""
        if name in ("-", "/dev/stdin", "/proc/self/fd/0"):
            return self.stdin
        try:
            return self.fs.read_bytes(self.fs.android_path(name, self.shell.cwd))
        except FsError as e:
            raise ShellError(f"{name}: {str(e).split(': ', 1)[-1]}") from e


CommandFn = Callable[[Ctx, list[str]], int]
REGISTRY: dict[str, CommandFn] = {}


def command(*names: str) -> Callable[[CommandFn], CommandFn]:
    """Register a function as the command(s) `names`."""

    def deco(fn: CommandFn) -> CommandFn:
        for n in names:
            REGISTRY[n] = fn
        return fn

    return deco


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
        if a.startswith("-") and len(a) > 1 and (not a[1].isdigit() or a[1] in flags):
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

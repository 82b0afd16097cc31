"""The `logcat` and `log` commands over the phone's log (logcat.py).

`logcat` without `-d` follows the log until the host closes the stream; the phone's lock is released while it
waits, so other clients go on. Run in-process (no host stream to follow for), it dumps and exits.
"""

from __future__ import annotations

import re
import time

from ..shell.context import Ctx, ExitShell, FileSink, command
from ..shell.errors import RawError, ShellError
from .logcat import BUFFERS, Entry, LogBuffer, buffer, log

LEVELS = "VDIWEFS"
DEFAULT_BUFFERS = ("main", "system", "crash")
RING_KIB = 256
FOLLOW_POLL = 0.5  # seconds a following logcat sleeps between looks at the host
FORMATS = ("brief", "process", "tag", "thread", "raw", "time", "threadtime", "long")
MODIFIERS = (
    "epoch",
    "monotonic",
    "usec",
    "nsec",
    "UTC",
    "year",
    "zone",
    "uid",
    "printable",
    "color",
    "descriptive",
)


# --- formatting -------------------------------------------------------------------------------------------


def _stamp(e: Entry, mods: set[str]) -> str:
    sec, ms = divmod(e.ms, 1000)
    frac = f"{ms:03d}" + ("000" if "usec" in mods else "000000" if "nsec" in mods else "")
    if "epoch" in mods:
        return f"{sec:>10}.{frac}"
    if "monotonic" in mods:
        return f"{sec - 1710490000:>6}.{frac}"
    day = time.strftime("%Y-%m-%d %H:%M:%S" if "year" in mods else "%m-%d %H:%M:%S", time.gmtime(sec))
    return f"{day}.{frac}" + (" +0000" if "zone" in mods else "")


def format_entry(e: Entry, verb: str, mods: set[str]) -> str:
    """One entry as logcat -v VERB prints it (a message of several lines gets the prefix on each)."""
    if verb == "long":
        return f"[ {_stamp(e, mods)} {e.pid:5d}:{e.tid:5d} {e.level}/{e.tag:<8} ]\n{e.msg}\n"
    if verb == "raw":
        return e.msg
    prefix, suffix = {
        "brief": (f"{e.level}/{e.tag:<8}({e.pid:5d}): ", ""),
        "process": (f"{e.level}({e.pid:5d}) ", f"  ({e.tag})"),
        "tag": (f"{e.level}/{e.tag:<8}: ", ""),
        "thread": (f"{e.level}({e.pid:5d}:{e.tid:5d}) ", ""),
        "time": (f"{_stamp(e, mods)} {e.level}/{e.tag:<8}({e.pid:5d}): ", ""),
    }.get(verb, (f"{_stamp(e, mods)} {e.pid:5d} {e.tid:5d} {e.level} {e.tag:<8}: ", ""))
    return "\n".join(prefix + line + suffix for line in e.msg.split("\n"))


class Filter:
    """Filter specs `TAG:LEVEL` (`*` for every other tag); -s makes the default silent."""

    def __init__(self, specs: list[str], silent: bool) -> None:
        self.default = "S" if silent else "V"
        self.tags: dict[str, str] = {}
        for token in (t for spec in specs for t in spec.split()):
            tag, sep, level = token.rpartition(":")
            if not sep:
                tag, level = token, "V"
            level = level.upper() or "V"
            if level == "*":
                level = "V"
            if level not in LEVELS or not tag:
                raise RawError("logcat: Invalid filter expression in logcat args", 1)
            if tag == "*":
                self.default = level
            else:
                self.tags[tag] = level

    def passes(self, e: Entry) -> bool:
        return LEVELS.index(e.level) >= LEVELS.index(self.tags.get(e.tag, self.default))


# --- the commands -----------------------------------------------------------------------------------------

USAGE = "Usage: logcat [options] [filterspecs]"
WITH_VALUE = {
    "-v": "format",
    "--format": "format",
    "-b": "buffer",
    "--buffer": "buffer",
    "-t": "tail",
    "-T": "tail_follow",
    "-e": "regex",
    "--regex": "regex",
    "-m": "max",
    "--max-count": "max",
    "-f": "file",
    "--file": "file",
    "--pid": "pid",
    "-r": "rotate",
    "-n": "rotate",
    "-G": "resize",
    "--buffer-size": "resize",
}
FLAGS = {
    "-d": "dump",
    "-c": "clear",
    "--clear": "clear",
    "-s": "silent",
    "-g": "size",
    "--get-size": "size",
    "-D": "dividers",
    "--dividers": "dividers",
    "-L": "dump",
    "--last": "dump",
    "-S": "stats",
    "--statistics": "stats",
    "-B": "binary",
    "-q": "quiet",
    "-h": "help",
    "--help": "help",
}


def _parse(args: list[str]) -> tuple[dict, list[str], list[str]]:
    opts: dict = {}
    formats: list[str] = []
    specs: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, inline = a.partition("=") if a.startswith("--") else (a[:2], "", a[2:])
        if not a.startswith("-") or a == "-":
            specs.append(a)
        elif name in WITH_VALUE and (eq or inline or i + 1 < len(args)):
            value = inline if (eq or inline) else args[i + 1]
            i += 0 if (eq or inline) else 1
            key = WITH_VALUE[name]
            if key == "format":
                formats.append(value)
            elif key == "buffer":
                opts.setdefault("buffer", []).extend(value.split(","))
            else:
                opts[key] = value
        elif a in FLAGS:
            opts[FLAGS[a]] = True
        elif re.fullmatch(r"-[dcsgDLSBq]+", a):  # combined flags, as getopt allows: -dv is -d -v
            for c in a[1:]:
                opts[FLAGS["-" + c]] = True
        else:
            raise RawError(f"logcat: unrecognized option '{a}'\n{USAGE}", 1)
        i += 1
    return opts, formats, specs


def _buffers(opts: dict) -> tuple[str, ...]:
    names = opts.get("buffer") or list(DEFAULT_BUFFERS)
    if "all" in names:
        return BUFFERS
    if "default" in names:
        names = [n for n in names if n != "default"] + list(DEFAULT_BUFFERS)
    bad = [n for n in names if n not in BUFFERS]
    if bad:
        raise RawError(f"logcat: Unknown buffer '{bad[0]}'", 1)
    return tuple(dict.fromkeys(names))


def _format(formats: list[str]) -> tuple[str, set[str]]:
    verb, mods = "threadtime", set()
    for f in (p for spec in formats for p in re.split(r"[ ,]", spec) if p):
        if f in FORMATS:
            verb = f
        elif f in MODIFIERS:
            mods.add(f)
        else:
            raise RawError(f'logcat: Invalid parameter "{f}" to -v.\n{USAGE}', 1)
    return verb, mods


def _count(value: str, what: str) -> int:
    if not value.isdigit():
        raise RawError(f"logcat: {what} '{value}' is not a number", 1)
    return int(value)


@command("logcat")
def _logcat(ctx: Ctx, args: list[str]) -> int:
    opts, formats, specs = _parse(args)
    if opts.get("help"):
        ctx.eprint(USAGE)
        return 0
    buf = buffer(ctx.phone)
    names = _buffers(opts)
    if opts.get("clear"):
        buf.clear(names)
        return 0
    if opts.get("size"):
        for b in names:
            used = sum(len(e.msg) + len(e.tag) + 28 for e in buf.rings[b]) // 1024
            ctx.print(
                f"{b}: ring buffer is {RING_KIB} KiB ({used} KiB consumed, {used} KiB readable), "
                "max entry is 5120 B, max payload is 4068 B"
            )
        return 0
    verb, mods = _format(formats)
    env_tags = ctx.shell.vars.get("ANDROID_LOG_TAGS", "") if "ANDROID_LOG_TAGS" in ctx.shell.exported else ""
    flt = Filter(specs or ([env_tags] if env_tags else []), bool(opts.get("silent")))
    regex = re.compile(opts["regex"]) if "regex" in opts else None
    pid = _count(opts["pid"], "pid") if "pid" in opts else None
    limit = _count(opts["max"], "max count") if "max" in opts else None

    def wanted(e: Entry) -> bool:
        return (
            flt.passes(e) and (regex is None or bool(regex.search(e.msg))) and (pid is None or e.pid == pid)
        )

    tail = opts.get("tail") or opts.get("tail_follow")
    follow = not opts.get("dump") and "tail" not in opts and ctx.shell.root.live is not None
    entries = [e for e in buf.entries(names) if wanted(e)]
    if tail is not None:
        entries = entries[-_count(tail, "tail count") :] if tail.isdigit() else _since(entries, tail)
    printed: set[str] = set()
    sink = _file_sink(ctx, opts.get("file"))
    last = buf.seq
    shown = 0
    while True:
        for e in entries:
            if limit is not None and shown >= limit:
                return 0
            if len(names) > 1 and (e.buffer not in printed or opts.get("dividers")):
                ctx.print(f"--------- {'switch to' if e.buffer in printed else 'beginning of'} {e.buffer}")
                printed.add(e.buffer)
            ctx.print(format_entry(e, verb, mods))
            shown += 1
        if sink is not None:
            sink.write(bytes(ctx.out))
            ctx.out.clear()
        if not follow:
            return 0
        ctx.flush()
        entries = _next(ctx, buf, names, last, wanted)
        last = buf.seq


def _next(ctx: Ctx, buf: LogBuffer, names: tuple[str, ...], last: int, wanted) -> list[Entry]:
    """Wait (phone lock released) for entries newer than `last`; ends the command when the host hangs up."""
    while True:
        if ctx.hung_up:
            raise ExitShell(0)
        cancel = ctx.shell.cancel
        if cancel is not None and cancel.is_set():
            raise ExitShell(143)
        if buf.seq > last:
            return [e for e in buf.entries(names, last) if wanted(e)]
        with buf.cond:
            buf.cond.wait(FOLLOW_POLL)


def _since(entries: list[Entry], when: str) -> list[Entry]:
    """-t 'MM-DD hh:mm:ss.mmm' (or 'YYYY-MM-DD ...', or epoch 'sss.mmm'): the entries from that time on."""
    for fmt in ("%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%f", "%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S"):
        try:
            t = time.strptime(when, fmt)
        except ValueError:
            continue
        year = t.tm_year if "%Y" in fmt else time.gmtime(entries[-1].ms / 1000).tm_year if entries else 1970
        frac = float("0." + when.rsplit(".", 1)[1]) if "." in when else 0.0
        start = (time.mktime((year, *t[1:6], 0, 0, 0)) - time.timezone + frac) * 1000
        return [e for e in entries if e.ms >= start]
    try:
        return [e for e in entries if e.ms >= float(when) * 1000]
    except ValueError as e:
        raise RawError(f'logcat: -t "{when}" not in time format', 1) from e


def _file_sink(ctx: Ctx, name: str | None):
    if name is None:
        return None
    return FileSink(ctx.fs, ctx.fs.android_path(name, ctx.shell.cwd), append=True)


@command("log")
def _log(ctx: Ctx, args: list[str]) -> int:
    """log [-p PRIORITY] [-t TAG] MESSAGE: one entry in the main buffer (the shell's tag is "log")."""
    level, tag, i = "I", "log", 0
    while i < len(args) and args[i] in ("-p", "-t") and i + 1 < len(args):
        if args[i] == "-p":
            level = args[i + 1][:1].upper()
            if level not in LEVELS[:-1]:
                raise ShellError(f"invalid priority '{args[i + 1]}'", 1)
        else:
            tag = args[i + 1]
        i += 2
    message = " ".join(args[i:]) or ctx.stdin.decode("utf-8", "replace").rstrip("\n")
    log(ctx.phone, level, tag, message, pid=4000 + ctx.phone.counter % 1000, buffer_name="main")
    return 0

"""Shell builtins that need the shell itself: export, unset, set, shift, read, printf, eval, `.`, local,
return, break, continue, command, type and which (test/[ live in `testcmd`).
"""

from __future__ import annotations

import re

from .commands import load_all
from .context import REGISTRY, Ctx, Sink, command
from .parse import NAME, parse
from .simple import IO, LoopControl, ReturnFromFunction
from .testcmd import _test  # noqa: F401  (registers test and [)
from .tokens import ShellError

SHELL_BUILTINS = frozenset(
    "cd echo test [ export unset set shift read printf eval . source local return break continue command "
    "type exit true false : pwd alias wait trap umask getopts".split()
)


# --- variables and positional parameters ------------------------------------------------------------------


def _quote(value: str) -> str:
    return (
        value
        if re.fullmatch(r"[A-Za-z0-9_./:,+@%-]*", value) and value
        else "'" + value.replace("'", "'\\''") + "'"
    )


@command("export", "readonly")
def _export(ctx: Ctx, args: list[str]) -> int:
    sh = ctx.shell
    names = [a for a in args if a not in ("-p", "--")]
    if not names:
        for k in sorted(sh.exported if ctx.argv0 == "export" else ()):
            if k in sh.vars:
                ctx.print(f"{ctx.argv0} {k}={_quote(sh.vars[k])}")
        return 0
    for a in names:
        name, eq, value = a.partition("=")
        if not NAME.match(name):
            raise ShellError(f"{name}: is not an identifier", 1)
        if eq:
            sh.vars[name] = value
        sh.exported.add(name)
    return 0


@command("local")
def _local(ctx: Ctx, args: list[str]) -> int:
    for a in args:
        name, eq, value = a.partition("=")
        if NAME.match(name):
            ctx.shell.vars[name] = value if eq else ctx.shell.vars.get(name, "")
    return 0


@command("unset")
def _unset(ctx: Ctx, args: list[str]) -> int:
    funcs = "-f" in args
    for name in (a for a in args if a not in ("-f", "-v")):
        if funcs:
            ctx.shell.funcs.pop(name, None)
        else:
            ctx.shell.vars.pop(name, None)
            ctx.shell.exported.discard(name)
    return 0


OPTION_NAMES = {"errexit": "e", "nounset": "u", "xtrace": "x", "pipefail": "pipefail", "noglob": "f"}
OPTION_LETTERS = "euxf"
IGNORED_OPTIONS = frozenset({"monitor", "noclobber", "allexport", "verbose", "posix", "sh", "emacs", "vi"})


@command("set")
def _set(ctx: Ctx, args: list[str]) -> int:
    """set [-eux] [-o NAME] [--] [ARGS]: errexit, nounset, xtrace and pipefail work; other mksh options
    are accepted and have no effect."""
    sh = ctx.shell
    if not args:
        for k in sorted(sh.vars):
            ctx.print(f"{k}={_quote(sh.vars[k])}")
        return 0
    i = 0
    while i < len(args) and args[i][:1] in ("-", "+") and args[i] not in ("--", "-", "+"):
        a = args[i]
        on = a[0] == "-"
        if a[1:] == "o":
            if i + 1 >= len(args):
                for name, flag in OPTION_NAMES.items():
                    ctx.print(f"{name:<16}{'on' if flag in sh.opts else 'off'}")
                return 0
            if args[i + 1] not in OPTION_NAMES and args[i + 1] not in IGNORED_OPTIONS:
                raise ShellError(f"-o: {args[i + 1]}: unknown option", 1)
            flags = [OPTION_NAMES.get(args[i + 1], "")]
            i += 2
        else:
            flags = [c for c in a[1:] if c in OPTION_LETTERS]
            i += 1
        for flag in filter(None, flags):
            (sh.opts.add if on else sh.opts.discard)(flag)
    if i < len(args) and args[i] in ("--", "-", "+"):
        i += 1
    if i < len(args) or "--" in args:
        sh.positional = [sh.positional[0]] + args[i:]
    return 0


@command("shift")
def _shift(ctx: Ctx, args: list[str]) -> int:
    n = int(args[0]) if args and args[0].isdigit() else 1
    pos = ctx.shell.positional
    if n > len(pos) - 1:
        raise ShellError(f"{n}: can't shift that many", 1)
    ctx.shell.positional = [pos[0]] + pos[1 + n :]
    return 0


@command("read")
def _read(ctx: Ctx, args: list[str]) -> int:
    """read [-r] [-p prompt] [NAME...]: one line of stdin split on IFS; the last name takes the rest."""
    raw, names, i = False, [], 0
    while i < len(args):
        a = args[i]
        if a == "-r":
            raw = True
        elif a in ("-p", "-t", "-n", "-u", "-d"):
            i += 1
        elif not a.startswith("-"):
            names.append(a)
        i += 1
    names = names or ["REPLY"]
    data = ctx.input.read_line()
    line = (data or b"").decode("utf-8", "replace")
    line = line[:-1] if line.endswith("\n") else line
    if not raw:
        line = re.sub(r"\\(.)", r"\1", line)
    ifs = ctx.shell.vars.get("IFS", " \t\n")
    if names == ["REPLY"]:
        parts = [line]
    else:
        line = line.strip(ifs) if ifs.strip() == "" else line
        parts = re.split(f"[{re.escape(ifs)}]+", line, maxsplit=len(names) - 1) if ifs and line else [line]
    for k, name in enumerate(names):
        ctx.shell.vars[name] = parts[k] if k < len(parts) else ""
    return 0 if data is not None else 1


# --- printf ----------------------------------------------------------------------------------------------

SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([diouxXeEfFgGcsb%])")
ESC = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v"}


def _escapes(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "01234567":
            return chr(int(s, 8) & 0xFF)
        return ESC.get(s, "\\" + s)

    return re.sub(r"\\(0[0-7]{0,3}|[1-7][0-7]{0,2}|.)", sub, text, flags=re.S)


def _number(ctx: Ctx, arg: str, conv: str, failed: list[str]) -> int | float:
    if arg[:1] in ("'", '"') and len(arg) > 1:
        return ord(arg[1])
    try:
        if conv in "eEfFgG":
            return float(arg or 0)
        return int(arg or "0", 0) if not re.fullmatch(r"[-+]?0\d+", arg) else int(arg, 8)
    except ValueError:
        ctx.eprint(f"printf: invalid number '{arg}'")
        failed.append(arg)
        return 0


@command("printf")
def _printf(ctx: Ctx, args: list[str]) -> int:
    if not args:
        raise ShellError("needs 1 argument", 1)
    fmt, rest = args[0], list(args[1:])
    failed: list[str] = []
    while True:
        out, pos, used = [], 0, False
        for m in SPEC.finditer(fmt):
            out.append(_escapes(fmt[pos : m.start()]))
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            used = True
            if width == "*":
                width = str(int(rest.pop(0)) if rest else 0)
            if prec == "*":
                prec = str(int(rest.pop(0)) if rest else 0)
            arg = rest.pop(0) if rest else ""
            spec = "%" + flags + (width or "") + (f".{prec}" if prec is not None else "")
            if conv in "sb":
                out.append((spec + "s") % (_escapes(arg) if conv == "b" else arg))
            elif conv == "c":
                out.append((spec + "s") % arg[:1])
            else:
                out.append((spec + ("d" if conv in "iu" else conv)) % _number(ctx, arg, conv, failed))
        out.append(_escapes(fmt[pos:]))
        ctx.out += "".join(out).encode("utf-8", "surrogateescape")
        if not rest or not used:
            return 1 if failed else 0


# --- running text as commands, and control flow --------------------------------------------------------


def _run_text(ctx: Ctx, text: str) -> int:
    ctx.flush()  # what the text prints goes straight to this command's descriptors
    return ctx.shell.execute(parse(text), IO(ctx.input, ctx.fds))


@command("eval")
def _eval(ctx: Ctx, args: list[str]) -> int:
    return _run_text(ctx, " ".join(args))


@command(".", "source")
def _source(ctx: Ctx, args: list[str]) -> int:
    if not args:
        raise ShellError("filename argument required", 2)
    return _run_text(ctx, ctx.read_input(args[0]).decode("utf-8", "replace"))


@command("return")
def _return(ctx: Ctx, args: list[str]) -> int:
    raise ReturnFromFunction(
        int(args[0]) & 0xFF if args and args[0].lstrip("-").isdigit() else ctx.shell.status
    )


@command("break", "continue")
def _break(ctx: Ctx, args: list[str]) -> int:
    raise LoopControl(ctx.argv0, max(1, int(args[0])) if args and args[0].isdigit() else 1)


def _where(name: str) -> str | None:
    load_all()  # every command, to say which exist
    if name in SHELL_BUILTINS:
        return name
    if name in REGISTRY:
        return f"/system/bin/{name}"
    return None


@command("command", "type", "which")
def _command(ctx: Ctx, args: list[str]) -> int:
    """`command -v NAME`, `type NAME`, `which NAME`; `command NAME ARGS` runs NAME, skipping functions."""
    if ctx.argv0 == "command" and args and args[0] not in ("-v", "-V"):
        return ctx.shell.run_command(args, IO(ctx.input, {1: Sink(ctx.out), 2: Sink(ctx.err)}))
    names = [a for a in args if not a.startswith("-")]
    code = 0
    for name in names:
        where = _where(name)
        if ctx.argv0 != "which" and name in ctx.shell.funcs:
            ctx.print(name if ctx.argv0 == "command" else f"{name} is a function")
        elif where is None or (ctx.argv0 == "which" and where == name and name not in REGISTRY):
            if ctx.argv0 == "type":
                ctx.print(f"{name} not found")
            code = 1
        elif ctx.argv0 == "type":
            ctx.print(f"{name} is a shell builtin" if where == name else f"{name} is {where}")
        else:
            ctx.print(where if ctx.argv0 == "command" or where != name else f"/system/bin/{name}")
    return code

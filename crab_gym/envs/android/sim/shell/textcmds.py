"""Text commands and shell builtins: echo, cat, sh, exit, sleep, grep, head, tail, wc, sort, uniq, cut, tr."""

from __future__ import annotations

import re

from .context import (
    MAX_SLEEP,
    REGISTRY,
    CommandFn,
    Ctx,
    ExitShell,
    Input,
    Sink,
    command,
    split_flags,
    unlocked,
)
from .simple import IO
from .tokens import ShellError


@command("true", ":")
def _true(ctx: Ctx, args: list[str]) -> int:
    return 0


@command("exit")
def _exit(ctx: Ctx, args: list[str]) -> int:
    try:
        code = int(args[0]) & 0xFF if args else ctx.shell.status
    except ValueError as e:
        raise ShellError(f"{args[0]}: bad number", 1) from e
    raise ExitShell(code)


@command("false")
def _false(ctx: Ctx, args: list[str]) -> int:
    return 1


ESCAPES = {
    "n": "\n",
    "t": "\t",
    "\\": "\\",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "r": "\r",
    "v": "\v",
    "e": "\x1b",
}


def _unescape(text: str) -> tuple[str, bool]:
    """mksh's echo escapes; returns (text, stop) where stop means a \\c ended the output."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "c":
                return "".join(out), True
            if nxt in ESCAPES:
                out.append(ESCAPES[nxt])
                i += 2
                continue
            if nxt == "0":
                digits = re.match(r"[0-7]{0,3}", text[i + 2 :]).group(0)  # type: ignore[union-attr]  # {0,3}: always a match
                out.append(chr(int(digits or "0", 8)))
                i += 2 + len(digits)
                continue
        out.append(c)
        i += 1
    return "".join(out), False


@command("echo")
def _echo(ctx: Ctx, args: list[str]) -> int:
    """mksh's echo: -n drops the newline, backslash escapes are processed unless -E."""
    newline, escapes = True, True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        newline = newline and "n" not in args[0]
        escapes = "E" not in args[0]
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = _unescape(text)
        newline = newline and not stop
    ctx.print(text, end="\n" if newline else "")
    return 0


@command("sleep")
def _sleep(ctx: Ctx, args: list[str]) -> int:
    try:
        secs = float(args[0].rstrip("s")) if args else 0.0
    except ValueError as e:
        raise ShellError(f"bad number '{args[0]}'") from e
    unlocked(ctx.phone.lock, timeout=max(0.0, min(secs, MAX_SLEEP)))
    return 0


@command("cat")
def _cat(ctx: Ctx, args: list[str]) -> int:
    _, _, files = split_flags(args, "uvn")
    code = 0
    for f in files or ["-"]:
        try:
            ctx.out += ctx.read_input(f)
        except ShellError as e:
            ctx.eprint(f"cat: {e}")
            code = 1
    return code


@command("sh", "mksh", "bash")
def _sh(ctx: Ctx, args: list[str]) -> int:
    """A child shell: `sh -c LINE [NAME ARGS...]`, `sh FILE [ARGS...]`, or commands read from stdin."""
    sub = ctx.shell.subshell(exported_only=True)
    opts = [a for a in args if a.startswith("-") and a != "-"]
    args = [a for a in args if a not in opts]
    stdin = ctx.input
    if "-c" in opts or any("c" in o for o in opts):
        if not args:
            raise ShellError("-c: option requires an argument", 2)
        line = args[0]
        sub.positional = (args[1:2] or ["sh"]) + args[2:]
    elif args:
        line = ctx.read_input(args[0]).decode("utf-8", "replace")
        sub.positional = args
    else:
        line, stdin = ctx.stdin.decode("utf-8", "replace"), Input(b"")
    return sub.run_in(line, IO(stdin, {1: Sink(ctx.out), 2: Sink(ctx.err)}))


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _head_tail(is_tail: bool) -> CommandFn:
    def run(ctx: Ctx, args: list[str]) -> int:
        norm = [("-n" + a[1:]) if re.fullmatch(r"-\d+", a) else a for a in args]
        _, vals, files = split_flags(norm, "qvf", "nc")
        data = b"".join(ctx.read_input(f) for f in (files or ["-"]))
        if "c" in vals:  # bytes rather than lines
            c = int(vals["c"].lstrip("+-") or 0)
            ctx.out += (data[-c:] if c else b"") if is_tail else data[:c]
            return 0
        n = int(vals.get("n", "10").lstrip("+-") or 10)
        lines = _lines(data)
        ctx.out += b"".join((lines[-n:] if n else []) if is_tail else lines[:n])
        return 0

    return run


REGISTRY["head"] = _head_tail(False)
REGISTRY["tail"] = _head_tail(True)


@command("wc")
def _wc(ctx: Ctx, args: list[str]) -> int:
    flags, _, files = split_flags(args, "lwc")
    data = b"".join(ctx.read_input(f) for f in (files or ["-"]))
    counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
    chosen = [k for k in "lwc" if k in flags] or ["l", "w", "c"]
    ctx.print(" ".join(str(counts[k]) for k in chosen) + (f" {files[0]}" if len(files) == 1 else ""))
    return 0


def _bre_to_python(pat: str) -> str:
    """Basic regular expressions: \\| \\+ \\? \\( \\) \\{ \\} are special, the bare ones literal."""
    out, i = [], 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            nxt = pat[i + 1]
            out.append(nxt if nxt in "|+?(){}" else "\\" + nxt)
            i += 2
            continue
        out.append("\\" + c if c in "|+?(){}" else c)
        i += 1
    return "".join(out)


@command("grep", "egrep", "fgrep")
def _grep(ctx: Ctx, args: list[str]) -> int:
    flags, vals, rest = split_flags(args, "ivcEFqnwolsxh", "e")
    patterns = [vals["e"]] if "e" in vals else []
    if not patterns:
        if not rest:
            raise ShellError("usage: grep [-EFivcqnwox] PATTERN [FILE...]", 2)
        patterns, rest = [rest[0]], rest[1:]
    if "F" in flags:
        regex = "|".join(re.escape(p) for p in patterns)
    elif "E" in flags:
        regex = "|".join(patterns)
    else:
        regex = "|".join(_bre_to_python(p) for p in patterns)
    if "w" in flags:
        regex = rf"\b(?:{regex})\b"
    if "x" in flags:
        regex = rf"^(?:{regex})$"
    try:
        rx = re.compile(regex, re.IGNORECASE if "i" in flags else 0)
    except re.error as e:
        raise ShellError(f"bad regex '{patterns[0]}': {e}", 2) from e
    count, found = 0, False
    for name in rest or ["-"]:
        try:
            data = ctx.read_input(name)
        except ShellError as e:
            if "s" not in flags:
                ctx.eprint(f"grep: {e}")
            continue
        for no, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            hit = rx.search(raw) is not None
            if hit == ("v" in flags):
                continue
            found = True
            count += 1
            if "q" in flags or "c" in flags or "l" in flags:
                continue
            prefix = f"{name}:" if len(rest) > 1 and "h" not in flags else ""
            prefix += f"{no}:" if "n" in flags else ""
            if "o" in flags:
                for m in rx.finditer(raw):
                    ctx.print(prefix + m.group(0))
            else:
                ctx.print(prefix + raw)
        if "l" in flags and found:
            ctx.print(name)
    if "c" in flags:
        ctx.print(str(count))
    return 0 if found else 1


def _text_lines(ctx: Ctx, files: list[str]) -> list[str]:
    data = b"".join(ctx.read_input(f) for f in (files or ["-"]))
    return data.decode("utf-8", "replace").splitlines()


@command("sort")
def _sort(ctx: Ctx, args: list[str]) -> int:
    flags, _, files = split_flags(args, "rnuf")
    lines = _text_lines(ctx, files)

    def key(s: str):
        if "n" in flags:
            m = re.match(r"\s*(-?\d+(?:\.\d+)?)", s)
            return (float(m.group(1)) if m else 0.0, s)
        return s.lower() if "f" in flags else s

    lines.sort(key=key, reverse="r" in flags)
    if "u" in flags:
        lines = list(dict.fromkeys(lines))
    ctx.out += "".join(ln + "\n" for ln in lines).encode()
    return 0


@command("uniq")
def _uniq(ctx: Ctx, args: list[str]) -> int:
    flags, _, files = split_flags(args, "cdu")
    groups: list[list] = []
    for ln in _text_lines(ctx, files):
        if groups and groups[-1][0] == ln:
            groups[-1][1] += 1
        else:
            groups.append([ln, 1])
    for ln, n in groups:
        if ("d" in flags and n < 2) or ("u" in flags and n > 1):
            continue
        ctx.print(f"{n:7d} {ln}" if "c" in flags else ln)
    return 0


@command("cut")
def _cut(ctx: Ctx, args: list[str]) -> int:
    _, vals, files = split_flags(args, "s", "dfc")
    delim = vals.get("d", "\t")
    spec = vals.get("f") or vals.get("c")
    if not spec:
        raise ShellError("usage: cut -d DELIM -f LIST [FILE...]", 1)
    wanted: set[int] = set()
    try:
        for part in spec.split(","):
            if "-" in part:
                lo, hi = part.split("-", 1)
                a, b = int(lo) if lo else 1, int(hi) if hi else 10_000
            else:
                a = b = int(part)
            wanted.update(range(a, b + 1))
    except ValueError as e:
        raise ShellError(f"bad list '{spec}'", 1) from e
    for ln in _text_lines(ctx, files):
        if "c" in vals:
            ctx.print("".join(ch for i, ch in enumerate(ln, 1) if i in wanted))
        else:
            fields = ln.split(delim)
            ctx.print(
                delim.join(fld for i, fld in enumerate(fields, 1) if i in wanted) if len(fields) > 1 else ln
            )
    return 0


def _tr_set(spec: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


@command("tr")
def _tr(ctx: Ctx, args: list[str]) -> int:
    flags, _, sets = split_flags(args, "d")
    text = ctx.stdin.decode("utf-8", "replace")
    if "d" in flags and sets:
        drop = set(_tr_set(sets[0]))
        ctx.out += "".join(c for c in text if c not in drop).encode()
    elif len(sets) == 2:
        a, b = _tr_set(sets[0]), _tr_set(sets[1])
        b = (b + b[-1:] * len(a))[: len(a)]
        ctx.out += text.translate(str.maketrans(a, b)).encode()
    else:
        raise ShellError("usage: tr [-d] SET1 [SET2]", 1)
    return 0


@command("basename", "dirname")
def _basename(ctx: Ctx, args: list[str]) -> int:
    import posixpath

    if not args:
        raise ShellError("needs 1 argument", 1)
    is_dir = ctx.argv0 == "dirname"
    path = args[0].rstrip("/") or "/"
    ctx.print((posixpath.dirname(path) or ".") if is_dir else posixpath.basename(path))
    return 0

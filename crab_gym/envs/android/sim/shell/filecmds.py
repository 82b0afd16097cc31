"""File commands of the phone's shell: ls, rm, mkdir, touch, cp, mv, cd, pwd, stat, find."""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
import shutil
import stat as st
import time
from collections.abc import Callable
from pathlib import Path

from .context import REGISTRY, CommandFn, Ctx, command, split_flags
from .tokens import ShellError


def _path(ctx: Ctx, name: str) -> str:
    return ctx.fs.android_path(name, ctx.shell.cwd)


def _mtime_ns(host: Path) -> int:
    """The time the phone gave ``host`` (a broken symlink: its own)."""
    try:
        return host.stat().st_mtime_ns
    except OSError:
        return os.lstat(host).st_mtime_ns


def _mode_str(mode: int) -> str:
    kind = "d" if st.S_ISDIR(mode) else "l" if st.S_ISLNK(mode) else "-"
    bits = "".join(c if mode & (1 << (8 - i)) else "-" for i, c in enumerate("rwxrwxrwx"))
    return kind + bits


@command("ls")
def _ls(ctx: Ctx, args: list[str]) -> int:
    """toybox ls: -l long, -a/-A hidden, -R recursive, -d the directory itself, -t newest first, -r reversed;
    -u and -c show the one time the phone keeps (storage/times.py)."""
    flags, _, names = split_flags(args, "laA1RdhtrsFnuc")
    code = 0
    if flags & {"l", "t"}:
        ctx.fs.times.settle()
    targets = names or ["."]
    if "R" in flags:
        flags.discard("R")
        found = []
        for name in targets:
            host = ctx.fs.resolve(name, ctx.shell.cwd)
            stack = [(host, name.rstrip("/") or "/")]
            while stack:
                h, shown = stack.pop(0)
                if h.is_dir():
                    found.append(shown)
                    stack[0:0] = [
                        (c, f"{shown.rstrip('/')}/{c.name}") for c in sorted(h.iterdir()) if c.is_dir()
                    ]
        targets = found or targets
    for k, name in enumerate(targets):
        host = ctx.fs.resolve(name, ctx.shell.cwd)
        if not host.exists():
            ctx.eprint(f"ls: {name}: No such file or directory")
            code = 1
            continue
        if host.is_dir() and "d" not in flags:
            entries = sorted(p.name for p in host.iterdir())
            if "a" in flags:
                entries = [".", ".."] + entries
            elif "A" not in flags:
                entries = [e for e in entries if not e.startswith(".")]
            if len(targets) > 1:
                ctx.print(("\n" if k else "") + f"{name}:")
            items = [(e, host / e if e not in (".", "..") else host) for e in entries]
        else:
            items = [(name, host)]
        if "t" in flags:  # newest first, then by name
            items.sort(key=lambda item: -_mtime_ns(item[1]))
        if "r" in flags:
            items.reverse()
        if "l" in flags:
            if host.is_dir() and "d" not in flags:
                ctx.print(f"total {len(items) * 8}")
            for e, h in items:
                s = h.stat()
                when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(s.st_mtime))
                if ctx.fs.is_device(ctx.fs.to_android(h)):
                    ctx.print(f"crw-rw-rw- 1 root root   1,   3 {when} {e}")
                    continue
                group = "sdcard_rw" if ctx.fs.to_android(h).startswith("/sdcard") else "root"
                ctx.print(f"{_mode_str(s.st_mode)} 1 root {group} {s.st_size:>8} {when} {e}")
        else:
            for e, _h in items:
                ctx.print(e)
    return code


Test = Callable[[Path, str, int], bool]  # (host path, shown path, depth) -> matches


def _find_expr(args: list[str], opts: dict[str, int], mtime: Callable[[str], int]) -> Test:
    """find's expression: tests joined by -a (or nothing) and -o, `!` and parentheses; -maxdepth, -mindepth
    and -print go to `opts` or always match; -newer FILE compares with `mtime` (ns) of FILE."""

    def primary() -> Test:
        opt = args.pop(0)
        if opt in ("!", "-not"):
            inner = primary()
            return lambda h, s, d: not inner(h, s, d)
        if opt == "(":
            inner = disjunction()
            if not args or args.pop(0) != ")":
                raise ShellError("missing ')'", 1)
            return inner
        if opt in ("-maxdepth", "-mindepth") and args and args[0].isdigit():
            opts[opt] = int(args.pop(0))
            return lambda h, s, d: True
        if opt in ("-print", "-print0"):
            return lambda h, s, d: True
        if opt == "-newer" and args:
            than = mtime(args.pop(0))
            return lambda h, s, d: _mtime_ns(h) > than
        if opt in ("-name", "-iname", "-type", "-path") and args:
            val = args.pop(0)
            if opt == "-name":
                return lambda h, s, d: fnmatch.fnmatchcase(h.name if d else s.rsplit("/", 1)[-1], val)
            if opt == "-iname":
                return lambda h, s, d: fnmatch.fnmatch(
                    (h.name if d else s.rsplit("/", 1)[-1]).lower(), val.lower()
                )
            if opt == "-path":
                return lambda h, s, d: fnmatch.fnmatchcase(s, val)
            return lambda h, s, d: (val == "d") == h.is_dir()
        if opt in ("-name", "-iname", "-type", "-path", "-maxdepth", "-mindepth", "-newer"):
            raise ShellError(f"'{opt}' needs 1 arg", 1)
        raise ShellError(f"Unknown option '{opt}'", 1)

    def conjunction() -> Test:
        parts = [primary()]
        while args and args[0] not in ("-o", "-or", ")"):
            if args[0] in ("-a", "-and"):
                args.pop(0)
            parts.append(primary())
        return lambda h, s, d: all(t(h, s, d) for t in parts)

    def disjunction() -> Test:
        parts = [conjunction()]
        while args and args[0] in ("-o", "-or"):
            args.pop(0)
            parts.append(conjunction())
        return lambda h, s, d: any(t(h, s, d) for t in parts)

    return disjunction() if args else (lambda h, s, d: True)


@command("find")
def _find(ctx: Ctx, args: list[str]) -> int:
    roots = []
    while args and not args[0].startswith("-") and args[0] not in ("(", "!"):
        roots.append(args.pop(0))
    opts = {"-maxdepth": 1 << 30, "-mindepth": 0}

    def mtime(name: str) -> int:
        try:
            return _mtime_ns(ctx.fs.resolve(name, ctx.shell.cwd))
        except OSError:
            raise ShellError(f"{name}: No such file or directory", 1) from None

    if "-newer" in args:
        ctx.fs.times.settle()
    test = _find_expr(list(args), opts, mtime)
    code = 0
    for root in roots or ["."]:
        base = ctx.fs.resolve(root, ctx.shell.cwd)
        if not base.exists():
            ctx.eprint(f"find: {root}: No such file or directory")
            code = 1
            continue
        todo = [(base, root.rstrip("/") or "/", 0)]
        while todo:
            host, shown, depth = todo.pop(0)
            if depth >= opts["-mindepth"] and test(host, shown, depth):
                ctx.print(shown)
            if host.is_dir() and depth < opts["-maxdepth"]:
                todo[0:0] = [(c, f"{shown.rstrip('/')}/{c.name}", depth + 1) for c in sorted(host.iterdir())]
    return code


@command("rm")
def _rm(ctx: Ctx, args: list[str]) -> int:
    flags, _, names = split_flags(args, "rRfvd")
    code = 0
    for name in names:
        host = ctx.fs.resolve(name, ctx.shell.cwd)
        if host == ctx.fs.root:
            ctx.eprint("rm: /: refusing to remove the root")
            code = 1
        elif not host.exists() and not host.is_symlink():
            if "f" not in flags:
                ctx.eprint(f"rm: {name}: No such file or directory")
                code = 1
        elif host.is_dir() and not host.is_symlink():
            if flags & {"r", "R"}:
                shutil.rmtree(host)
            elif "d" in flags:
                host.rmdir()
            else:
                ctx.eprint(f"rm: {name}: Is a directory")
                code = 1
        else:
            host.unlink()
    return code


@command("mkdir")
def _mkdir(ctx: Ctx, args: list[str]) -> int:
    flags, _, names = split_flags(args, "pv", "m")
    code = 0
    for name in names:
        host = ctx.fs.resolve(name, ctx.shell.cwd)
        if host.exists():
            if "p" not in flags:
                ctx.eprint(f"mkdir: '{name}': File exists")
                code = 1
            continue
        if not host.parent.exists() and "p" not in flags:
            ctx.eprint(f"mkdir: '{name}': No such file or directory")
            code = 1
            continue
        host.mkdir(parents=True, exist_ok=True)
    return code


@command("touch")
def _touch(ctx: Ctx, args: list[str]) -> int:
    flags, values, names = split_flags(args, "acm", "dt")
    when = None
    try:
        if "d" in values:
            when = _touch_date(values["d"])
        elif "t" in values:
            when = _touch_stamp(values["t"], ctx.phone.now_ms() // 1000)
    except ValueError:
        raise ShellError(f"bad date '{values.get('d', values.get('t'))}'", 1) from None
    for name in names:
        host = ctx.fs.resolve(name, ctx.shell.cwd)
        if not host.parent.exists():
            ctx.eprint(f"touch: '{name}': No such file or directory")
            return 1
        existed = host.exists()
        if not existed and "c" in flags:
            continue
        if existed and "a" in flags and "m" not in flags:
            continue  # the access time alone: the phone keeps one time per file (storage/times.py)
        if not existed or when is None:
            host.touch()  # the time now: given at the next note
        if when is not None:
            ctx.fs.times.set(host, when)
    return 0


def _touch_date(text: str) -> float:
    """toybox touch -d: '@SECONDS' or 'YYYY-MM-DD[ hh:mm[:ss]]' (T may join them; the phone's zone is UTC)."""
    if text.startswith("@"):
        return float(text[1:])
    day, _, clock = text.replace("T", " ").rstrip("Z").partition(" ")
    clock = clock.split(".")[0] or "00:00:00"
    fmt = "%Y-%m-%d %H:%M:%S" if clock.count(":") == 2 else "%Y-%m-%d %H:%M"
    return dt.datetime.strptime(f"{day} {clock}", fmt).replace(tzinfo=dt.timezone.utc).timestamp()


def _touch_stamp(text: str, now: int) -> float:
    """toybox touch -t: [[CC]YY]MMDDhhmm[.ss], in the phone's zone (UTC)."""
    main, _, sec = text.partition(".")
    if not main.isdigit() or len(main) not in (8, 10, 12) or (sec and not sec.isdigit()):
        raise ValueError(text)
    year = dt.datetime.fromtimestamp(now, dt.timezone.utc).year
    if len(main) == 12:
        year, main = int(main[:4]), main[4:]
    elif len(main) == 10:
        year, main = 2000 + int(main[:2]) if int(main[:2]) < 69 else 1900 + int(main[:2]), main[2:]
    month, day, hour, minute = (int(main[i : i + 2]) for i in range(0, 8, 2))
    when = dt.datetime(year, month, day, hour, minute, int(sec or 0), tzinfo=dt.timezone.utc)
    return when.timestamp()


def _copy_or_move(move: bool) -> CommandFn:
    def run(ctx: Ctx, args: list[str]) -> int:
        flags, _, names = split_flags(args, "rRfpainv")
        if len(names) < 2:
            raise ShellError("needs 2 arguments", 1)
        dest = ctx.fs.resolve(names[-1], ctx.shell.cwd)
        for name in names[:-1]:
            src = ctx.fs.resolve(name, ctx.shell.cwd)
            if not src.exists():
                raise ShellError(f"bad '{name}': No such file or directory")
            target = dest / src.name if dest.is_dir() else dest
            if not target.parent.exists():
                raise ShellError(f"'{names[-1]}': No such file or directory")
            if ctx.fs.is_device(ctx.fs.to_android(target)):  # cp x /dev/null: the bytes go nowhere
                continue
            if ctx.fs.is_device(ctx.fs.to_android(src)) and not move:
                ctx.fs.write_bytes(ctx.fs.to_android(target), ctx.fs.read_bytes(ctx.fs.to_android(src)))
                continue
            if move:
                real = os.path.realpath(src)
                shutil.move(str(src), str(target))
                ctx.fs.times.moved(real, str(target))
            elif src.is_dir():
                if not flags & {"r", "R", "a"}:
                    raise ShellError(f"Skipped dir '{name}'")
                shutil.copytree(src, target, dirs_exist_ok=True)
            else:
                shutil.copyfile(src, target)
        return 0

    return run


REGISTRY["cp"] = _copy_or_move(False)
REGISTRY["mv"] = _copy_or_move(True)


@command("pwd")
def _pwd(ctx: Ctx, args: list[str]) -> int:
    ctx.print(ctx.shell.cwd)
    return 0


@command("cd")
def _cd(ctx: Ctx, args: list[str]) -> int:
    path = _path(ctx, args[0] if args else "/")
    if not ctx.fs.resolve(path).is_dir():
        raise ShellError(f"{args[0]}: No such file or directory", 2)
    ctx.shell.cwd = path
    return 0


@command("stat")
def _stat(ctx: Ctx, args: list[str]) -> int:
    _, vals, names = split_flags(args, "L", "c")
    ctx.fs.times.settle()
    for name in names:
        s = ctx.fs.resolve(name, ctx.shell.cwd).stat()
        fmt = vals.get("c")
        if fmt:
            ctx.print(
                fmt.replace("%s", str(s.st_size)).replace("%Y", str(int(s.st_mtime))).replace("%n", name)
            )
        else:
            ctx.print(f"  File: {name}\n  Size: {s.st_size}")
    return 0

"""Process and toybox commands: ps, pidof, md5sum/sha1sum/sha256sum, and `toybox NAME ...`."""

from __future__ import annotations

import hashlib

from .commands import load_all
from .context import REGISTRY, Ctx, command, split_flags
from .tokens import ShellError

# (pid, ppid, user, name) of the system processes every phone runs
SYSTEM = (
    (1, 0, "root", "init"),
    (2, 0, "root", "[kthreadd]"),
    (180, 1, "root", "ueventd"),
    (290, 1, "logd", "logd"),
    (301, 1, "system", "servicemanager"),
    (330, 1, "root", "zygote64"),
    (331, 1, "root", "zygote"),
    (420, 1, "shell", "adbd"),
    (560, 330, "system", "system_server"),
    (780, 330, "u0_a120", "com.android.systemui"),
    (850, 330, "radio", "com.android.phone"),
    (910, 330, "u0_a110", "com.google.android.inputmethod.latin"),
)


PS_HELP = """usage: ps [-AadefLlnwZ] [-gG GROUP,] [-k FIELD,] [-o FIELD,] [-p PID,] [-t TTY,] [-uU USER,]

List processes.

Which processes to show (-gGuUpPt selections may be comma separated lists):

-A\tAll\t\t\t\t\t-a  Has terminal not session leader
-d\tAll but session leaders\t\t-e  Synonym for -A
-g\tIn GROUPs\t\t\t\t-G  In real GROUPs (before sgid)
-p\tPIDs (--pid)\t\t\t\t-P  Parent PIDs (--ppid)
-t\tAttached to selected TTYs\t\t-T  Show threads also
-u\tOwned by selected USERs\t\t-U  Real USERs (before suid)"""


def processes(ctx: Ctx) -> list[tuple[int, int, str, str]]:
    """(pid, ppid, user, name): the system processes, then one per app with a task (pid 1000 + task id)."""
    procs = list(SYSTEM)
    seen = {name for *_, name in procs}
    for act in ctx.phone.stack:
        if act.package not in seen:
            seen.add(act.package)
            procs.append((1000 + act.task_id, 330, f"u0_a{act.task_id % 100 + 100}", act.package))
    return procs


@command("ps")
def _ps(ctx: Ctx, args: list[str]) -> int:
    """toybox ps: -A (every process; we show them all anyway), -o is not supported, names filter."""
    if "--help" in args:
        ctx.print(PS_HELP)
        return 0
    names = [a for a in args if not a.startswith("-")]
    ctx.print("USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME")
    for pid, ppid, user, name in processes(ctx):
        if names and name not in names and str(pid) not in names:
            continue
        vsz, rss = (10782796, 98044) if "." in name else (10902408, 4092)
        ctx.print(f"{user:<10} {pid:>7} {ppid:>5} {vsz:>10} {rss:>6} {'do_epoll_wait':<16} {0:>4} S {name}")
    return 0


@command("pidof")
def _pidof(ctx: Ctx, args: list[str]) -> int:
    """The pids of the named processes on one line; status 1 when none runs."""
    _, _, names = split_flags(args, "s", "o")
    pids = [str(pid) for pid, _, _, name in processes(ctx) if name in names]
    if not pids:
        return 1
    ctx.print(" ".join(pids))
    return 0


def _digest(algorithm: str):
    def run(ctx: Ctx, args: list[str]) -> int:
        flags, _, files = split_flags(args, "bc")
        code = 0
        for name in files or ["-"]:
            try:
                data = ctx.read_input(name)
            except ShellError as e:
                ctx.eprint(f"{ctx.argv0}: {e}")
                code = 1
                continue
            digest = hashlib.new(algorithm, data).hexdigest()
            ctx.print(digest if "b" in flags else f"{digest}  {name}")
        return code

    return run


REGISTRY["md5sum"] = _digest("md5")
REGISTRY["sha1sum"] = _digest("sha1")
REGISTRY["sha256sum"] = _digest("sha256")


@command("toybox")
def _toybox(ctx: Ctx, args: list[str]) -> int:
    """`toybox NAME ARGS`: the command itself; with no name, the list of commands."""
    load_all()
    if not args:
        ctx.print(" ".join(sorted(n for n in REGISTRY if n.isalnum())))
        return 0
    fn = REGISTRY.get(args[0])
    if fn is None:
        raise ShellError(f"Unknown command {args[0]}", 1)
    ctx.argv0 = args[0]
    return fn(ctx, args[1:])

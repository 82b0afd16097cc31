"""Background jobs (`cmd &`) and the builtins around them and the shell's life: wait, kill, jobs, nohup,
trap and exec.

A job is a subshell run by a thread of its own, holding the phone's lock only while it runs commands (as the
foreground does). At the end of a command line the shell waits for the jobs still writing to the host's
output, as adbd keeps a shell stream open until every holder of its output has closed it; jobs whose output
goes to files run on after the line has returned. A host that hangs up ends every job of its shell.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field

from .context import REGISTRY, Ctx, ExitShell, HangUp, Input, Sink, command
from .proccmds import processes
from .simple import IO
from .tokens import ShellError

MAX_JOBS = 16  # live background jobs per command line
ATTACHED_WAIT = 60.0  # seconds a command line waits at its end for jobs still writing to the host
JOB_LIFETIME = 300.0  # seconds a detached job may run before it is stopped
WAIT_SLICE = 0.2  # how often a waiting shell looks whether the host hung up
TERMINATED = 143  # 128 + SIGTERM
_PIDS = itertools.count(5000)
SIGNALS = {"0": "EXIT", "1": "HUP", "2": "INT", "3": "QUIT", "9": "KILL", "13": "PIPE", "15": "TERM"}


@dataclass
class Job:
    pid: int
    text: str
    attached: bool  # writes to the host's stdout or stderr
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    status: int = 0


def start(sh, body, io) -> int:
    """Run `body` as a background job of shell `sh` with descriptors `io`; sets `$!`. Its stdin is empty."""
    root = sh.root
    if sum(not j.done.is_set() for j in root.jobs) >= MAX_JOBS:
        io.write(2, f"/system/bin/sh: too many background jobs (at most {MAX_JOBS})\n".encode())
        return 1
    child = type(sh)(sh.phone, sh)
    attached = any(io.fds.get(fd) in root.top_sinks for fd in (1, 2)) and not _redirected(body)
    job = Job(next(_PIDS), type(body).__name__, attached)
    child.cancel, child.deadline = job.cancel, time.monotonic() + JOB_LIFETIME
    job_io = type(io)(Input(b""), dict(io.fds))
    cond = threading.Condition(sh.phone.lock)

    def run() -> None:
        with sh.phone.lock:
            try:
                job.status = child.execute(body, job_io)
            except ExitShell as e:
                job.status = e.code
            except Exception:  # break/return outside their construct, a bug: the job's failure only
                job.status = 1
            finally:
                job.done.set()
                cond.notify_all()

    root.jobs.append(job)
    root.last_job = job.pid
    threading.Thread(target=run, daemon=True, name=f"sh-job-{job.pid}").start()
    return 0


def _redirected(node) -> bool:
    """True when the node's own redirections send both stdout and stderr away from the host (to files)."""
    where = {1: "host", 2: "host"}
    for r in getattr(node, "redirs", ()):
        if r.op in (">", ">>", ">|") and r.fd in where:
            where[r.fd] = "file"
        elif r.op == ">&" and r.fd in where:
            where[r.fd] = where.get(int(r.target), "host") if r.target.isdigit() else "file"
            if not r.target.isdigit():
                where[2] = "file"
    return all(v == "file" for v in where.values())


def _wait(sh, jobs: list[Job], timeout: float) -> bool:
    """Wait (phone lock released) until the jobs end, the host hangs up or time runs out; True when they
    all ended."""
    cond = threading.Condition(sh.phone.lock)
    deadline = time.monotonic() + timeout
    live = sh.root.live
    with cond:
        while not all(j.done.is_set() for j in jobs):
            left = deadline - time.monotonic()
            if left <= 0 or (live is not None and live.closed):
                return False
            cond.wait(min(left, WAIT_SLICE))
    return True


def finish(sh, io, status: int) -> int:
    """End of a command line: the EXIT trap, then the jobs still writing to the host (stopped after
    ATTACHED_WAIT seconds or when the host hangs up). Returns the line's exit status."""
    status = run_exit_trap(sh, io, status)
    attached = [j for j in sh.jobs if j.attached and not j.done.is_set()]
    if attached and not _wait(sh, attached, ATTACHED_WAIT):
        for j in attached:
            j.cancel.set()
    if sh.live is not None and sh.live.closed:
        for j in sh.jobs:
            j.cancel.set()
    return status


def run_exit_trap(sh, io, status: int) -> int:
    action = sh.traps.pop("EXIT", "")
    if not action:
        return status
    sh.status = status
    try:
        sh.run_in(action, io)
    except HangUp:
        pass
    return status


# --- builtins ----------------------------------------------------------------------------------------------


def _find(ctx: Ctx, spec: str) -> Job | None:
    jobs = ctx.shell.root.jobs
    if spec.startswith("%"):
        k = spec[1:]
        return jobs[int(k) - 1] if k.isdigit() and 0 < int(k) <= len(jobs) else (jobs[-1] if jobs else None)
    return next((j for j in jobs if str(j.pid) == spec), None)


@command("wait")
def _wait_cmd(ctx: Ctx, args: list[str]) -> int:
    """wait [PID|%N ...]: the status of the last one waited for (127 for a pid that is not a job)."""
    if not args:
        _wait(ctx.shell, list(ctx.shell.root.jobs), ATTACHED_WAIT)
        return 0
    status = 0
    for spec in args:
        job = _find(ctx, spec)
        if job is None:
            ctx.eprint(f"/system/bin/sh: wait: {spec}: no such job")
            status = 127
            continue
        if not _wait(ctx.shell, [job], ATTACHED_WAIT):
            job.cancel.set()
            status = TERMINATED
        else:
            status = job.status
    return status


@command("kill")
def _kill(ctx: Ctx, args: list[str]) -> int:
    """kill [-s SIG | -SIG] PID...: stops a job, or an app's process (as `am kill`); -l lists signals."""
    if args[:1] == ["-l"]:
        ctx.print(" ".join(SIGNALS[k] for k in sorted(SIGNALS, key=int) if k != "0"))
        return 0
    while args and args[0].startswith("-") and args[0] != "--":
        args = args[2:] if args[0] == "-s" else args[1:]
    code = 0
    for spec in (a for a in args if a != "--"):
        job = _find(ctx, spec)
        app = next((name for pid, _, _, name in processes(ctx) if str(pid) == spec and "." in name), None)
        if job is not None:
            job.cancel.set()
        elif app is not None:
            ctx.phone.force_stop(app)
        else:
            ctx.eprint(f"kill: {spec}: No such process")
            code = 1
    return code


@command("jobs")
def _jobs(ctx: Ctx, args: list[str]) -> int:
    for k, job in enumerate(ctx.shell.root.jobs, 1):
        state = "Done" if job.done.is_set() else "Running"
        ctx.print(f"[{k}] {job.pid} {state}")
    return 0


@command("nohup")
def _nohup(ctx: Ctx, args: list[str]) -> int:
    """Run a command immune to the host hanging up (it ends with the shell's own jobs anyway)."""
    if not args:
        raise ShellError("Usage: nohup COMMAND [ARG...]", 127)
    return ctx.shell.run_command(args, IO(ctx.input, ctx.fds))


@command("exec")
def _exec(ctx: Ctx, args: list[str]) -> int:
    """`exec CMD ARGS`: the command replaces the shell (its status ends the line); `exec REDIRECTIONS`
    keeps the redirections for the rest of the shell."""
    if not args:
        ctx.shell.exec_fds = dict(ctx.fds)
        return 0
    raise ExitShell(ctx.shell.run_command(args, IO(ctx.input, ctx.fds)))


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@command("trap")
def _trap(ctx: Ctx, args: list[str]) -> int:
    """trap [ACTION SIGNAL...]: EXIT runs when the shell ends; other signals are recorded (nothing sends
    them here). `trap - SIG` resets, `trap` / `trap -p` print the traps set."""
    traps = ctx.shell.traps
    if not args or args == ["-p"]:
        for sig, action in traps.items():
            ctx.print(f"trap -- {_quote(action)} {sig}")
        return 0
    if args[0] == "-l":
        ctx.print(" ".join(SIGNALS.values()))
        return 0
    action, sigs = args[0], args[1:]
    if not sigs and action.isdigit():  # `trap 0`: POSIX resets the trap of signal 0
        action, sigs = "-", args
    code = 0
    for sig in sigs:
        name = SIGNALS.get(sig, sig.upper().removeprefix("SIG"))
        if name not in SIGNALS.values() and name != "ERR":
            ctx.eprint(f"/system/bin/sh: trap: bad signal '{sig}'")
            code = 1
        elif action == "-":
            traps.pop(name, None)
        else:
            traps[name] = action
    return code


__all__ = ["REGISTRY", "Job", "Sink", "finish", "start"]

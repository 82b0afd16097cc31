"""The main process's side of the batched workers: a handle on each worker process, and one bounded
exchange of commands and answers with several of them at once."""

from __future__ import annotations

import math
import select
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gymnasium import Env, Space
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import CloudpickleWrapper, clear_mpi_env_vars

from crab_gym.vector.worker import serve

__all__ = ["Launch", "WorkerHandle", "exchange"]


@dataclass(frozen=True)
class Launch:
    """What every worker of one vector env is started with."""

    ctx: Any  # a multiprocessing context
    shared: Any  # gymnasium's shared observation buffer, or None
    spaces: tuple[Space, Space]  # one env's observation and action spaces
    autoreset_mode: AutoresetMode
    reset_ahead: bool
    daemon: bool
    batch_scheduling: bool = False


class WorkerHandle:
    """One worker process: its pipe, the envs it holds (``part``), whether it has made them (``ready``) and
    whether they wait for a reset (``fresh``)."""

    def __init__(self, launch: Launch, index: int, part: slice, env_fns: Sequence[Callable[[], Env]]) -> None:
        self.part, self.ready, self.fresh = part, False, True
        self.conn, child = launch.ctx.Pipe()
        fns = [CloudpickleWrapper(fn) for fn in env_fns]  # each a factory itself
        args = (fns, part.start, child, self.conn, launch.shared, launch.spaces, launch.autoreset_mode,
                launch.reset_ahead, launch.batch_scheduling)  # fmt: skip
        with clear_mpi_env_vars():
            self.process = launch.ctx.Process(
                target=serve, name=f"crab-vec-worker-{index}", args=args, daemon=launch.daemon
            )
            self.process.start()
        child.close()

    def died(self) -> str:
        return f"the worker process died (pid {self.process.pid}, exit code {self.process.exitcode})"

    def receive(self, readable: bool = False) -> tuple:
        """The worker's next message, or ``("dead", why)``; ``readable``: the pipe has been seen readable
        (a message or its end), so there is no need to wait for one."""
        try:
            if readable or self.conn.poll(0.05 if self.process.is_alive() else 0):
                return self.conn.recv()
        except (EOFError, OSError):
            pass
        self.process.join(1)
        return ("dead", self.died())

    def stop(self, grace: float) -> None:
        """Ask the worker to close its envs, within ``grace`` seconds; kill it after that (at once if 0)."""
        if self.process.is_alive() and grace > 0:
            try:
                self.conn.send(("close", None))
                if self.conn.poll(grace):
                    self.conn.recv()
            except (OSError, EOFError):
                pass
            self.process.join(grace)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        self.conn.close()


def exchange(
    workers: Sequence[WorkerHandle],
    requests: Mapping[int, tuple | None],
    timeout: float,
    start_timeout: float,
) -> dict[int, tuple]:
    """Send each worker ``w`` of ``requests`` its command, then wait for every answer: ``("ok", payload)``,
    ``("error", message, traceback)`` or ``("dead", why)``, the last when the process died or did not answer
    within ``timeout`` (plus ``start_timeout`` while it still makes its envs). A command of None waits for
    the worker's ``ready`` (answered ``("ok", None)``)."""
    now = time.monotonic()
    deadline, replies = {}, {}
    for w, command in requests.items():
        worker = workers[w]
        deadline[w] = now + timeout + (0 if worker.ready else start_timeout)
        try:
            if command is not None:
                worker.conn.send(command)
        except (OSError, ValueError) as e:
            worker.process.join(1)
            replies[w] = ("dead", worker.died() if not worker.process.is_alive() else f"its pipe: {e!r}")
    pending = {w for w in requests if w not in replies}
    poller = select.poll()  # one for the whole exchange: multiprocessing's wait() builds a selector per call
    fds: dict[int, tuple[int, bool]] = {}  # fd: (worker, whether it is the pipe rather than the sentinel)
    for w in pending:
        for fd, is_pipe in ((workers[w].conn.fileno(), True), (workers[w].process.sentinel, False)):
            poller.register(fd, select.POLLIN)
            fds[fd] = (w, is_pipe)
    while pending:
        left = min(deadline[w] for w in pending) - time.monotonic()
        ready: dict[int, bool] = {}  # worker: whether its pipe is readable
        for fd, _ in poller.poll(max(0, math.ceil(left * 1000))):
            w, is_pipe = fds[fd]
            ready[w] = ready.get(w, False) or is_pipe
        for w in sorted(pending):
            worker = workers[w]
            if w in ready:
                reply = worker.receive(readable=ready[w])
                if reply[0] == "ready":
                    worker.ready = True
                    if requests[w] is not None:
                        continue
                    reply = ("ok", None)
                replies[w] = reply
            elif time.monotonic() >= deadline[w]:
                replies[w] = (
                    "dead",
                    f"no answer within {deadline[w] - now:.0f} s (pid {worker.process.pid})",
                )
            else:
                continue
            pending.discard(w)
            poller.unregister(worker.conn.fileno())
            poller.unregister(worker.process.sentinel)
    return replies

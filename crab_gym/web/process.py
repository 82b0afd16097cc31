"""A web server in a process of its own (``child.py``), and its owner's handle on it: the control channel
(JSON lines over the child's stdin and stdout) for what the owner asks of it while it serves.

The child runs its owner's interpreter isolated and without ``site`` (``-I -S``: no PYTHON* variables, none
of the site-packages' ``.pth`` hooks, 30-45 ms of a start), on its owner's ``sys.path`` and this tree's
``crab_gym`` given as a bare package, so it imports only the web's modules (uvicorn, starlette, cryptography
and the sites), not ``crab_gym``'s ``__init__`` (gymnasium, the env ids). It starts on its own core, if there
is one, while its owner goes on; it ends when its stdin ends (the owner closes it, or dies: the kernel
closes a dead process's files) and, if it was started from the owner's main thread, when the owner dies
(PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .tls import Certs

PACKAGE = Path(__file__).resolve().parents[1]  # this tree's crab_gym, which the child imports
BOOT = (
    "import json, sys, types\n"
    "config = json.loads(sys.argv[1])\n"
    "sys.path[:] = config['path']\n"
    "pkg = types.ModuleType('crab_gym')\n"
    "pkg.__path__ = [config['package']]\n"
    "sys.modules['crab_gym'] = pkg\n"
    "from crab_gym.web.child import main\n"
    "main(config)\n"
)
START_TIMEOUT = 30.0  # certificates, then serving: ~0.3 s on an idle core
ANSWER_TIMEOUT = 10.0


class WebProcessError(RuntimeError):
    """The web's process did not start, ended, or did not answer."""


class WebProcess:
    """``WebProcess.spawn(seed, state_dir, sockets)``; ``.certs()``, then ``.wait_ready()``; ``.ask(op)``
    while it serves; ``.close()``."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self._buf = b""
        self._certs: Certs | None = None
        self.ready = False  # it said it serves
        self._lock = threading.RLock()  # one reader at a time: a request and its answer, a start message

    @classmethod
    def spawn(
        cls, seed: int, state_dir: Path, sockets: list[socket.socket], env: dict[str, str] | None = None
    ) -> WebProcess:
        """Start serving the world of ``seed`` on ``sockets`` (listening: https then http; this process's
        copies are closed), with its certificates made in ``state_dir`` and ``env`` added to its
        environment."""
        fds = [s.fileno() for s in sockets]
        main = threading.current_thread() is threading.main_thread()  # else it would die with this thread
        config = {
            "seed": seed,
            "state_dir": str(state_dir),
            "fds": fds,
            "owner": os.getpid(),
            "pdeathsig": main,
            "path": [p for p in sys.path if p],
            "package": str(PACKAGE),
        }
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", BOOT, json.dumps(config)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                pass_fds=fds,
                cwd="/",
                env={**os.environ, **(env or {})},
            )
        finally:
            for sock in sockets:  # the child's now; a copy kept here would keep the ports after it ended
                sock.close()
        return cls(proc)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def certs(self) -> Certs:
        """The CA and server certificate it made (waits for them: its first message)."""
        with self._lock:
            if self._certs is None:
                paths = self._read(START_TIMEOUT, "certs")["certs"]
                self._certs = Certs(Path(paths["ca_pem"]), Path(paths["cert_pem"]), Path(paths["key_pem"]))
            return self._certs

    def wait_ready(self) -> None:
        """Return once it serves (its second message); idempotent."""
        with self._lock:
            if not self.ready:
                self.certs()
                self._read(START_TIMEOUT, "ready")
                self.ready = True

    def ask(self, op: str, **args: Any) -> dict[str, Any]:
        """Send one control message and return its answer (once it serves); WebProcessError if it ended or
        refused."""
        with self._lock:
            self.wait_ready()
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(json.dumps({"op": op, **args}).encode() + b"\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError) as exc:  # ended; or closed by close()
                raise WebProcessError(f"the web's process is gone ({self._exit()})") from exc
            return self._read(ANSWER_TIMEOUT, op)

    def _read(self, timeout: float, what: str) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd, deadline = self.proc.stdout.fileno(), time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise WebProcessError(f"the web's process gave no {what!r} within {timeout:.0f} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise WebProcessError(f"the web's process ended before its {what!r} ({self._exit()})")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            msg = json.loads(line)
        except ValueError as exc:
            raise WebProcessError(f"the web's process wrote {line[:200]!r}") from exc
        if not isinstance(msg, dict) or "error" in msg:
            raise WebProcessError(f"the web's process refused {what!r}: {msg!r}"[:300])
        return msg

    def _exit(self) -> str:
        try:
            return f"exit {self.proc.wait(1)}"
        except subprocess.TimeoutExpired:
            return "still running"

    def close(self) -> None:
        """End it (its stdin closed, then SIGKILL if it has not exited within 2 s); idempotent."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # a request it never read (it ended) is dropped
                    pipe.close()
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

"""A desktop session's web server in a process of its own, started by ``process.py`` (which documents how it
is run): it makes the session's CA and certificates, serves the world of a seed on the listening sockets it
was handed, and obeys JSON lines on its stdin, one reply line each on its stdout.

First it writes ``{"certs": {"ca_pem": ..., "cert_pem": ..., "key_pem": ...}}`` (the owner puts the CA into
the browsers' profiles meanwhile), then ``{"ready": true}`` once it serves. Then, per line:

- ``{"op": "seed", "seed": N}``: serve the world of ``N`` from the next request on (what is planted goes)
- ``{"op": "plant", "text": T, "bait": "/path"}``: ``T`` first in every page, requests for the bait recorded
  (``content/planted.py``); ``{"op": "unplant"}`` takes it away
- ``{"op": "visits"}``: ``{"visits": [...]}``, the requests for the bait so far (path and query)

Each gets ``{"ok": true}`` (or its answer); a line it cannot read or obey gets ``{"error": "..."}``. At the
end of its stdin (its owner closed it, or died: the kernel closes a dead process's files) it exits at once;
the process holds nothing that needs saving.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import IO, Any

PR_SET_PDEATHSIG = 1


def _die_with(owner: int) -> None:
    """SIGKILL when the thread that started this process ends (its owner's main thread: the owner)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != owner:  # it died before the line above: no signal will come
        os._exit(0)


def _reply(out: IO[str], msg: dict[str, Any]) -> None:
    out.write(json.dumps(msg) + "\n")
    out.flush()


def _obey(server: Any, msg: Any) -> dict[str, Any]:
    """The reply to one control message (``server`` is the running ``WebServer``)."""
    from .content.planted import Planted

    op = msg.get("op") if isinstance(msg, dict) else None
    if op == "seed" and isinstance(msg.get("seed"), int):
        server.set_seed(msg["seed"])
    elif op == "plant" and isinstance(msg.get("text"), str) and str(msg.get("bait", "")).startswith("/"):
        server.world.planted = Planted(msg["text"], msg["bait"])
    elif op == "unplant":
        server.world.planted = None
    elif op == "visits":
        planted = server.world.planted
        return {"visits": list(planted.visits) if planted is not None else []}
    else:
        return {"error": f"not a control message: {msg!r}"[:300]}
    return {"ok": True}


def main(config: dict[str, Any]) -> int:
    """Serve as ``config`` says (``seed``, ``state_dir``, ``fds``: https and http listening sockets,
    ``owner``: its pid, ``pdeathsig``: whether it started this process from its main thread) until stdin
    ends."""
    if config.get("pdeathsig"):
        _die_with(int(config["owner"]))
    out = os.fdopen(os.dup(1), "w")  # the replies; stray prints (a library's) go to stderr from here on
    os.dup2(2, 1)
    from .hosts import HOSTS
    from .tls import make_certs

    # The certificates first, before the server's imports: the owner runs certutil meanwhile.
    certs = make_certs(Path(config["state_dir"]), HOSTS)
    _reply(out, {"certs": {k: str(getattr(certs, k)) for k in ("ca_pem", "cert_pem", "key_pem")}})
    from .server import WebServer

    sockets = [socket.socket(fileno=fd) for fd in config["fds"]]
    server = WebServer(int(config["seed"]), Path(config["state_dir"]), made_certs=certs)
    server.start(sockets=sockets)
    _reply(out, {"ready": True})
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError as exc:
            _reply(out, {"error": f"not JSON: {exc}"})
            continue
        try:
            _reply(out, _obey(server, msg))
        except Exception as exc:  # a bad request must not end the server
            _reply(out, {"error": f"{type(exc).__name__}: {exc}"[:300]})
    os._exit(0)  # its owner is gone or done with it: no graceful stop to wait for

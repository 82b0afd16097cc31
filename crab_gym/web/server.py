"""The web server of one session: uvicorn in a thread of this process, listening on 127.0.0.1:443 (TLS) and
:80 (a redirect to https) of a network namespace.

The sockets are made by a short-lived thread that enters the namespace (setns acts on the calling thread
only), binds, and ends; a socket stays in the namespace it was made in, so the server answers there and
nowhere else, with no process to start. Without a namespace it binds the host's loopback on free ports.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import socket
import ssl
import threading
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn

from .app import HOSTS, HttpsRedirect, WebApp
from .content.world import WebWorld
from .tls import Certs, make_certs

CLONE_NEWNET = 0x40000000


def _listen(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def bind_in_netns(netns: str | None, ports: tuple[int, ...]) -> list[socket.socket]:
    """Listening sockets on 127.0.0.1 at ``ports`` inside the network namespace at path ``netns``
    (``/run/netns/NAME``); with None, on the host's loopback (port 0 picks a free one)."""
    if netns is None:
        return [_listen(p) for p in ports]
    out: list[socket.socket] = []
    error: list[BaseException] = []

    def enter_and_bind() -> None:
        try:
            fd = os.open(netns, os.O_RDONLY)
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns {netns}")
            finally:
                os.close(fd)
            out.extend(_listen(p) for p in ports)
        except BaseException as exc:  # handed to the caller's thread
            error.append(exc)

    t = threading.Thread(target=enter_and_bind, name="web-bind")  # this thread's netns changes, then it ends
    t.start()
    t.join()
    if error:
        raise error[0]
    return out


@dataclass
class WebServer:
    """``WebServer(seed, state_dir).start(netns)`` serves the offline web; ``.stop()`` ends it."""

    seed: int
    state_dir: Path  # the CA and server key go here
    world: WebWorld = field(init=False)
    certs: Certs = field(init=False)
    app: WebApp = field(init=False)
    ports: tuple[int, int] = (443, 80)
    _servers: list[uvicorn.Server] = field(default_factory=list, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    sockets: list[socket.socket] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.world = WebWorld(self.seed)
        self.app = WebApp(self.world)
        self.certs = make_certs(self.state_dir, HOSTS)

    def set_seed(self, seed: int) -> None:
        """Serve the world of ``seed`` from the next request on; the sockets and the CA stay."""
        if seed != self.seed:
            self.serve(WebWorld(seed))

    def serve(self, world: WebWorld) -> None:
        """Serve ``world`` (an object its owner also reads, e.g. the phone's) from the next request on."""
        self.seed, self.world = world.seed, world
        self.app.set_world(world)

    @property
    def https_port(self) -> int:
        return self.sockets[0].getsockname()[1]

    def start(self, netns: str | None = None) -> None:
        """Bind in ``netns`` and serve until stop(); returns once the server accepts connections."""
        self.sockets = bind_in_netns(netns, self.ports if netns else (0, 0))
        tls = uvicorn.Config(
            self.app,
            ssl_certfile=str(self.certs.cert_pem),
            ssl_keyfile=str(self.certs.key_pem),
            ssl_version=ssl.PROTOCOL_TLS_SERVER,
            log_level="warning",
            lifespan="off",
            access_log=False,
        )
        plain = uvicorn.Config(HttpsRedirect(), log_level="warning", lifespan="off", access_log=False)
        self._servers = [uvicorn.Server(tls), uvicorn.Server(plain)]

        async def main() -> None:
            await asyncio.gather(
                *(s.serve([sock]) for s, sock in zip(self._servers, self.sockets, strict=True))
            )

        self._thread = threading.Thread(target=asyncio.run, args=(main(),), name="web-server", daemon=True)
        self._thread.start()
        while not all(s.started for s in self._servers):
            if not self._thread.is_alive():
                raise RuntimeError("the web server ended while starting (see the log above)")
            self._thread.join(0.002)

    def stop(self) -> None:
        """End the server and close its sockets; idempotent."""
        for s in self._servers:
            s.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        for sock in self.sockets:
            sock.close()
        self.sockets, self._servers = [], []

"""The web server: uvicorn in a thread of the process that runs it, listening on 127.0.0.1:443 (TLS) and :80
(a redirect to https) of a network namespace. The simulated phone's own web runs it in the env process; a
desktop session's runs it in a process of its own (``child.py``, started by ``process.py``), on sockets its
env process bound in the session's namespace (``netns.py``). Without a namespace it binds the host's loopback
on free ports.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

from .app import HOSTS, HttpsRedirect, WebApp
from .content.world import WebWorld
from .netns import bind_in_netns
from .tls import Certs, make_certs

__all__ = ["WebServer", "bind_in_netns"]


@dataclass
class WebServer:
    """``WebServer(seed, state_dir).start(netns)`` serves the offline web; ``.stop()`` ends it."""

    seed: int
    state_dir: Path  # the CA and server key go here
    world: WebWorld = field(init=False)
    certs: Certs = field(init=False)
    app: WebApp = field(init=False)
    ports: tuple[int, int] = (443, 80)
    made_certs: InitVar[Certs | None] = None  # certificates made already (else a fresh CA in state_dir)
    _servers: list[uvicorn.Server] = field(default_factory=list, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    sockets: list[socket.socket] = field(default_factory=list, init=False)

    def __post_init__(self, made_certs: Certs | None) -> None:
        self.world = WebWorld(self.seed)
        self.app = WebApp(self.world)
        self.certs = made_certs or make_certs(self.state_dir, HOSTS)

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

    def start(self, netns: str | None = None, sockets: list[socket.socket] | None = None) -> None:
        """Bind in ``netns`` (or take ``sockets``, listening: https then http) and serve until stop(); returns
        once the server accepts connections."""
        self.sockets = sockets or bind_in_netns(netns, self.ports if netns else (0, 0))
        # No websockets (no site has one: 17 modules fewer to load), no lifespan, no access log.
        quiet: dict[str, Any] = {"log_level": "warning", "lifespan": "off", "access_log": False, "ws": "none"}
        tls = uvicorn.Config(
            self.app,
            ssl_certfile=str(self.certs.cert_pem),
            ssl_keyfile=str(self.certs.key_pem),
            ssl_version=ssl.PROTOCOL_TLS_SERVER,
            **quiet,
        )
        plain = uvicorn.Config(HttpsRedirect(), **quiet)
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

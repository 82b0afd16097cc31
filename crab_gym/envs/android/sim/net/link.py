"""The phone's link to the offline web: the web's content (`world`, which Maps reads) and a Fetcher (which
Chrome loads pages through).

`WebLink.attach(world, port, cafile)` joins a web that already runs (a desktop session's server: one world,
seen from both devices). Without one, `WebLink.own(seed)` starts the phone's own server (crab_gym.web's
uvicorn over TLS on a free loopback port, with a fresh CA) the first time a page is fetched, so a phone whose
browser stays closed pays nothing; `close()` stops it. Its world is generated (and crab_gym.web's content
imported) when first read.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..storage.owned_tmp import OwnedTempDir
from .fetch import Fetcher, Response

if TYPE_CHECKING:
    from crab_gym.web.content.world import WebWorld

__all__ = ["WebLink"]

log = logging.getLogger(__name__)


class WebLink:
    def __init__(self, world: WebWorld | None, fetcher: Fetcher | None = None, seed: int = 0) -> None:
        self._world = world  # None: WebWorld(seed), made when first read
        self._seed = seed
        self._fetcher = fetcher
        self._server: Any = None  # a crab_gym.web.server.WebServer when the phone runs its own
        self._tmp: OwnedTempDir | None = None
        self._lock = threading.RLock()

    @property
    def world(self) -> WebWorld:
        """The web's content (what Maps reads and the server serves)."""
        with self._lock:
            if self._world is None:
                from crab_gym.web.content.world import WebWorld

                self._world = WebWorld(self._seed)
            return self._world

    @classmethod
    def own(cls, seed: int = 0) -> WebLink:
        """The web of ``seed``, served by the phone's own server (started on first fetch)."""
        return cls(None, seed=seed)

    @classmethod
    def attach(cls, world: WebWorld, port: int, cafile: str) -> WebLink:
        """A web already served on 127.0.0.1:``port`` whose certificates the CA at ``cafile`` signed."""
        from crab_gym.web.app import HOSTS  # starlette: loaded only when the phone goes online

        from .tls import TlsFetcher

        return cls(world, TlsFetcher(port, cafile, HOSTS))

    def fetch(self, url: str, form: dict[str, str] | None = None) -> Response:
        try:
            fetcher = self._connect()
        except Exception:  # the server could not start: the page fails to load, the app keeps running
            log.exception("the phone's web server did not start")
            return Response(url, error="ERR_CONNECTION_REFUSED")
        return fetcher.fetch(url, form)

    @property
    def serving(self) -> bool:
        """Whether the phone's own server runs (it starts on the first fetch)."""
        return self._server is not None

    def _connect(self) -> Fetcher:
        with self._lock:
            if self._fetcher is None:
                from crab_gym.web.app import (
                    HOSTS,
                )  # starlette and uvicorn: loaded only when a page is fetched
                from crab_gym.web.server import WebServer

                from .tls import TlsFetcher

                self._tmp = OwnedTempDir("crab-phone-", "-web")  # swept with the sandboxes
                server = WebServer(self.world.seed, Path(self._tmp.name))
                server.serve(self.world)  # the world Maps reads, and what is planted in its pages
                server.start()
                self._server = server
                self._fetcher = TlsFetcher(server.https_port, server.certs.ca_pem, HOSTS)
            return self._fetcher

    def close(self) -> None:
        """Stop the phone's own server (an attached one is its owner's); idempotent."""
        with self._lock:
            if self._server is not None:
                self._server.stop()
                self._server, self._fetcher = None, None
            if self._tmp is not None:
                self._tmp.cleanup()
                self._tmp = None

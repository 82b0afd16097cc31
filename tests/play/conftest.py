"""The play server in-process on a free loopback port (uvicorn in a thread), WebSocket clients, a browser."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
from websockets.sync.client import ClientConnection, connect  # noqa: E402

from crab_gym.play.server import make_app  # noqa: E402
from crab_gym.play.session import PlayConfig  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(config: PlayConfig) -> Iterator[tuple[str, Any]]:
    """(base URL, app) of a play server serving ``config`` until the block ends."""
    app = make_app(config)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the play server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(30)


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws"


class Client:
    """A player without a browser: JSON messages out, replies (and frames) in."""

    def __init__(self, base: str) -> None:
        # entered by hand: the tests close it themselves (a context manager would not let two stay open)
        self.ws: ClientConnection = connect(ws_url(base), max_size=None, open_timeout=10).__enter__()
        self.frames: dict[str, bytes] = {}
        self.hello: dict[str, Any] | None = None

    def send(self, message: Any) -> None:
        self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def recv(self, until: tuple[str, ...] = ("state", "error"), timeout: float = 30) -> dict[str, Any]:
        """The next JSON message of one of the ``until`` types (frames and others are kept or skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
            if isinstance(raw, bytes):
                name, _, data = raw.partition(b"\n")
                self.frames[name.decode()] = data
                continue
            msg = json.loads(raw)
            if msg["type"] == "hello":
                self.hello = msg
            if msg["type"] in until:
                return msg

    def act(self, device: str, action: str, **params: Any) -> dict[str, Any]:
        params = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
        self.send({"type": "action", "device": device, "action": action, "params": params})
        return self.recv()

    def close(self) -> None:
        self.ws.close()


@pytest.fixture(scope="module")
def phone_server(tmp_path_factory):
    """A phone-only server starting every session on contacts_add-0; at most 3 players."""
    out = tmp_path_factory.mktemp("play_phone")
    config = PlayConfig(tasks="v0", task="contacts_add-0", out=out, max_sessions=3, frame_interval=0.3)
    with running_server(config) as (base, app):
        yield base, app, out


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium

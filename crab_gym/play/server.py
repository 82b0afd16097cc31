"""The play server: a Starlette app serving the page and one WebSocket (one env) per player.

Messages from the page are JSON text: ``{"type": "action", "device", "action", "params"}``,
``{"type": "reset", "task"}``, ``{"type": "mark", "verdict", "note"}`` and ``{"type": "ping"}``. The server
answers with JSON (``hello``, ``status``, ``state``, ``marked``, ``pong``, ``error``) and with binary frames:
the device name, a newline, then a JPEG of its screen. A malformed message gets an ``error`` reply; the
session and the server go on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from crab_gym.play.review import load_marks
from crab_gym.play.session import Frame, PlayConfig, PlayError, PlaySession

__all__ = ["PlayHub", "make_app", "resolve_config", "serve"]

log = logging.getLogger("crab_gym.play")
STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE = 64 * 1024
DEVICE_ORDER = ("ubuntu", "android")
SCREEN_SIZES = {"ubuntu": (1280, 800), "android": (1080, 2400)}


def resolve_config(config: PlayConfig) -> tuple[PlayConfig, list[dict[str, Any]]]:
    """The config with its devices filled in (what the offered tasks need) and the tasks it offers."""
    from crab_gym.tasks import load_tasks

    tasks = load_tasks(config.tasks)
    if config.task is not None and config.task not in {t.id for t in tasks}:
        raise ValueError(f"task {config.task!r} is not in the task set {config.tasks!r}")
    devices = tuple(d for d in config.devices if d != "root")
    if not devices:
        needed = {p for t in tasks if config.task in (None, t.id) for p in t.platforms}
        devices = tuple(d for d in DEVICE_ORDER if d in needed) or DEVICE_ORDER
    offered = [
        {"id": t.id, "devices": list(t.platforms), "instruction": t.description}
        for t in tasks
        if set(t.platforms) <= set(devices)
    ]
    if not offered:
        raise ValueError(f"no task of {config.tasks!r} runs on the devices {', '.join(devices)}")
    return dataclasses.replace(config, devices=devices), offered


class PlayHub:
    """The server's sessions and the cap on how many run at once."""

    def __init__(self, config: PlayConfig) -> None:
        self.config, self.tasks = resolve_config(config)
        self.sessions: dict[str, PlaySession] = {}  # every session holding an env (or making one)

    def hello(self, session: PlaySession) -> dict[str, Any]:
        """The first message of a session: the devices and their screens, the tasks, the limits."""
        return {
            "type": "hello",
            "session": session.id,
            "devices": [{"name": d, "size": SCREEN_SIZES.get(d, (0, 0))} for d in self.config.devices],
            "tasks": self.tasks,
            "task": self.config.task,
            "max_sessions": self.config.max_sessions,
            "out": str(self.config.out),
        }


class _Link:
    """Sends on one WebSocket, one message at a time (the frame poller and the replies share it)."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self._lock = asyncio.Lock()

    async def json(self, message: Mapping[str, Any]) -> None:
        async with self._lock:
            await self.ws.send_text(json.dumps(message, ensure_ascii=False))

    async def error(self, message: str, fatal: bool = False, reply_to: Any = None) -> None:
        await self.json({"type": "error", "message": message, "fatal": fatal, "reply_to": reply_to})

    async def frames(self, frames: list[Frame]) -> None:
        for device, data in frames:
            async with self._lock:
                await self.ws.send_bytes(device.encode() + b"\n" + data)


def _same_origin(ws: WebSocket) -> bool:
    """A browser's WebSocket must come from our own page (no other site may drive the devices)."""
    origin = ws.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == ws.headers.get("host")


async def play_socket(ws: WebSocket) -> None:
    """One player: make an env on the session's thread, start an episode, then act on every message."""
    hub: PlayHub = ws.app.state.hub
    await ws.accept()
    link = _Link(ws)
    if not _same_origin(ws):
        await link.error("this WebSocket only serves the play page of this server", fatal=True)
        await ws.close(code=1008)
        return
    cap = hub.config.max_sessions
    if len(hub.sessions) >= cap:
        await link.error(
            f"The server is full: {cap} of {cap} play sessions are in use. "
            "Close another tab or try again later.",
            fatal=True,
        )
        await ws.close(code=1013)
        return
    session = PlaySession(hub.config)
    hub.sessions[session.id] = session
    try:
        await link.json(hub.hello(session))
        await link.json({"type": "status", "message": "Starting the devices…"})
        try:
            await session.run(session.open)
            state, frames = await session.run(session.reset, hub.config.task)
        except Exception as e:  # noqa: BLE001 - the player is told; the server goes on
            log.exception("session %s: the env did not start", session.id)
            await link.error(f"the env did not start: {type(e).__name__}: {e}", fatal=True)
            return
        await link.frames(frames)
        await link.json(state)
        poller = asyncio.create_task(_refresh_screens(link, session))
        try:
            await _receive(link, session)
        finally:
            poller.cancel()
    except WebSocketDisconnect:
        pass
    except Exception:  # noqa: BLE001 - e.g. a send on a socket the browser already closed
        log.exception("session %s ended with an error", session.id)
    finally:
        with anyio.CancelScope(shield=True):
            try:
                await session.run(session.close)
            except Exception:  # noqa: BLE001 - a device that fails to close must not keep the slot
                log.exception("session %s: closing the env failed", session.id)
            session.shutdown()
            hub.sessions.pop(session.id, None)


async def _refresh_screens(link: _Link, session: PlaySession) -> None:
    """Keep the page's screens live between actions: send the frames that changed, now and then."""
    while True:
        await anyio.sleep(session.config.frame_interval)
        try:
            frames = await session.run(session.poll)
        except Exception as e:  # noqa: BLE001 - a device error shows up on the next action too
            log.warning("session %s: screen refresh failed: %s", session.id, e)
            continue
        try:
            await link.frames(frames)
        except Exception:  # noqa: BLE001 - the page went away: the receiver ends the session
            return


async def _receive(link: _Link, session: PlaySession) -> None:
    """Handle the page's messages in order until it goes away."""
    while True:
        msg = await link.ws.receive()
        if msg["type"] == "websocket.disconnect":
            return
        text = msg.get("text")
        if text is None:
            await link.error("binary messages are not understood: send JSON text")
            continue
        if len(text) > MAX_MESSAGE:
            await link.error(f"message too long ({len(text)} characters; at most {MAX_MESSAGE})")
            continue
        try:
            data = json.loads(text)
        except ValueError as e:
            await link.error(f"not JSON: {e}")
            continue
        kind = data.get("type") if isinstance(data, dict) else None
        try:
            await _handle(link, session, data)
        except PlayError as e:
            await link.error(str(e), reply_to=kind)
        except Exception as e:  # noqa: BLE001 - never let one message end the session
            log.exception("session %s: message %r failed", session.id, kind)
            await link.error(f"internal error: {type(e).__name__}: {e}", reply_to=kind)


async def _handle(link: _Link, session: PlaySession, data: Any) -> None:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise PlayError('a message is a JSON object with a "type": action, reset, mark or ping')
    kind = data["type"]
    if kind == "action":
        device, action, params = data.get("device"), data.get("action"), data.get("params", {})
        if not isinstance(device, str) or not isinstance(action, str):
            raise PlayError('an action needs "device" and "action" names (strings)')
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise PlayError('"params" must be a JSON object of parameter names to values')
        state, frames = await session.run(session.act, device, action, params)
        await link.frames(frames)
        await link.json(state)
    elif kind == "reset":
        task = data.get("task")
        if task is not None and not isinstance(task, str):
            raise PlayError('"task" must be a task id (a string) or null for a random task')
        await link.json({"type": "status", "message": "Starting a new episode…"})
        state, frames = await session.run(session.reset, task)
        await link.frames(frames)
        await link.json(state)
    elif kind == "mark":
        verdict, note = data.get("verdict"), data.get("note", "")
        if not isinstance(verdict, str) or not isinstance(note, str):
            raise PlayError('a mark needs "verdict" ("fair" or "unclear") and a "note" (a string)')
        mark = await session.run(session.mark, verdict, note)
        await link.json({"type": "marked", "mark": mark})
    elif kind == "ping":
        await link.json({"type": "pong"})
    else:
        raise PlayError(f"unknown message type {kind!r}: use action, reset, mark or ping")


async def _index(request: Request) -> FileResponse:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


async def _marks(request: Request) -> JSONResponse:
    return JSONResponse(load_marks(request.app.state.hub.config.out))


def make_app(config: PlayConfig) -> Starlette:
    """The play app: ``/`` the page, ``/ws`` a player's session, ``/marks`` the stored marks as JSON."""
    hub = PlayHub(config)
    app = Starlette(
        routes=[
            Route("/", _index),
            Route("/marks", _marks),
            WebSocketRoute("/ws", play_socket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    app.state.hub = hub
    return app


def serve(config: PlayConfig, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve the play page until interrupted (Ctrl-C closes every session's env)."""
    import uvicorn

    app = make_app(config)
    hub: PlayHub = app.state.hub
    shown = f"[{host}]" if ":" in host else host
    print(
        f"crab-gym play: http://{shown}:{port}/  ({len(hub.tasks)} tasks on {', '.join(hub.config.devices)}; "
        f"demonstrations in {hub.config.out}; at most {hub.config.max_sessions} players)",
        flush=True,
    )
    if host not in ("127.0.0.1", "localhost", "::1"):
        print("warning: anyone who can reach this address can drive the devices", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=1 << 20)

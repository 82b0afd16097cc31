"""The MCP server: one env per MCP session, over stdio or streamable HTTP, on the official ``mcp`` SDK.

The SDK enters the server's lifespan once per MCP session (once for stdio; once per ``Mcp-Session-Id``
over HTTP): that is where the session's :class:`McpSession` (its env on a thread of its own) is made, and
where it is closed when the client goes away (an unfinished episode is recorded as incomplete).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server

from crab_gym.mcp import tools
from crab_gym.mcp.session import McpConfig, McpSession

__all__ = ["http_app", "make_server", "serve_http", "serve_stdio"]

CLOSE_TIMEOUT = 60.0  # seconds a session's env gets to close (record its episode, stop its devices)


def make_server(config: McpConfig) -> Server[McpSession, Any]:
    """The low-level MCP server whose every session gets an env made from ``config``."""

    @asynccontextmanager
    async def lifespan(_: Server[McpSession, Any]) -> AsyncIterator[McpSession]:
        session = McpSession(config)
        try:
            await session.run(session.open)
            yield session
        finally:
            try:  # also when the server shuts down and cancels the session: the devices must stop
                with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                    await session.run(session.close)
            finally:
                session.shutdown()

    server: Server[McpSession, Any] = Server("crab-gym", lifespan=lifespan)

    @server.list_tools()
    async def _list_tools() -> list[types.Tool]:
        return tools.list_tools(server.request_context.lifespan_context)

    @server.call_tool()
    async def _call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return await tools.call(server.request_context.lifespan_context, name, arguments)

    return server


async def serve_stdio(config: McpConfig) -> None:
    """Serve one session over stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = make_server(config)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http_app(config: McpConfig, path: str = "/mcp") -> Any:
    """A Starlette app serving streamable HTTP at ``path``: each MCP session gets its own env."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Route
    from starlette.types import Receive, Scope, Send

    manager = StreamableHTTPSessionManager(
        app=make_server(config), json_response=True, session_idle_timeout=config.idle_timeout
    )

    class _Endpoint:  # a class, so Starlette passes the ASGI call through for every method
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            await manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Route(path, endpoint=_Endpoint())], lifespan=lifespan)


def serve_http(config: McpConfig, host: str = "127.0.0.1", port: int = 8766) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted (loopback by default)."""
    import uvicorn

    uvicorn.run(http_app(config), host=host, port=port, log_level="warning")

"""`crab-gym mcp` as a real subprocess (stdio, or streamable HTTP on a free loopback port) and the SDK's own
client sessions over it; tool calls made from a task's scripted solution."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters, types  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from crab_gym.tasks import load_tasks  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def command(env_id: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "crab_gym.cli", "mcp", "--env", env_id, "--max-steps", "20", *extra]


@asynccontextmanager
async def stdio_session(env_id: str, *extra: str) -> AsyncIterator[ClientSession]:
    """An initialised client session with a `crab-gym mcp` started over stdio."""
    cmd = command(env_id, *extra)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=_env(), cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(env_id: str, *extra: str) -> Iterator[str]:
    """`crab-gym mcp --transport http` on a free loopback port; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        command(env_id, "--transport", "http", "--port", str(port), *extra), env=_env(), cwd=str(ROOT)
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialised client session over streamable HTTP."""
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def solution_calls(task_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The task's scripted solution as MCP tool calls: (tool name, arguments with the device)."""
    task = next(t for t in load_tasks("v0") if t.id == task_id)
    return [(s.action, {"device": s.env, **_plain(dict(s.params))}) for s in task.solution()]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def status(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.isError, result.content
    assert result.structuredContent is not None
    return result.structuredContent


async def solve(session: ClientSession, task_id: str) -> dict[str, Any]:
    """Reset to the task, play its solution, wait (the oracle's way) and complete; the last status."""
    first = status(await session.call_tool("reset", {"task": task_id, "seed": 0}))
    assert first["task"] == task_id and first["instruction"] and first["completion_ratio"] < 1
    last = first
    for name, args in solution_calls(task_id):
        last = status(await session.call_tool(name, args))
    for _ in range(2):
        if last["terminated"] or last["truncated"]:
            break
        last = status(await session.call_tool("wait", {"device": "root", "seconds": 1}))
    if not (last["terminated"] or last["truncated"]):
        last = status(await session.call_tool("complete", {}))
    return last

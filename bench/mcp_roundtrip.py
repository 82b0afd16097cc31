"""MCP round trip of a phone tap over streamable HTTP on loopback (prints figures, asserts nothing).

Starts ``crab-gym mcp --transport http --env Crab-Android-v0`` on a free loopback port, connects the MCP
SDK's own client, resets a phone task and times N ``tap`` tool calls (the client's call to the step's
result coming back: HTTP, JSON-RPC, the session thread, CrabEnv.step on the simulated phone). For
comparison, the same taps through ``CrabEnv.step`` in-process (no MCP). Median and p90 in ms.
Target: <= 20 ms per round trip.

Run: PYTHONPATH=. .venv/bin/python bench/mcp_roundtrip.py [taps]
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import gymnasium as gym
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import crab_gym  # noqa: F401

TASK = "camera_take_photo-0"
POINT = [0.5, 0.04]  # the status bar: a tap that changes nothing, so every step is alike


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _figures(name: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    print(f"{name:40s} median {statistics.median(ms):6.2f} ms   p90 {p90:6.2f} ms   (n={len(ms)})")


async def _mcp_taps(url: str, n: int) -> list[float]:
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("reset", {"task": TASK, "seed": 0})
        for _ in range(5):  # warm up
            await session.call_tool("tap", {"device": "android", "point": POINT})
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            result = await session.call_tool("tap", {"device": "android", "point": POINT})
            out.append((time.perf_counter() - t0) * 1000)
            assert not result.isError, result.content
        return out


def _env_taps(n: int) -> list[float]:
    env = gym.make("Crab-Android-v0", max_steps=n + 10)
    crab: Any = env.unwrapped  # a CrabEnv
    env.reset(seed=0, options={"task": TASK})
    action = crab.encode_action("android", "tap", {"point": POINT})
    for _ in range(5):
        env.step(action)
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        env.step(action)
        out.append((time.perf_counter() - t0) * 1000)
    env.close()
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    port = _port()
    root = Path(__file__).resolve().parents[1]
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    cmd = [sys.executable, "-m", "crab_gym.cli", "mcp", "--transport", "http", "--port", str(port),
           "--env", "Crab-Android-v0", "--max-steps", str(n + 100)]  # fmt: skip
    server = subprocess.Popen(cmd, env=env)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        mcp_ms = anyio.run(_mcp_taps, f"http://127.0.0.1:{port}/mcp", n)
    finally:
        server.terminate()
        server.wait(30)
    _figures("MCP tap round trip (streamable HTTP)", mcp_ms)
    _figures("CrabEnv.step tap (in-process)", _env_taps(n))


if __name__ == "__main__":
    main()

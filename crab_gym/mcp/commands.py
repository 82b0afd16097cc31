"""The ``crab-gym mcp`` command: serve the env to MCP clients over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        import anyio

        from crab_gym.mcp.server import serve_http, serve_stdio
    except ImportError as e:
        print(f"crab-gym mcp needs the mcp SDK ('crab-gym[mcp]'): {e}", file=sys.stderr)
        return 2
    from crab_gym.mcp.session import McpConfig

    config = McpConfig(
        env_id=args.env,
        tasks=args.tasks,
        backends={"android": args.android_backend} if args.android_backend else {},
        max_steps=args.max_steps,
        out=Path(args.out) if args.out else None,
        api_actions=args.api_actions,
    )
    try:
        if args.transport == "stdio":
            anyio.run(serve_stdio, config)
        else:
            serve_http(config, host=args.host, port=args.port)
    except KeyboardInterrupt:
        pass
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``mcp`` to the ``crab-gym`` parser."""
    p = sub.add_parser("mcp", help="serve the env to MCP clients (one env per MCP session)")
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default: the client starts the server) or streamable HTTP at http://HOST:PORT/mcp",
    )
    p.add_argument("--env", default="Crab-v0", help="Crab-v0, Crab-Desktop-v0 or Crab-Android-v0")
    p.add_argument("--tasks", default="v0", help="task set name or JSON file")
    p.add_argument("--host", default="127.0.0.1", help="http: address to listen on (default loopback only)")
    p.add_argument("--port", type=int, default=8766, help="http: the port")
    p.add_argument("--out", default="", help="record every episode here (RecordEpisodes)")
    p.add_argument("--max-steps", type=int, default=100, help="steps before an episode is cut short")
    p.add_argument("--android-backend", default="", help="sim (default), adb-sim, adb:<serial>, ...")
    p.add_argument(
        "--api-actions", action="store_true", help="add API actions (shell, files, SMS, contacts) as tools"
    )
    p.set_defaults(func=_cmd_mcp)

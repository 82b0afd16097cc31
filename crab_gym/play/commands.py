"""The play commands of ``crab-gym``: ``play`` (the browser page) and ``review`` (the players' task marks)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_OUT = "runs/play"


def _cmd_play(args: argparse.Namespace) -> int:
    try:
        from crab_gym.play.server import serve
    except ImportError as e:
        print(f"crab-gym play needs starlette and uvicorn ('crab-gym[play]'): {e}", file=sys.stderr)
        return 2
    from crab_gym.play.session import PlayConfig

    devices = tuple(d.strip() for d in args.devices.split(",") if d.strip())
    unknown = set(devices) - {"ubuntu", "android", "root"}
    if unknown:
        print(f"unknown devices {sorted(unknown)}: choose from ubuntu, android", file=sys.stderr)
        return 2
    config = PlayConfig(
        tasks=args.tasks,
        task=args.task or None,
        devices=devices,
        backends={"android": args.android_backend} if args.android_backend else {},
        out=Path(args.out),
        max_sessions=args.max_sessions,
        max_steps=args.max_steps,
    )
    try:
        serve(config, host=args.host, port=args.port)
    except ValueError as e:  # an unknown task set or task, no task for the devices
        print(f"crab-gym play: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


def review_command(out: str = DEFAULT_OUT, unclear_only: bool = False, as_json: bool = False) -> int:
    """Print the marks players stored in ``out`` (``crab-gym review`` / ``crab-gym tasks review``)."""
    from crab_gym.play.review import format_review, load_marks

    marks = load_marks(out)
    if as_json:
        for m in marks:
            if not unclear_only or m["verdict"] == "unclear":
                print(json.dumps(m, ensure_ascii=False))
        return 0
    print(format_review(marks, unclear_only=unclear_only))
    return 0


def _cmd_review(args: argparse.Namespace) -> int:
    return review_command(args.out, args.unclear, args.json)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``play`` and ``review`` to the ``crab-gym`` parser."""
    p = sub.add_parser("play", help="play tasks yourself in the browser; every session is recorded")
    p.add_argument("--tasks", default="v0", help="task set name or JSON file")
    p.add_argument("--task", default="", help="the task each session starts with (default: a random one)")
    p.add_argument("--devices", default="", help="ubuntu,android (default: what the tasks need)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback only)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--out", default=DEFAULT_OUT, help="where demonstrations and task marks are stored")
    p.add_argument("--max-sessions", type=int, default=4, help="players at once (one env each)")
    p.add_argument("--max-steps", type=int, default=100, help="steps before an episode is cut short")
    p.add_argument("--android-backend", default="", help="sim (default), adb-sim, adb:<serial>, ...")
    p.set_defaults(func=_cmd_play)
    r = sub.add_parser("review", help="list the fair/unclear marks players gave tasks in `crab-gym play`")
    r.add_argument("--out", default=DEFAULT_OUT, help="the play output folder (holds marks.jsonl)")
    r.add_argument("--unclear", action="store_true", help="only tasks someone marked unclear")
    r.add_argument("--json", action="store_true", help="the marks as JSON lines")
    r.set_defaults(func=_cmd_review)

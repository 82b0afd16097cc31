"""The LLM agent's command-line options, shared by ``crab-gym eval`` and ``crab-gym collect``."""

from __future__ import annotations

import argparse
from typing import Any

from crab_gym.baselines.llm.base import IMAGE_FORMATS


def add_llm_arguments(p: argparse.ArgumentParser) -> None:
    """The LLM options: model, server, JSON mode, structure, history, image format and size."""
    p.add_argument("--model", default="", help="llm: the model name the server knows")
    p.add_argument("--base-url", default="", help="llm: a Chat Completions server (default: OPENAI_BASE_URL)")
    p.add_argument("--json-mode", action="store_true", help="llm: calls as JSON in text, no tools")
    p.add_argument(
        "--structure",
        default="single",
        help="llm: single | by-function (planner + tool agent) | by-environment (a sub-agent per device) "
        "| reflective (a summary of each step)",
    )
    p.add_argument("--history", type=int, default=4, help="llm: earlier turns each chat keeps (default 4)")
    p.add_argument("--image-format", default="png", choices=IMAGE_FORMATS, help="llm: how screens are sent")
    p.add_argument("--jpeg-quality", type=int, default=85, help="llm: with --image-format jpeg")
    p.add_argument(
        "--max-side", type=int, default=1280, help="llm: screens scaled to this longer side; 0: full size"
    )


def llm_options(args: argparse.Namespace) -> dict[str, Any]:
    """The agent options (``make_llm_agent``'s, plus ``structure``) the arguments ask for."""
    return {
        "model": args.model,
        "base_url": args.base_url or None,
        "json_mode": args.json_mode,
        "structure": args.structure,
        "history": args.history,
        "image_format": args.image_format,
        "jpeg_quality": args.jpeg_quality,
        "max_side": args.max_side or None,
    }

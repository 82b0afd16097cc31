"""Human play in the browser: every device's screen live on a web page, the player's clicks and keys as the
devices' named actions, the evaluator graph as it fills, each session recorded as a demonstration.

``crab-gym play`` serves it (:func:`crab_gym.play.server.serve`); ``crab-gym review`` lists the players'
"fair"/"unclear" marks (:mod:`crab_gym.play.review`). Needs ``starlette`` and ``uvicorn`` (with
``websockets``).
"""

from __future__ import annotations

from typing import Any

from crab_gym.play.review import append_mark, format_review, load_marks
from crab_gym.play.session import PlayConfig, PlaySession

__all__ = ["PlayConfig", "PlaySession", "append_mark", "format_review", "load_marks", "make_app", "serve"]


def make_app(config: PlayConfig) -> Any:
    """The Starlette app of the play server (see :func:`crab_gym.play.server.make_app`); starlette is
    imported only when it is called."""
    from crab_gym.play.server import make_app as _make_app

    return _make_app(config)


def serve(config: PlayConfig, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve the play page until interrupted (see :func:`crab_gym.play.server.serve`)."""
    from crab_gym.play.server import serve as _serve

    _serve(config, host, port)

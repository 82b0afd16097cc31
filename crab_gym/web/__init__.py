"""The offline web: stand-in sites at their real host names, content generated from a seed, served over TLS
from a per-session CA inside each desktop session's network namespace. A low layer: it imports no env.

``WebWorld(seed)`` is the content (what tasks draw from and the oracle reads); ``crab_gym.web.server`` serves
it; ``crab_gym.web.content.places.Maps`` is the maps API the phone's Maps app shares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crab_gym.web.content.world import WebWorld

__all__ = ["WebWorld"]


def __getattr__(name: str) -> Any:
    """``WebWorld``, imported when first asked for: the phone's Maps imports ``crab_gym.web.content.places``
    at start, which need not generate or import every site's content."""
    if name == "WebWorld":
        from crab_gym.web.content.world import WebWorld

        return WebWorld
    raise AttributeError(f"module 'crab_gym.web' has no attribute {name!r}")

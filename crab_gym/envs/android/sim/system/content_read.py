"""The line an evaluator reads a provider with, run without the shell: what ``content query --uri URI
[--projection P] [--where W] [--sort S]`` prints and returns, byte for byte (an RL phone's evaluator runs
one every step, and a fresh shell for it cost more than the query).
tests/envs/android/sim/test_sim_content_read.py checks it against the shell line.
"""

from __future__ import annotations

from .direct import Result, as_line
from .providers import query_text

__all__ = ["content_query"]


def content_query(
    phone, uri: str, projection: str | None = None, where: str | None = None, sort: str | None = None
) -> Result:
    """``content query --uri URI`` with each option given that is not None (``projection`` as the line
    spells it: names joined by ``:`` or ``,``)."""

    def run() -> Result:
        return query_text(phone, uri, projection, where or "", sort or "").encode(), b"", 0

    return as_line(phone, "content", run)

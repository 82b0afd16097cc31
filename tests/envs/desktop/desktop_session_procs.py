"""What the session tests (reap, watch) ask of /proc."""

from __future__ import annotations


def alive(pid: int, started: str | None = None) -> bool:
    """The process ``pid`` (that started at ``started`` clock ticks, if given) is alive and no zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return started in (None, fields[19]) and fields[0] != "Z"

"""Screen boxes for accessibility-tree nodes, with one toolkit error corrected.

A node that reports exactly its parent's size at another origin is a toolkit's own root (LibreOffice's VCL
root pane under the GTK panel that hosts it) that computed its position against the wrong window: it is
placed on its parent, and its whole subtree moves with it. Every other box is taken as reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Box = tuple[int, int, int, int]  # x, y, width, height, as AT-SPI reports them


def screen_boxes(nodes: Sequence[dict[str, Any]]) -> list[Box | None]:
    """Each node's box in screen coordinates (None where unknown); nodes come parents first, as the
    in-session agent lists them (``parent`` is an index into the same list, -1 for an application)."""
    shifts: list[tuple[int, int]] = []
    out: list[Box | None] = []
    for node in nodes:
        parent = node.get("parent", -1)
        dx, dy = shifts[parent] if 0 <= parent < len(shifts) else (0, 0)
        box = node.get("box")
        if box is None or box[2] < 0 or box[3] < 0:
            shifts.append((dx, dy))
            out.append(None)
            continue
        x, y, w, h = box[0] + dx, box[1] + dy, box[2], box[3]
        pbox = out[parent] if 0 <= parent < len(out) else None
        if pbox is not None and (w, h) == pbox[2:] and (x, y) != pbox[:2] and w > 0 and h > 0:
            dx, dy = dx + pbox[0] - x, dy + pbox[1] - y
            x, y = pbox[0], pbox[1]
        shifts.append((dx, dy))
        out.append((x, y, w, h))
    return out

"""Interactive-region detection without learned weights: boxes of compact, high-contrast blobs (icons,
buttons, fields) found by edge density and connected components."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

Box = tuple[int, int, int, int]


def detect_regions(
    frame: np.ndarray,
    min_side: int = 12,
    max_fraction: float = 0.25,
    threshold: float = 24.0,
    gap: int = 3,
    word_gap: int = 6,
) -> list[Box]:
    """Boxes of connected edge blobs: not smaller than ``min_side`` px a side, not wider or taller than
    ``max_fraction`` of the screen (whole panels are not controls), with edges joined across ``gap`` px
    (and ``word_gap`` px sideways, so a word is one region rather than one per letter)."""
    step = 2 if max(frame.shape[:2]) > 1600 else 1  # a phone frame is searched at half resolution
    if step > 1:
        boxes = detect_regions(
            frame[::step, ::step], max(min_side // step, 4), max_fraction, threshold, gap, word_gap // step
        )
        return [(x1 * step, y1 * step, x2 * step, y2 * step) for x1, y1, x2, y2 in boxes]
    grey = frame.astype(np.float32).mean(axis=2)
    edges = np.zeros_like(grey, dtype=bool)
    edges[:, 1:] |= np.abs(np.diff(grey, axis=1)) > threshold
    edges[1:, :] |= np.abs(np.diff(grey, axis=0)) > threshold
    joined = ndimage.binary_dilation(edges, iterations=gap)
    # glyphs of one word or label sit a few px apart horizontally: join them into one region
    joined = ndimage.binary_dilation(joined, structure=np.ones((1, 2 * word_gap + 1), dtype=bool))
    labels, _ = ndimage.label(joined)
    h, w = grey.shape
    boxes = []
    for sl in ndimage.find_objects(labels):
        if sl is None:
            continue
        y1, y2, x1, x2 = sl[0].start, sl[0].stop, sl[1].start, sl[1].stop
        bw, bh = x2 - x1, y2 - y1
        if min(bw, bh) < min_side or bw > max_fraction * w or bh > max_fraction * h:
            continue
        boxes.append((x1, y1, x2, y2))
    return boxes

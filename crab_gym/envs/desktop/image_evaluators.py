"""Checks of image files on the desktop (Pillow and numpy), as CRAB v0 judges its GIMP sub-tasks."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from crab_gym.core.evaluators import evaluator
from crab_gym.envs.desktop.state import DesktopState

ENV = "ubuntu"


def rgb_brightness(rgb: np.ndarray) -> float:
    """CRAB's brightness of an RGB array: the mean of each pixel's RGB length over sqrt(3) (0-255)."""
    return float(np.linalg.norm(rgb, axis=2).mean() / np.sqrt(3))


def brightness(data: bytes) -> float | None:
    """Mean brightness of an image: each pixel's RGB length over sqrt(3) (a grey level, 0-255); None when
    the bytes are no image Pillow reads."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            rgb = np.asarray(img.convert("RGB"), dtype=np.float64)
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    return rgb_brightness(rgb)


@evaluator(env=ENV)
def image_brighter(state: DesktopState, source: str, target: str) -> bool:
    """the image {target} is brighter than {source}"""
    before, after = state.read_bytes(source), state.read_bytes(target)
    if before is None or after is None:
        return False
    a, b = brightness(before), brightness(after)
    return a is not None and b is not None and b > a


def _grey(img: Any, scale: float) -> np.ndarray:
    from PIL import Image

    w, h = img.size
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return np.asarray(img.convert("L").resize(size, Image.Resampling.BILINEAR), dtype=np.float64)


def _best_fit(out: np.ndarray, tpl: np.ndarray) -> tuple[float, int, int]:
    """Where ``tpl`` fits ``out`` best: (mean squared difference, x, y), by FFT cross-correlation."""
    th, tw = tpl.shape
    oh, ow = out.shape
    fh, fw = oh + th, ow + tw
    corr = np.fft.irfft2(np.fft.rfft2(out, (fh, fw)) * np.conj(np.fft.rfft2(tpl, (fh, fw))), (fh, fw))
    corr = corr[: oh - th + 1, : ow - tw + 1]
    sq = np.pad(np.cumsum(np.cumsum(out**2, 0), 1), ((1, 0), (1, 0)))
    window = sq[th:, tw:] - sq[:-th, tw:] - sq[th:, :-tw] + sq[:-th, :-tw]
    ssd = window - 2 * corr + float((tpl**2).sum())
    y, x = np.unravel_index(int(np.argmin(ssd)), ssd.shape)
    return float(ssd[y, x]) / tpl.size, int(x), int(y)


def locate(part: bytes, whole: bytes, tolerance: float = 15.0) -> tuple[float, float, float, float] | None:
    """The box (x0, y0, x1, y1, in pixels of ``whole``) where the image ``part`` appears whole in the image
    ``whole``, at its own size, at half size, or scaled to ``whole``'s height or width; None when it is
    nowhere (its pixels off by more than ``tolerance`` grey levels, root mean square), or either is no
    image. Both are searched at most 256 px wide, so JPEG noise and resampling pass."""
    from PIL import Image, UnidentifiedImageError

    try:
        big, small = Image.open(io.BytesIO(whole)), Image.open(io.BytesIO(part))
        big.load(), small.load()
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    (W, H), (w, h) = big.size, small.size
    f = min(1.0, 256 / max(W, H))
    out = _grey(big, f)
    for s in dict.fromkeys((1.0, 0.5, H / h, W / w)):
        if w * s > W + 0.5 or h * s > H + 0.5 or min(w, h) * s * f < 4:
            continue
        tpl = _grey(small, s * f)
        if tpl.shape[0] > out.shape[0] or tpl.shape[1] > out.shape[1]:
            continue
        mse, x, y = _best_fit(out, tpl)
        if mse <= tolerance**2:
            return (x / f, y / f, (x + tpl.shape[1]) / f, (y + tpl.shape[0]) / f)
    return None


@evaluator(env=ENV)
def image_left_of(state: DesktopState, left: str, right: str, path: str) -> bool:
    """the image {path} shows {left} whole, left of {right} whole"""
    a, b, out = state.read_bytes(left), state.read_bytes(right), state.read_bytes(path)
    if a is None or b is None or out is None:
        return False
    box_a, box_b = locate(a, out), locate(b, out)
    return box_a is not None and box_b is not None and box_a[0] + box_a[2] < box_b[0] + box_b[2]

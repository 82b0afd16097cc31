"""SetOfMarks: number every interactive element on every screen, so an agent says "tap 7", not coordinates.

Elements come from the device's own tree (AT-SPI on the desktop, the uiautomator dump on the phone), OCR
text boxes (an offline engine chosen by name; for what no tree exposes: a terminal, a canvas) and an
interactive-region detector that needs no weights (icons without text). They are merged into numbered marks
(:func:`crab_gym.wrappers.marks.merge`), drawn on the screen, and exposed as fixed-shape arrays in the
observation and as text lines (``[7] button "Send"``) in ``info["marks"]``. In the action, every point
parameter becomes an element id: ``point`` -> ``element``, ``start`` -> ``start_element``, ...

Over a CrabEnv with a smaller ``obs_size``, marks are found on the full-size frame (``last_screens()``) and
their boxes scaled to the observation (the ``marks`` array and the drawing are in observation pixels);
``self.marks`` stays in device pixels, so an element id acts where the element is.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Annotated, Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image
from pydantic import Field

from crab_gym.core.actions import ActionSpec, ParamSpec, build_params_model
from crab_gym.env_protocol import crab_of
from crab_gym.ocr import CachedOcr
from crab_gym.wrappers.marks import Candidate, Mark, draw, mark_at, merge

MAX_MARKS = 64


def element_param(name: str) -> str:
    """The element-id parameter that replaces a point parameter."""
    return "element" if name == "point" else f"{name}_element"


class SetOfMarks(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Numbered marks on every device screen; point parameters become element ids (1..max_marks)."""

    def __init__(
        self,
        env: gym.Env,
        ocr: str | None = None,
        detector: bool = True,
        tree: bool = True,
        max_marks: int = MAX_MARKS,
        draw_marks: bool = True,
        view_side: int | None = None,
    ) -> None:
        """``view_side``: the longer side (px) the agent will see screens at (e.g. a model's downscale); the
        mark numbers are sized to stay legible there (default: ``marks.VIEW_SIDE``)."""
        gym.utils.RecordConstructorArgs.__init__(
            self, ocr=ocr, detector=detector, tree=tree, max_marks=max_marks, draw_marks=draw_marks,
            view_side=view_side,
        )  # fmt: skip
        gym.Wrapper.__init__(self, env)
        self.crab = crab_of(env)
        self.ocr = CachedOcr(ocr) if ocr else None
        self.detector = detector
        self.tree = tree
        self.max_marks = max_marks
        self.draw_marks = draw_marks
        self.view_side = view_side
        codec = self.crab.codec
        self.point_params = sorted(n for n, c in codec.codecs.items() if c.kind == "point")
        assert isinstance(env.action_space, spaces.Tuple) and isinstance(env.observation_space, spaces.Dict)
        device, action, params = env.action_space.spaces
        assert isinstance(params, spaces.Dict)
        new_params: dict[str, spaces.Space] = {}
        for name, space in params.spaces.items():
            if name in self.point_params:
                new_params[element_param(name)] = spaces.Discrete(max_marks, start=1)
            else:
                new_params[name] = space
        self.action_space = spaces.Tuple((device, action, spaces.Dict(new_params)))
        obs_spaces: dict[str, Any] = dict(env.observation_space.spaces)
        self.screens = [n for n in obs_spaces if n != "instruction"]
        for name in self.screens:
            h, w, _ = obs_spaces[name]["screen"].shape
            obs_spaces[name] = spaces.Dict(
                {
                    "screen": obs_spaces[name]["screen"],
                    "marks": spaces.Box(0, max(w, h), (max_marks, 4), np.int32),
                    "mark_count": spaces.Box(0, max_marks, (), np.int32),
                }
            )
        self.observation_space = spaces.Dict(obs_spaces)
        self.marks: dict[str, list[Mark]] = {}
        self.candidates: dict[str, list[Candidate]] = {}
        self.timings: dict[str, dict[str, float]] = {}

    # ---- marks ----------------------------------------------------------------------------------
    def compute_marks(self, device: str, frame: np.ndarray) -> list[Mark]:
        """Merged marks for one device's current frame (its tree, OCR and the region detector)."""
        sub = self.crab.subenvs[device]
        h, w = frame.shape[:2]
        cands: list[Candidate] = []
        t = {}
        t0 = time.perf_counter()
        if self.tree:
            with self.crab.devices_held():  # no video grab on the device while its tree is read
                cands += [Candidate(e.box, e.role, e.name, e.source) for e in sub.ui_elements()]
        t["tree"] = time.perf_counter() - t0
        if self.ocr is not None:
            t0 = time.perf_counter()
            cands += [Candidate(b, "text", text, "ocr") for b, text in self.ocr(frame)]
            t["ocr"] = time.perf_counter() - t0
        if self.detector:
            from crab_gym.wrappers.regions import detect_regions

            t0 = time.perf_counter()
            cands += [Candidate(b, "region", "", "detector") for b in detect_regions(frame)]
            t["detector"] = time.perf_counter() - t0
        self.timings[device] = t
        self.candidates[device] = cands
        return merge(cands, (w, h), max_marks=self.max_marks)

    def _observe(self, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        out = dict(obs)
        described = {}
        full_frames = self.crab.last_screens() if hasattr(self.crab, "last_screens") else {}
        for name in self.screens:
            frame = obs[name]["screen"]
            full = full_frames.get(name, frame)
            marks = self.compute_marks(name, full)
            self.marks[name] = marks
            if full.shape[:2] != frame.shape[:2]:
                marks = scale_marks(marks, (full.shape[1], full.shape[0]), (frame.shape[1], frame.shape[0]))
            boxes = np.zeros((self.max_marks, 4), np.int32)
            for i, m in enumerate(marks):
                boxes[i] = m.box
            out[name] = {
                "screen": _draw(frame, marks, self.view_side) if self.draw_marks else frame,
                "marks": boxes,
                "mark_count": np.asarray(len(marks), np.int32),
            }
            described[name] = [m.describe() for m in marks]
        info["marks"] = described
        return out

    # ---- gym API --------------------------------------------------------------------------------
    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        return self._observe(obs, info), info

    def step(self, action: Any):
        try:
            inner = self.to_inner(action)
        except ValueError as e:
            obs, reward, terminated, truncated, info = self.crab.reject(str(e))
        else:
            obs, reward, terminated, truncated, info = self.env.step(inner)
        return self._observe(obs, info), reward, terminated, truncated, info

    def to_inner(self, action: Any) -> Any:
        """The wrapped env's action: element ids of the acting device's marks replaced by box centres."""
        if not isinstance(action, (tuple, list)) or len(action) != 3 or not isinstance(action[2], Mapping):
            return action  # the env explains what an action must look like
        dev, act, params = action
        try:
            device = self.crab.codec.subenvs[int(np.asarray(dev).item())]
            spec = device.actions[int(np.asarray(act).item())]
        except (IndexError, TypeError, ValueError):
            return action
        params = dict(params)
        w, h = device.screen_size
        for p in spec.params:
            if p.name not in self.point_params:
                continue
            key = element_param(p.name)
            if key not in params:
                raise ValueError(f"{spec.name}: parameter {key!r} (a mark id) is required")
            try:
                mark_id = int(np.asarray(params.pop(key)).item())
            except (TypeError, ValueError):
                raise ValueError(f"{spec.name}: {key!r} must be a mark id (an integer)") from None
            marks = self.marks.get(device.name, [])
            if not 1 <= mark_id <= len(marks):
                raise ValueError(
                    f"{spec.name}: {key} {mark_id} is not on the {device.name} screen; its marks are "
                    f"1..{len(marks)}"
                    if marks
                    else f"{spec.name}: the {device.name} screen has no marks"
                )
            cx, cy = marks[mark_id - 1].centre
            params[p.name] = np.asarray([cx / w, cy / h], np.float32)
        return (dev, act, params)

    def mark_for_point(self, device: str, x: float, y: float) -> Mark | None:
        """The mark that acts on pixel (x, y): the smallest mark holding it; else a mark inside the smallest
        element holding it (a list row whose checkbox is the row's mark, since containers are dropped); else
        the nearest mark on the same line (a list row's text)."""
        marks = self.marks.get(device, [])
        mark = mark_at(marks, x, y)
        if mark is not None:
            return mark
        holding = [
            c.box
            for c in self.candidates.get(device, [])
            if c.box[0] <= x < c.box[2] and c.box[1] <= y < c.box[3]
        ]
        for box in sorted(holding, key=lambda b: (b[2] - b[0]) * (b[3] - b[1])):
            inside = [
                m
                for m in marks
                if box[0] <= m.box[0] and box[1] <= m.box[1] and m.box[2] <= box[2] and m.box[3] <= box[3]
            ]
            if inside:
                return inside[0]
        # a list row no tree exposes (its text found by OCR or the detector): the nearest mark on that line
        same_line = [m for m in marks if m.box[1] <= y < m.box[3]]
        return min(same_line, key=lambda m: abs(m.centre[0] - x), default=None)

    def encode_action(self, device: str, action: str, params: Mapping[str, Any] | None = None) -> tuple:
        """A wrapper action by names. Element ids (``element``, ``start_element``, ...) are taken as they are
        (checked against the marks when stepped); a point given instead is replaced by the id of the mark
        that acts there (:meth:`mark_for_point`; ValueError if none does)."""
        params = dict(params or {})
        w, h = self.crab.subenvs[device].screen_size
        ids: dict[str, Any] = {}
        for name in self.point_params:
            key = element_param(name)
            if key in params:
                ids[key] = params.pop(key)
                params[name] = (0.5, 0.5)  # stands in while the spec validates the other parameters
            elif name in params:
                x, y = params[name]
                mark = self.mark_for_point(device, x * w, y * h)
                if mark is None:
                    raise ValueError(f"no mark on the {device} screen holds the point ({x:.3f}, {y:.3f})")
                ids[key] = mark.id
        dev, act, full = self.crab.encode_action(device, action, params)
        out = {k: v for k, v in full.items() if k not in self.point_params}
        out.update({element_param(n): 1 for n in self.point_params})
        out.update(ids)
        return (dev, act, out)

    def action_specs(self) -> dict[str, list[ActionSpec]]:
        """Every device's actions as an agent of this wrapper sees them: point parameters are mark ids."""
        return {
            sub.name: [self._element_spec(spec) for spec in sub.actions] for sub in self.crab.codec.subenvs
        }

    def _element_spec(self, spec: ActionSpec) -> ActionSpec:
        return element_spec(spec, tuple(self.point_params), self.max_marks)


def element_spec(spec: ActionSpec, point_params: tuple[str, ...], max_marks: int) -> ActionSpec:
    """``spec`` with its point parameters replaced by mark ids (1..max_marks); it pickles as this recipe."""
    if not any(p.name in point_params for p in spec.params):
        return spec
    mark_id = Annotated[int, Field(ge=1, le=max_marks)]
    params = tuple(
        ParamSpec(
            element_param(p.name),
            mark_id,
            f"The number of the mark to act on (instead of {p.name}: {p.description})",
            p.default,
        )
        if p.name in point_params
        else p
        for p in spec.params
    )
    model = build_params_model(f"{spec.name}_marked_params", params)
    return ActionSpec(
        name=spec.name, description=spec.description, fn=spec.fn, params=params, model=model,
        rebuild=(element_spec, (spec, point_params, max_marks)),
    )  # fmt: skip


def scale_marks(marks: list[Mark], size: tuple[int, int], to: tuple[int, int]) -> list[Mark]:
    """Marks with their boxes moved from a (w, h) frame to a ``to`` (w, h) frame; at least 1 px a side."""
    sx, sy = to[0] / size[0], to[1] / size[1]
    out = []
    for m in marks:
        x1, y1 = min(int(m.box[0] * sx), to[0] - 1), min(int(m.box[1] * sy), to[1] - 1)
        x2 = min(max(math.ceil(m.box[2] * sx), x1 + 1), to[0])
        y2 = min(max(math.ceil(m.box[3] * sy), y1 + 1), to[1])
        out.append(Mark(m.id, (x1, y1, x2, y2), m.role, m.name, m.source))
    return out


def _draw(frame: np.ndarray, marks: list[Mark], view_side: int | None = None) -> np.ndarray:
    """The marks drawn on an RGB (H, W, 3) or grayscale (H, W, 1) frame."""
    if frame.ndim == 3 and frame.shape[2] == 1:
        drawn = draw(np.repeat(frame, 3, axis=2), marks, view_side)
        return np.asarray(Image.fromarray(drawn).convert("L"))[:, :, None]
    return draw(frame, marks, view_side)

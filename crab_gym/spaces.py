"""Observation and action spaces built from the sub-envs' action specs, and the codec between them.

Every action parameter maps to one entry of the action's parameter Dict, chosen from its type annotation:
a Point is a Box(0, 1, (2,)), a string a Text, a Literal a Discrete over its values, a bounded int a Discrete,
a list of Literals a MultiDiscrete (0 = unused slot). One name means one space across all devices.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from crab_gym.core.actions import ActionSpec, InvalidAction, Point
from crab_gym.envs.base import SubEnv

INSTRUCTION_BYTES = 1024
DEFAULT_TEXT_LENGTH = 256

# What people type: printable ASCII, whitespace, Latin-1 and Latin Extended-A letters, common typography.
CHARSET = "".join(
    [chr(c) for c in range(32, 127)] + ["\n", "\t"] + [chr(c) for c in range(0xA0, 0x180)] + list("€–—‘’“”…•")
)


def encode_instruction(text: str) -> np.ndarray:
    """UTF-8 bytes, zero-padded (cut at a character boundary if too long)."""
    data = text.encode("utf-8")
    if len(data) > INSTRUCTION_BYTES:
        data = data[:INSTRUCTION_BYTES].decode("utf-8", "ignore").encode("utf-8")
    out = np.zeros(INSTRUCTION_BYTES, dtype=np.uint8)
    out[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return out


def decode_instruction(arr: np.ndarray) -> str:
    """The instruction string back from its observation bytes."""
    data = np.asarray(arr, dtype=np.uint8).tobytes()
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


def _constraints(annotation: Any) -> tuple[Any, dict[str, Any]]:
    """(base type, {ge, le, min_length, max_length}) from an Annotated type and its pydantic metadata."""
    found: dict[str, Any] = {}
    while typing.get_origin(annotation) is typing.Annotated:
        base, *meta = typing.get_args(annotation)
        for m in meta:
            for item in [m, *getattr(m, "metadata", [])]:
                for key in ("ge", "le", "gt", "lt", "min_length", "max_length"):
                    if getattr(item, key, None) is not None:
                        found[key] = getattr(item, key)
        annotation = base
    return annotation, found


def whole_number(value: Any, what: str) -> int:
    """An index from an int, a whole float or a one-element array of them; else InvalidAction naming ``what``
    (NaN, infinity, fractions, strings, booleans and objects are not indices)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    arr = np.asarray(value)
    if arr.size != 1 or arr.dtype.kind not in "iuf":
        raise InvalidAction(f"{what} must be one integer; got {_kind_of(value)}")
    x = arr.reshape(-1)[0].item()
    if isinstance(x, float) and not (np.isfinite(x) and x.is_integer()):
        raise InvalidAction(f"{what} must be an integer; got {x!r}")
    return int(x)


def _kind_of(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


@dataclass(frozen=True)
class ParamCodec:
    """How one parameter travels between its gymnasium space and its python value."""

    name: str
    kind: str  # point | text | choice | choices | int
    space: spaces.Space
    values: tuple[Any, ...] = ()
    offset: int = 0

    def decode(self, value: Any) -> Any:
        if self.kind == "point":
            arr = np.asarray(value)
            if arr.dtype.kind not in "iuf":  # strings, booleans, objects: not coordinates
                raise InvalidAction(
                    f"parameter {self.name!r} must be 2 numbers in [0, 1]; got {arr.dtype} values"
                )
            return tuple(float(v) for v in arr.reshape(-1))
        if self.kind == "text":
            if not isinstance(value, str):
                raise InvalidAction(f"parameter {self.name!r} must be a string; got {type(value).__name__}")
            return value
        if self.kind == "choice":
            i = whole_number(value, f"parameter {self.name!r}")
            if not 0 <= i < len(self.values):
                raise InvalidAction(
                    f"parameter {self.name!r} index {i} out of range 0..{len(self.values) - 1}"
                )
            return self.values[i]
        if self.kind == "choices":
            idx = [whole_number(i, f"parameter {self.name!r}") for i in np.asarray(value).reshape(-1)]
            if any(not 0 <= i <= len(self.values) for i in idx):
                raise InvalidAction(f"parameter {self.name!r} indices must be in 0..{len(self.values)}")
            return [self.values[i - 1] for i in idx if i > 0]
        return whole_number(value, f"parameter {self.name!r}")

    def encode(self, value: Any) -> Any:
        if self.kind == "point":
            return np.asarray(value, dtype=np.float32)
        if self.kind == "text":
            return str(value)
        if self.kind == "choice":
            return self.values.index(value)
        if self.kind == "choices":
            assert isinstance(self.space, spaces.MultiDiscrete)  # a "choices" codec's space (codec_for)
            slots = self.space.nvec.shape[0]
            idx = [self.values.index(v) + 1 for v in value] + [0] * (slots - len(value))
            return np.asarray(idx[:slots], dtype=np.int64)
        return int(value)

    def default(self) -> Any:
        if self.kind == "point":
            return np.full(2, 0.5, dtype=np.float32)
        if self.kind == "text":
            return ""
        if self.kind == "choices":
            assert isinstance(self.space, spaces.MultiDiscrete)
            return np.zeros(self.space.nvec.shape, dtype=np.int64)
        return int(getattr(self.space, "start", 0))


def codec_for(name: str, annotation: Any) -> ParamCodec:
    if annotation is Point:
        return ParamCodec(name, "point", spaces.Box(0.0, 1.0, (2,), np.float32))
    base, c = _constraints(annotation)
    origin = typing.get_origin(base)
    if base is str:
        length = int(c.get("max_length", DEFAULT_TEXT_LENGTH))
        return ParamCodec(
            name, "text", spaces.Text(length, min_length=int(c.get("min_length", 0)), charset=CHARSET)
        )
    if origin is typing.Literal:
        values = typing.get_args(base)
        return ParamCodec(name, "choice", spaces.Discrete(len(values)), values=values)
    if base is bool:
        return ParamCodec(name, "choice", spaces.Discrete(2), values=(False, True))
    if origin is list:
        (item,) = typing.get_args(base)
        item_base, _ = _constraints(item)
        if typing.get_origin(item_base) is typing.Literal:
            values = typing.get_args(item_base)
            slots = int(c.get("max_length", 4))
            return ParamCodec(name, "choices", spaces.MultiDiscrete([len(values) + 1] * slots), values=values)
    if base is int and "ge" in c and "le" in c:
        lo, hi = int(c["ge"]), int(c["le"])
        return ParamCodec(name, "int", spaces.Discrete(hi - lo + 1, start=lo), offset=lo)
    raise TypeError(f"parameter {name!r}: no action space for type {annotation!r}")


class ActionCodec:
    """The action Tuple(device, action, params) for a list of sub-envs, and its decoding and encoding."""

    def __init__(self, subenvs: Sequence[SubEnv]) -> None:
        self.subenvs = list(subenvs)
        self.codecs: dict[str, ParamCodec] = {}
        for sub in self.subenvs:
            for spec in sub.actions:
                for p in spec.params:
                    codec = codec_for(p.name, p.annotation)
                    prev = self.codecs.get(p.name)
                    if prev is not None and (prev.kind, prev.values) != (codec.kind, codec.values):
                        raise TypeError(
                            f"parameter {p.name!r} of {sub.name}.{spec.name} has another type than elsewhere"
                        )
                    self.codecs.setdefault(p.name, codec)
        self.max_actions = max(len(s.actions) for s in self.subenvs)
        self.space = spaces.Tuple(
            (
                spaces.Discrete(len(self.subenvs)),
                spaces.Discrete(self.max_actions),
                spaces.Dict({n: c.space for n, c in sorted(self.codecs.items())}),
            )
        )

    def decode(self, action: Any) -> tuple[SubEnv, ActionSpec, dict[str, Any]]:
        """(sub-env, spec, validated params) or InvalidAction saying what is wrong."""
        if not isinstance(action, (tuple, list)) or len(action) != 3:
            raise InvalidAction(
                f"an action is a tuple (device index, action index, params dict); got {type(action).__name__}"
            )
        dev, act, params = action
        try:
            dev, act = whole_number(dev, "the device index"), whole_number(act, "the action index")
        except InvalidAction:
            raise
        except (TypeError, ValueError) as e:  # an object that fails even to become an array
            raise InvalidAction(f"device and action indices must be integers ({e})") from None
        if not 0 <= dev < len(self.subenvs):
            names = ", ".join(f"{i}={s.name}" for i, s in enumerate(self.subenvs))
            raise InvalidAction(f"device index {dev} out of range; devices: {names}")
        sub = self.subenvs[dev]
        if not 0 <= act < len(sub.actions):
            raise InvalidAction(
                f"{sub.name} has {len(sub.actions)} actions (0..{len(sub.actions) - 1}: "
                f"{', '.join(sub.action_names())}); got action index {act}"
            )
        spec = sub.actions[act]
        if not isinstance(params, Mapping):
            raise InvalidAction(f"{spec.name}: params must be a dict; got {type(params).__name__}")
        values = {}
        for p in spec.params:
            if p.name in params:
                try:
                    values[p.name] = self.codecs[p.name].decode(params[p.name])
                except InvalidAction as e:
                    raise InvalidAction(f"{spec.name}: {e}") from None
                except (TypeError, ValueError, OverflowError) as e:
                    raise InvalidAction(f"{spec.name}: parameter {p.name!r} is malformed ({e})") from None
        return sub, spec, spec.validate(values)

    def encode(self, env: str, action: str, params: Mapping[str, Any] | None = None) -> tuple:
        """The tuple action for (device name, action name, python params); unused params get defaults."""
        names = [s.name for s in self.subenvs]
        if env not in names:
            raise InvalidAction(f"unknown device {env!r}; devices: {names}")
        dev = names.index(env)
        sub = self.subenvs[dev]
        spec = sub.action(action)
        checked = spec.validate(params or {})
        full = {n: c.default() for n, c in self.codecs.items()}
        for k, v in checked.items():
            full[k] = self.codecs[k].encode(v)
        return (dev, sub.actions.index(spec), full)

    def mask(self) -> np.ndarray:
        """(devices, max_actions) bool: which (device, action) pairs exist."""
        m = np.zeros((len(self.subenvs), self.max_actions), dtype=bool)
        for i, s in enumerate(self.subenvs):
            m[i, : len(s.actions)] = True
        return m


@dataclass(frozen=True)
class ScreenObs:
    """How one device's frame becomes its observation: ``width`` x ``height`` pixels, 3 channels (RGB) or
    1 (grayscale, ITU-R 601-2 luma as Pillow's ``convert("L")``)."""

    width: int
    height: int
    channels: int = 3

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.height, self.width, self.channels)

    def convert(self, frame: np.ndarray) -> np.ndarray:
        """The observation of a full-size (H, W, 3) frame: the frame itself when nothing changes, else one
        Pillow resize (bilinear after an integer box reduction, as FlattenActions shrinks) and, for
        grayscale, a luma conversion of the small image."""
        if frame.shape == self.shape:
            return frame
        small = resize_frame(frame, (self.width, self.height))
        if self.channels == 1:
            from PIL import Image

            return np.asarray(Image.fromarray(small).convert("L"))[:, :, None]
        return small


def resize_frame(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An (H, W, 3) or (H, W, 1) uint8 frame at ``size`` (w, h), channels kept: one Pillow resize (bilinear
    after an integer box reduction); the frame itself when it already has that size."""
    if (frame.shape[1], frame.shape[0]) == size:
        return frame
    from PIL import Image  # here: a device that draws at the observation's size never resizes

    gray = frame.ndim == 3 and frame.shape[2] == 1
    img = Image.fromarray(np.ascontiguousarray(frame[:, :, 0] if gray else frame, dtype=np.uint8))
    out = np.asarray(img.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0), dtype=np.uint8)
    return out[:, :, None] if gray else out


def screen_obs(
    subenvs: Sequence[SubEnv], obs_size: Mapping[str, Sequence[int]] | Sequence[int] | None = None
) -> dict[str, ScreenObs]:
    """{device: ScreenObs} for every device with a screen, from CrabEnv's ``obs_size`` (see its docstring):
    per device name, or one size for every screen; ``(width, height)`` or ``(width, height, channels)``."""
    full = {s.name: s.screen_size for s in subenvs if all(s.screen_size)}
    if obs_size is None:
        wanted: dict[str, Sequence[int]] = {}
    elif isinstance(obs_size, Mapping):
        wanted = dict(obs_size)
        unknown = set(wanted) - set(full)
        if unknown:
            raise ValueError(
                f"obs_size for devices without a screen here: {sorted(unknown)}; screens: {sorted(full)}"
            )
    else:
        wanted = {name: obs_size for name in full}
    out = {}
    for name, (w, h) in full.items():
        size = tuple(int(v) for v in wanted.get(name, (w, h, 3)))
        if len(size) == 2:
            size = (*size, 3)
        if len(size) != 3 or size[0] < 1 or size[1] < 1 or size[2] not in (1, 3):
            raise ValueError(
                f"obs_size for {name!r} must be (width, height) or (width, height, channels 1 or 3), "
                f"got {wanted.get(name)!r}"
            )
        out[name] = ScreenObs(*size)
    return out


class UniformBox(spaces.Box):
    """A ``Box`` whose bounds are one value each, held as read-only broadcast views of that value: gymnasium
    keeps four full-size arrays (low, high and whether each is bounded; 12 MB for a 1280x800 RGB screen)."""

    def _cast_low(self, low: Any, dtype_min: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.broadcast_to(np.array(low, self.dtype), self.shape), np.broadcast_to(np.True_, self.shape)

    def _cast_high(self, high: Any, dtype_max: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.broadcast_to(np.array(high, self.dtype), self.shape), np.broadcast_to(np.True_, self.shape)


def observation_space(
    subenvs: Sequence[SubEnv], screens: Mapping[str, ScreenObs] | None = None, video_frames: int = 0
) -> spaces.Dict:
    """The observation Dict: the instruction bytes and each screen (full size unless ``screens`` says);
    with ``video_frames`` T > 0, each device also has ``video`` (T, H, W, C) and ``video_frames`` (how many
    of the T it holds)."""
    screens = screens if screens is not None else screen_obs(subenvs)
    entries: dict[str, spaces.Space] = {"instruction": spaces.Box(0, 255, (INSTRUCTION_BYTES,), np.uint8)}
    for s in subenvs:
        if s.name in screens:
            shape = screens[s.name].shape
            device: dict[str, spaces.Space] = {"screen": UniformBox(0, 255, shape, np.uint8)}
            if video_frames:
                device["video"] = UniformBox(0, 255, (video_frames, *shape), np.uint8)
                device["video_frames"] = spaces.Box(0, video_frames, (), np.int64)
            entries[s.name] = spaces.Dict(device)
    return spaces.Dict(entries)

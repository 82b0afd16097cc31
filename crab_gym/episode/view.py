"""The HTML viewer of a recorded run: one self-contained page (no files beside it, no network).

The page has a summary table of the episodes (task, success, completion ratio, steps, termination reason,
complete or incomplete), then per episode the instruction, the completion-ratio curve over steps (inline
SVG) and the steps one card each. The card of step t shows each device's screen the action acted on (the
screen after step t - 1, with the Set-of-Marks boxes the agent saw) with the action drawn on it
(:mod:`crab_gym.episode.draw_actions`), captioned with the action, reward, completion ratio, invalid-action
reason and node states after the step; a last card shows the final screens. So every recorded screen
appears once per device. Frames are downscaled, encoded once per distinct image and referenced by key
from a JavaScript map, so repeated screens do not grow the page.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from PIL import Image

from crab_gym.episode.draw_actions import draw_action, draw_marks
from crab_gym.episode.format import Episode, EpisodeFormatError, load_episodes

__all__ = ["action_text", "curve_svg", "write_view"]

IMAGE_FORMATS = {"jpeg": "image/jpeg", "png": "image/png"}
VIDEO_SIDE = 96  # the longer side of a video thumbnail in the strip under a step's screens


class _Frames:
    """Downscales, draws on and encodes frames; identical encoded images share one key."""

    def __init__(self, max_side: int, image_format: str, quality: int) -> None:
        self.max_side = max_side
        self.image_format = image_format
        self.quality = quality
        self.urls: dict[str, str] = {}
        self._small: dict[tuple[str, str], Image.Image] = {}

    def small(self, ep: Episode, ref: str) -> Image.Image:
        """The stored frame ``ref`` of ``ep`` as RGB, its longer side at most ``max_side``."""
        key = (str(ep.path), ref)
        if key not in self._small:
            array = ep.array(ref)
            image = Image.fromarray(array[..., 0] if array.ndim == 3 and array.shape[2] == 1 else array)
            image = image.convert("RGB")
            w, h = image.size
            f = min(1.0, self.max_side / max(w, h))
            if f < 1:
                size = (max(1, round(w * f)), max(1, round(h * f)))
                image = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
            if len(self._small) > 256:
                self._small.clear()
            self._small[key] = image
        return self._small[key]

    def add(self, image: Image.Image) -> str:
        """Encode ``image``; returns the key of its data URL in ``urls``."""
        buf = io.BytesIO()
        if self.image_format == "jpeg":
            image.save(buf, "JPEG", quality=self.quality)
        else:
            image.save(buf, "PNG", optimize=False, compress_level=6)
        data = buf.getvalue()
        key = "f" + hashlib.sha1(data).hexdigest()[:16]
        if key not in self.urls:
            mime = IMAGE_FORMATS[self.image_format]
            self.urls[key] = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
        return key


def _num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or value is None:
        return "–" if value is None else str(value)
    if isinstance(value, (int, float)):
        return f"{value:.{digits}f}"
    return str(value)


def _short(value: Any) -> str:
    """A parameter value as short text: floats to 3 decimals, lists of floats alike."""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def action_text(step: Mapping[str, Any]) -> str:
    """The action of a step line as one line of text, e.g. ``android.tap(point=[0.500, 0.775])``; the raw
    action (tool-call text) when the step has no readable action (an invalid one)."""
    readable = step.get("readable")
    if isinstance(readable, Mapping):
        params = readable.get("params") or {}
        args = ", ".join(f"{k}={_short(v)}" for k, v in params.items())
        return f"{readable.get('device')}.{readable.get('action')}({args})"
    raw = step.get("tool_call_text", step.get("action"))
    return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)


def curve_svg(values: list[float | None], width: int = 380, height: int = 120) -> Markup:
    """An inline SVG line chart of the completion ratio (0 to 1) over steps 0..n."""
    left, right, top, bottom = 34, 10, 8, 22
    pw, ph = width - left - right, height - top - bottom
    n = max(len(values) - 1, 1)

    def xy(t: int, v: float) -> tuple[float, float]:
        return left + pw * t / n, top + ph * (1 - min(max(v, 0.0), 1.0))

    parts = [
        f'<svg class="curve" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="completion ratio over steps">'
    ]
    for v in (0.0, 0.5, 1.0):
        _, y = xy(0, v)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
    ticks = sorted({0, n, *range(0, n, max(1, n // 8))}) if len(values) > 1 else [0]
    for t in ticks:
        x, _ = xy(t, 0)
        parts.append(f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle">{t}</text>')
    pts = [(t, v) for t, v in enumerate(values) if isinstance(v, (int, float))]
    if pts:
        line = " ".join("{:.1f},{:.1f}".format(*xy(t, v)) for t, v in pts)
        parts.append(f'<polyline points="{line}" class="cr"/>')
        for t, v in pts:
            x, y = xy(t, v)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" data-t="{t}" data-cr="{v:.4f}">'
                         f"<title>step {t}: CR {v:.2f}</title></circle>")  # fmt: skip
    parts.append("</svg>")
    return Markup("".join(parts))


def _summary(ep: Episode) -> dict[str, Any]:
    record = ep.meta.get("record") or {}
    last = ep.steps[-1] if ep.steps else {}
    reason = ep.meta.get("termination_reason") or record.get("termination_reason")
    reason = reason or last.get("termination_reason")
    if not ep.complete and not reason:
        partial = ep.path.name.endswith(".partial")
        reason = ep.meta.get("ended_by") or (
            "not closed: writer stopped" if partial else ep.meta.get("status")
        )
    return {
        "id": ep.id,
        "task_id": ep.meta.get("task_id"),
        "instruction": ep.meta.get("instruction") or "",
        "seed": ep.meta.get("seed"),
        "env_id": ep.meta.get("env_id"),
        "success": bool(record.get("success", last.get("success", False))),
        "cr": record.get("completion_ratio", last.get("completion_ratio")),
        "steps": max(len(ep.steps) - 1, 0),
        "reason": reason or "–",
        "status": "complete" if ep.complete else "incomplete",
        "return": record.get("return"),
    }


def _frames_of(ep: Episode, t: int, readable: Any, frames: _Frames) -> list[dict[str, Any]]:
    """The encoded screens of step ``t`` (marks of step t drawn; ``readable`` drawn on its device's)."""
    step = ep.steps[t]
    out: list[dict[str, Any]] = []
    for dev in ep.devices:
        ref = (step.get("screens") or {}).get(dev)
        if ref is None:
            out.append({"device": dev, "missing": "no screen recorded"})
            continue
        try:
            image = frames.small(ep, ref)
        except EpisodeFormatError as e:
            out.append({"device": dev, "missing": str(e)})
            continue
        marks = (step.get("marks") or {}).get(dev)
        if marks:
            size = ep.screen_size(dev) or ep.array(ref).shape[1::-1]
            image = draw_marks(image, marks, (image.width / size[0], image.height / size[1]))
        acted = isinstance(readable, Mapping) and readable.get("device") == dev
        if acted:
            image = draw_action(image, readable)
        key = frames.add(image)
        out.append({"device": dev, "key": key, "w": image.width, "h": image.height, "acted": acted})
    return out


def _video_of(ep: Episode, t: int, frames: _Frames) -> list[dict[str, Any]]:
    """The video frames of step ``t`` (grabbed while the agent thought before its action), per device, as
    a strip of thumbnails."""
    out = []
    for dev, refs in (ep.steps[t].get("video") or {}).items():
        keys = []
        for ref in refs:
            try:
                image = frames.small(ep, ref)
            except EpisodeFormatError:
                continue
            f = min(1.0, VIDEO_SIDE / max(image.size))
            keys.append(
                frames.add(image.resize((max(1, round(image.width * f)), max(1, round(image.height * f)))))
            )
        out.append({"device": dev, "keys": keys})
    return out


def _cards(ep: Episode, frames: _Frames) -> list[dict[str, Any]]:
    cards = []
    for t in range(1, len(ep.steps)):
        step = ep.steps[t]
        readable = step.get("readable")
        tool_call = step.get("tool_call_text")
        cards.append({
            "t": t,
            "kind": "step",
            "title": f"Step {t}",
            "action": action_text(step),
            "name": readable.get("action") if isinstance(readable, Mapping) else None,
            "device": readable.get("device") if isinstance(readable, Mapping) else None,
            "tool_call": tool_call if isinstance(tool_call, str) else None,
            "reward": _num(step.get("reward")),
            "cr": _num(step.get("completion_ratio")),
            "invalid": step.get("invalid_action"),
            "error": step.get("error"),
            "nodes": step.get("nodes") or [],
            "feedback": [],
            "frames": _frames_of(ep, t - 1, readable, frames),
            "video": _video_of(ep, t, frames),
        })  # fmt: skip
    if ep.steps:
        last = ep.steps[-1]
        s = _summary(ep)
        cards.append({
            "t": len(ep.steps) - 1,
            "kind": "end",
            "title": f"End ({s['status']}: {s['reason']})",
            "action": None,
            "name": None,
            "device": None,
            "tool_call": None,
            "reward": None,
            "cr": _num(last.get("completion_ratio")),
            "invalid": None,
            "error": None,
            "nodes": last.get("nodes") or [],
            "feedback": [f for f in last.get("feedback") or [] if isinstance(f, str)],
            "frames": _frames_of(ep, len(ep.steps) - 1, None, frames),
            "video": [],
        })  # fmt: skip
    return cards


def page_template(package: str, name: str) -> jinja2.Template:
    """The self-contained HTML page ``name`` from ``package``'s templates/ (autoescaped; an unknown name in
    it is an error, not a blank). The viewer and the eval report use it."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template(name)


def _template() -> jinja2.Template:
    return page_template("crab_gym.episode", "view.html.j2")


def write_view(
    run_dir: str | os.PathLike[str],
    out_html: str | os.PathLike[str] | None = None,
    max_side: int = 480,
    image_format: str = "jpeg",
    quality: int = 80,
    complete_only: bool = False,
) -> Path:
    """Write the viewer page of the run under ``run_dir`` (or of one episode folder) and return its path.

    ``out_html``: default ``run_dir/view.html``. ``max_side``: the longer side of the embedded frames in
    pixels. ``image_format``: ``"jpeg"`` (with ``quality``) or ``"png"``. ``complete_only``: leave out
    episodes that did not run to their end (partial ones included by default).
    """
    if image_format not in IMAGE_FORMATS:
        raise ValueError(f"image_format must be one of {sorted(IMAGE_FORMATS)}, got {image_format!r}")
    if max_side < 16:
        raise ValueError(f"max_side must be at least 16 pixels, got {max_side}")
    run = Path(run_dir)
    out = Path(out_html) if out_html is not None else run / "view.html"
    frames = _Frames(max_side, image_format, quality)
    episodes = []
    for i, ep in enumerate(load_episodes(run, complete_only=complete_only)):
        episodes.append({
            **_summary(ep),
            "anchor": f"ep-{i}",
            "devices": ep.devices,
            "curve": curve_svg([s.get("completion_ratio") for s in ep.steps]),
            "cards": _cards(ep, frames),
        })  # fmt: skip
    crs = [float(e["cr"]) for e in episodes if isinstance(e["cr"], (int, float))]
    html = _template().render(
        title=f"crab-gym run {run.resolve().name}",
        run_dir=str(run),
        episodes=episodes,
        n_success=sum(e["success"] for e in episodes),
        mean_cr=sum(crs) / len(crs) if crs else None,
        frames_json=Markup(json.dumps(frames.urls).replace("</", "<\\/")),
        num=_num,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out

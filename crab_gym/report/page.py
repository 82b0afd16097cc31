"""``report.html`` of an evaluation run: one self-contained page (no file beside it, no network).

The page has the metrics per platform (SR, CR, EE, CE, shares of failure reasons), a table per task and
per episode, the plots of :mod:`crab_gym.report.plots` as PNG data URLs, and per recorded episode a strip of
screens: the screen each action was taken on, downscaled to JPEG with the action drawn on it
(:mod:`crab_gym.episode.draw_actions`), captioned with the action, the completion ratio after it and the
evaluator's feedback when it changed. ``view.html`` (every step in full) is linked when it exists. Everything
is read from the run folder, so the report of a resumed run covers all its episodes.
"""

from __future__ import annotations

import base64
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from PIL import Image

from crab_gym.core.metrics import FAILURE_REASONS, TERMINATION_REASONS, EpisodeRecord, Metrics
from crab_gym.episode.draw_actions import draw_action
from crab_gym.episode.format import Episode, EpisodeFormatError, episode_dirs, load_episode
from crab_gym.episode.view import action_text, page_template
from crab_gym.report import plots
from crab_gym.report.platforms import PLATFORMS, metrics_by_platform, platform_of

__all__ = ["write_report"]


class _Thumbs:
    """Downscaled JPEG data URLs of stored frames, with an action drawn on them; one decode per frame."""

    def __init__(self, max_side: int, quality: int) -> None:
        self.max_side, self.quality = max_side, quality
        self._small: dict[tuple[str, str], Image.Image] = {}

    def url(self, ep: Episode, ref: str, readable: Mapping[str, Any] | None) -> tuple[str, int, int]:
        key = (str(ep.path), ref)
        if key not in self._small:
            array = ep.array(ref)
            image = Image.fromarray(array[..., 0] if array.ndim == 3 and array.shape[2] == 1 else array)
            image = image.convert("RGB")
            image.thumbnail((self.max_side, self.max_side), Image.Resampling.LANCZOS)
            if len(self._small) > 128:
                self._small.clear()
            self._small[key] = image
        image = draw_action(self._small[key], readable)
        buf = io.BytesIO()
        image.save(buf, "JPEG", quality=self.quality)
        return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii"), *image.size


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _metrics_row(name: str, m: Metrics) -> dict[str, Any]:
    return {"name": name, "n": m.n, "SR": _pct(m.SR), "CR": _pct(m.CR), "EE": f"{m.EE:.4f}",
            "CE": "n/a" if m.CE is None else f"{m.CE:.3g}", "mean_steps": f"{m.mean_steps:.1f}",
            "shares": [_pct(m.termination_shares.get(r, 0.0)) for r in FAILURE_REASONS],
            "k": m.k, "pass_hat_k": _pct(m.pass_hat_k), "pass_at_k": _pct(m.pass_at_k),
            "questions": f"{m.questions:.2f}", "extra_questions": f"{m.extra_questions:.2f}"}  # fmt: skip


def _feedback(step: Mapping[str, Any]) -> list[str]:
    feedback = step.get("feedback")
    return [f for f in feedback if isinstance(f, str)] if isinstance(feedback, list) else []


def _screens(step: Mapping[str, Any]) -> dict[str, str]:
    screens = step.get("screens")
    return {d: r for d, r in screens.items() if isinstance(r, str)} if isinstance(screens, Mapping) else {}


def _picture(
    tile: dict[str, Any], thumbs: _Thumbs, ep: Episode, ref: str, readable: Mapping[str, Any] | None
) -> None:
    """Put the thumbnail of frame ``ref`` into ``tile``, or why it cannot be read."""
    try:
        tile["img"], tile["w"], tile["h"] = thumbs.url(ep, ref, readable)
    except EpisodeFormatError as e:
        tile["missing"] = str(e)
    except (TypeError, ValueError) as e:  # stored, but not an image
        tile["missing"] = f"{ep.path / ref}: not an image ({e})"


def _tile(ep: Episode, t: int, thumbs: _Thumbs, last_feedback: list[str] | None) -> dict[str, Any]:
    """The strip tile of step ``t``: the screen the action acted on (the one after step t - 1) with the
    action drawn, or no image for a root action or a rejected call."""
    step = ep.steps[t]
    readable = step.get("readable") if isinstance(step.get("readable"), Mapping) else None
    tile: dict[str, Any] = {"t": t, "kind": "step", "action": action_text(step), "img": None,
                            "cr": step.get("completion_ratio"), "reward": step.get("reward"),
                            "invalid": step.get("invalid_action"), "error": step.get("error"),
                            "device": readable.get("device") if readable else None}  # fmt: skip
    ref = _screens(ep.steps[t - 1]).get(tile["device"]) if readable else None
    if ref is not None:
        _picture(tile, thumbs, ep, ref, readable)
    feedback = _feedback(step)
    tile["feedback"] = feedback if feedback != last_feedback else []
    return tile


def _end_tiles(ep: Episode, thumbs: _Thumbs, reason: str, devices: Sequence[str]) -> list[dict[str, Any]]:
    """The final screen of each of the task's ``devices`` (every device if none is recorded), then the
    evaluator's last feedback."""
    last = ep.steps[-1]
    screens = _screens(last)
    screens = {d: ref for d, ref in screens.items() if d in devices} or screens
    out = []
    for device, ref in screens.items():
        tile: dict[str, Any] = {"t": len(ep.steps) - 1, "kind": "end", "device": device, "img": None,
                                "action": f"end: {device}", "cr": last.get("completion_ratio"),
                                "reward": None, "invalid": None, "error": None, "feedback": []}  # fmt: skip
        _picture(tile, thumbs, ep, ref, None)
        out.append(tile)
    feedback = _feedback(last) or (["every check passed"] if last.get("success") else [])
    if out:
        out[-1]["feedback"] = [f"ended: {reason}", *feedback]
    return out


def _strip(
    ep: Episode, thumbs: _Thumbs, max_tiles: int, reason: str, devices: Sequence[str]
) -> list[dict[str, Any]]:
    """At most ``max_tiles`` step tiles (the first and the last steps, a gap tile between), then the end."""
    ts = list(range(1, len(ep.steps)))
    if len(ts) > max_tiles:
        head = max_tiles // 2
        ts = ts[:head] + [-1] + ts[len(ts) - (max_tiles - head) :]
    tiles: list[dict[str, Any]] = []
    last: list[str] | None = None  # the first tile shows what is unmet after it
    for t in ts:
        if t == -1:
            tiles.append({"kind": "gap", "hidden": len(ep.steps) - 1 - max_tiles})
            continue
        tiles.append(_tile(ep, t, thumbs, last))
        last = _feedback(ep.steps[t])
    return tiles + (_end_tiles(ep, thumbs, reason, devices) if ep.steps else [])


def _failed(run: Path, done: set[str]) -> list[dict[str, Any]]:
    """Jobs given up after two crashes (``failed.jsonl``) that have not completed since: env_error."""
    out: dict[str, dict[str, Any]] = {}
    path = run / "failed.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and entry.get("episode_id") not in done and "task_id" in entry:
                out[str(entry["episode_id"])] = entry
    return list(out.values())


def _platform(task_platforms: Mapping[str, Sequence[str]], task: str, where: Path) -> str:
    if task not in task_platforms:
        raise KeyError(f"{where}: task {task!r} is not among the tasks of this evaluation")
    return platform_of(task_platforms[task])


def _episodes(
    run: Path, task_platforms: Mapping[str, Sequence[str]], thumbs: _Thumbs, max_tiles: int, has_view: bool
) -> tuple[list[dict[str, Any]], list[EpisodeRecord], list[str]]:
    """(the episodes as the page shows them, the records of the finished ones, why folders were unreadable):
    every episode folder of ``run`` (a record if it ran to its end, a strip if it has steps), then the jobs
    given up in ``failed.jsonl`` as env_error."""
    episodes: list[dict[str, Any]] = []
    records: list[EpisodeRecord] = []
    unreadable: list[str] = []
    done: set[str] = set()
    for i, path in enumerate(episode_dirs(run)):
        try:
            ep = load_episode(path)
        except EpisodeFormatError as e:
            unreadable.append(str(e))
            continue
        record, rec = ep.meta.get("record"), None
        try:
            rec = EpisodeRecord.from_dict(record) if ep.complete and isinstance(record, dict) else None
        except (ValueError, TypeError) as e:
            unreadable.append(f"{path / 'episode.json'}: field 'record': {e}")
        task = str(ep.meta.get("task_id"))
        platform = _platform(task_platforms, task, path / "episode.json")
        if rec is not None:
            records.append(rec)
            done.add(path.name)
        reason = rec.termination_reason if rec else str(ep.meta.get("ended_by") or "not finished")
        ended_by = ep.meta.get("ended_by")  # an agent_error's message
        error = str(ended_by) if rec and ended_by and ended_by != reason else None
        episodes.append({
            "id": ep.id, "anchor": f"ep-{len(episodes)}", "view": f"view.html#ep-{i}" if has_view else None,
            "task_id": task, "platform": platform, "instruction": ep.meta.get("instruction") or "",
            "record": rec, "reason": reason, "error": error,
            "status": "complete" if ep.complete else "incomplete",
            "curve": [float(s["completion_ratio"]) for s in ep.steps
                      if isinstance(s.get("completion_ratio"), (int, float))],
            "strip": _strip(ep, thumbs, max_tiles, reason, task_platforms[task]),
        })  # fmt: skip
    for entry in _failed(run, done):
        task = str(entry["task_id"])
        rec = EpisodeRecord(task, False, 0.0, 0, 0, 0, None, "env_error", 0.0, 0.0,
                            {"error": entry.get("error"), "episode_id": entry["episode_id"]})  # fmt: skip
        records.append(rec)
        episodes.append({"id": entry["episode_id"], "anchor": None, "view": None, "task_id": task,
                         "platform": _platform(task_platforms, task, run / "failed.jsonl"), "instruction": "",
                         "record": rec, "reason": "env_error", "error": str(entry.get("error")),
                         "status": "failed",
                         "curve": [], "strip": []})  # fmt: skip
    return episodes, records, unreadable


def _task_rows(
    records: Sequence[EpisodeRecord], task_platforms: Mapping[str, Sequence[str]]
) -> list[dict[str, Any]]:
    """Per task: platform, episodes, successes, mean CR and steps, and the mean tokens of the episodes
    that count them."""
    tasks: dict[str, list[EpisodeRecord]] = {}
    for r in records:
        tasks.setdefault(r.task_id, []).append(r)
    rows = []
    for task, rs in sorted(tasks.items()):
        tokens = [r.tokens for r in rs if r.tokens is not None]
        rows.append({"task": task, "platform": platform_of(task_platforms[task]), "n": len(rs),
                     "ok": sum(r.success for r in rs), "CR": sum(r.completion_ratio for r in rs) / len(rs),
                     "steps": sum(r.steps for r in rs) / len(rs),
                     "tokens": sum(tokens) / len(tokens) if tokens else None})  # fmt: skip
    return rows


def _figures(
    episodes: Sequence[Mapping[str, Any]],
    counts: Mapping[str, Mapping[str, int]],
    by_platform: Mapping[str, Metrics],
) -> list[plots.Plot]:
    scored = [(e, e["record"]) for e in episodes if e["record"] is not None]
    repeated = {p: m.pass_curve for p, m in by_platform.items() if m.k > 1}
    return [
        plots.cr_per_task([(e["task_id"], e["platform"], r.completion_ratio, r.success) for e, r in scored]),
        plots.termination_by_platform({p: c for p, c in counts.items() if sum(c.values())}),
        plots.cr_over_steps([(e["platform"], e["curve"]) for e in episodes if e["curve"]]),
        plots.tokens_per_episode([(e["id"], r.tokens, r.success) for e, r in scored]),
        *([plots.pass_k_curves(repeated)] if repeated else []),  # only when tasks ran k > 1 episodes
    ]


def _template() -> jinja2.Template:
    return page_template("crab_gym.report", "report.html.j2")


def _num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–" if value is None else str(value)
    return f"{value:.{digits}f}"


def write_report(
    run_dir: str | os.PathLike[str],
    task_platforms: Mapping[str, Sequence[str]],
    title: str = "crab-gym evaluation",
    out_html: str | os.PathLike[str] | None = None,
    max_side: int = 320,
    max_tiles: int = 12,
    quality: int = 70,
) -> Path:
    """Write the report of the run in ``run_dir`` (default ``run_dir/report.html``) and return its path.

    ``task_platforms`` maps each task id to the devices it touches (``Task.platforms``); an episode of
    a task not in it is a KeyError naming the task. ``max_side``: the longer side of the strip's screens in
    pixels; ``max_tiles``: at most this many steps per strip (the first and last ones); ``quality``: JPEG.
    An episode folder that cannot be read is listed with the reason instead of failing the report.
    """
    if max_side < 16 or max_tiles < 2:
        raise ValueError(f"max_side must be >= 16 and max_tiles >= 2; got {max_side}, {max_tiles}")
    run = Path(run_dir)
    out = Path(out_html) if out_html is not None else run / "report.html"
    has_view = (run / "view.html").exists()
    episodes, records, unreadable = _episodes(
        run, task_platforms, _Thumbs(max_side, quality), max_tiles, has_view
    )
    by_platform = metrics_by_platform(records, task_platforms) if records else {}
    counts = {p: {reason: 0 for reason in TERMINATION_REASONS} for p in PLATFORMS}
    for e in episodes:
        if e["record"] is not None:
            counts[e["platform"]][e["record"].termination_reason] += 1
    missing = plots.missing_matplotlib()
    figures = _figures(episodes, counts, by_platform) if missing is None else []
    settings: dict[str, Any] = {}
    for name in ("collect.json", "metrics.json"):
        try:
            data = json.loads((run / name).read_text(encoding="utf-8"))
            settings.update(data if isinstance(data, dict) else {})
        except (OSError, json.JSONDecodeError):
            pass
    html = _template().render(
        title=title,
        run_dir=str(run),
        settings={
            k: settings.get(k)
            for k in ("agent", "env_id", "episodes_per_task", "seed", "num_envs")
            if settings.get(k) is not None
        },
        metrics=[_metrics_row(p, m) for p, m in by_platform.items()],
        repeated=any(m.k > 1 for m in by_platform.values()),
        asked=any(m.questions for m in by_platform.values()),
        failure_reasons=FAILURE_REASONS,
        tasks=_task_rows(records, task_platforms),
        episodes=episodes,
        unreadable=unreadable,
        figures=figures,
        missing_plots=missing,
        has_view=has_view,
        max_tiles=max_tiles,
        num=_num,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out

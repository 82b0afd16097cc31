"""The report's plots, drawn with matplotlib (the ``plots`` extra) as PNG data URLs.

Each function takes plain numbers (no env, no episode files) and returns a :class:`Plot`. Figures are built
with ``matplotlib.figure.Figure`` and the Agg canvas, never pyplot, so no GUI backend or global state is
touched. Without matplotlib, :func:`missing_matplotlib` says why, and the report shows that sentence instead.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crab_gym.core.metrics import TERMINATION_REASONS

__all__ = [
    "PLATFORM_COLORS",
    "Plot",
    "cr_over_steps",
    "cr_per_task",
    "missing_matplotlib",
    "pass_k_curves",
    "termination_by_platform",
    "tokens_per_episode",
]

PLATFORM_COLORS = {"desktop": "#0969da", "android": "#1a7f37", "cross-device": "#8250df"}
REASON_COLORS = {
    "success": "#1a7f37",
    "false_completion": "#bf8700",
    "step_limit": "#8c959f",
    "invalid_action_limit": "#cf222e",
    "env_error": "#6639ba",
    "agent_error": "#e16f24",
}
DPI = 100
MAX_TASK_ROWS = 60  # CR per task: beyond this many tasks, the lowest-CR ones are shown


@dataclass(frozen=True)
class Plot:
    """One figure: ``key`` names it in the page, ``url`` is its PNG data URL, or None with ``note`` saying
    why there is nothing to draw."""

    key: str
    title: str
    url: str | None
    note: str = ""


def missing_matplotlib() -> str | None:
    """None when matplotlib can be imported, else a sentence for the page saying how to get the plots."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    except ImportError as e:
        return (
            f"The plots are missing: matplotlib cannot be imported here ({e}). "
            "Install the plots extra (pip install 'crab-gym[plots]') and write the report again."
        )
    return None


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _style(ax: Any) -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="x", color="#eaeef2")
    ax.set_axisbelow(True)


def _platform_legend(fig: Any, platforms: set[str]) -> None:
    """A legend of the platforms' colours above the axes."""
    from matplotlib.patches import Patch

    handles = [Patch(color=c, label=p) for p, c in PLATFORM_COLORS.items() if p in platforms]
    fig.legend(handles=handles, loc="outside upper center", ncols=3, fontsize=7, frameon=False)


def cr_per_task(rows: Sequence[tuple[str, str, float, bool]]) -> Plot:
    """Mean completion ratio per task (a bar each, coloured by platform); ``rows`` holds one
    (task id, platform, CR, success) per episode. The share of successful episodes is written beside."""
    title = "Completion ratio per task"
    if not rows:
        return Plot("cr_per_task", title, None, "no episodes")
    tasks: dict[str, list[tuple[str, float, bool]]] = {}
    for task, platform, cr, success in rows:
        tasks.setdefault(task, []).append((platform, cr, success))
    stats = [(t, v[0][0], sum(c for _, c, _ in v) / len(v), sum(ok for *_, ok in v) / len(v))
             for t, v in tasks.items()]  # fmt: skip
    stats.sort(key=lambda s: (s[2], s[0]))
    note = ""
    if len(stats) > MAX_TASK_ROWS:
        note = f"the {MAX_TASK_ROWS} tasks with the lowest CR of {len(stats)}"
        stats = stats[:MAX_TASK_ROWS]
    fig = _figure(6.4, 0.9 + 0.24 * len(stats))
    ax = fig.add_subplot()
    y = range(len(stats))
    ax.barh(y, [s[2] for s in stats], color=[PLATFORM_COLORS.get(s[1], "#57606a") for s in stats])
    for i, (_, _, cr, sr) in enumerate(stats):
        ax.text(min(cr, 1.0) + 0.01, i, f"{cr:.2f} (SR {sr:.0%})", va="center", fontsize=7, color="#57606a")
    ax.set_yticks(list(y), [s[0] for s in stats], fontsize=7)
    ax.set_xlim(0, 1.25)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel("mean completion ratio")
    _platform_legend(fig, {s[1] for s in stats})
    _style(ax)
    return Plot("cr_per_task", title, _png(fig), note)


def termination_by_platform(counts: Mapping[str, Mapping[str, int]]) -> Plot:
    """How episodes ended, per platform: one stacked bar of episode counts by termination reason
    (success included); ``counts`` maps platform to reason to count."""
    title = "Termination reasons per platform"
    platforms = [p for p, c in counts.items() if sum(c.values())]
    if not platforms:
        return Plot("termination", title, None, "no episodes")
    fig = _figure(6.4, 1.0 + 0.45 * len(platforms))
    ax = fig.add_subplot()
    left = [0] * len(platforms)
    for reason in TERMINATION_REASONS:
        widths = [counts[p].get(reason, 0) for p in platforms]
        if not any(widths):
            continue
        ax.barh(platforms, widths, left=left, color=REASON_COLORS[reason], label=reason)
        for i, w in enumerate(widths):
            if w:
                ax.text(left[i] + w / 2, i, str(w), ha="center", va="center", fontsize=8, color="white")
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("episodes")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    _style(ax)
    return Plot("termination", title, _png(fig))


def cr_over_steps(curves: Sequence[tuple[str, Sequence[float]]]) -> Plot:
    """Completion ratio after each step, one line per episode coloured by platform; ``curves`` holds one
    (platform, [CR at reset, after step 1, ...]) per recorded episode."""
    title = "Completion ratio against steps"
    curves = [(p, list(c)) for p, c in curves if c]
    if not curves:
        return Plot("cr_over_steps", title, None, "no recorded steps")
    fig = _figure(6.4, 3.2)
    ax = fig.add_subplot()
    jitter = 0.012  # lines that coincide (many episodes end at CR 1) stay visible side by side
    for i, (platform, values) in enumerate(curves):
        offset = ((i % 5) - 2) * jitter
        color = PLATFORM_COLORS.get(platform, "#57606a")
        ax.plot(range(len(values)), [v + offset for v in values], color=color, alpha=0.65, linewidth=1.4,
                marker="o", markersize=2.5, drawstyle="steps-post")  # fmt: skip
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("step (0: reset)")
    ax.set_ylabel("completion ratio")
    ax.xaxis.get_major_locator().set_params(integer=True)
    _platform_legend(fig, {p for p, _ in curves})
    _style(ax)
    ax.grid(axis="y", color="#eaeef2")
    return Plot("cr_over_steps", title, _png(fig))


def tokens_per_episode(rows: Sequence[tuple[str, int | None, bool]]) -> Plot:
    """Model tokens spent per episode (green: succeeded, red: failed); ``rows`` holds one
    (episode label, tokens or None, success) per episode. Episodes without a token count are left out."""
    title = "Tokens per episode"
    counted = [(label, int(t), ok) for label, t, ok in rows if t is not None]
    if not counted:
        return Plot("tokens", title, None, "no episode reported tokens (the agent calls no model)")
    fig = _figure(6.4, 0.9 + 0.22 * len(counted))
    ax = fig.add_subplot()
    y = range(len(counted))
    ax.barh(y, [t for _, t, _ in counted], color=["#1a7f37" if ok else "#cf222e" for *_, ok in counted])
    ax.set_yticks(list(y), [label for label, *_ in counted], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("tokens (all of the agent's model calls)")
    _style(ax)
    note = ""
    if len(counted) < len(rows):
        note = f"{len(rows) - len(counted)} episodes without a token count are left out"
    return Plot("tokens", title, _png(fig), note)


def pass_k_curves(curves: Mapping[str, Mapping[str, Sequence[float]]]) -> Plot:
    """pass@k (solid) and pass^k (dashed) against k, one colour per platform (overall in grey); ``curves``
    maps a platform to ``{"pass^k": [k=1, 2, ...], "pass@k": [...]}`` (``Metrics.pass_curve``)."""
    title = "pass@k and pass^k against k"
    drawn = {p: c for p, c in curves.items() if c.get("pass^k") and c.get("pass@k")}
    if not drawn:
        return Plot("pass_k", title, None, "no task ran more than one episode")
    fig = _figure(6.4, 3.2)
    ax = fig.add_subplot()
    for platform, c in drawn.items():
        color = PLATFORM_COLORS.get(platform, "#57606a")
        ks = range(1, len(c["pass@k"]) + 1)
        ax.plot(ks, c["pass@k"], color=color, marker="o", markersize=3, label=f"{platform} pass@k")
        ax.plot(ks, c["pass^k"], color=color, marker="o", markersize=3, linestyle="--",
                label=f"{platform} pass^k")  # fmt: skip
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("k (episodes per task)")
    ax.set_ylabel("share of tasks")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    _style(ax)
    ax.grid(axis="y", color="#eaeef2")
    return Plot("pass_k", title, _png(fig))

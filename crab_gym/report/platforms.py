"""The CRAB paper's metrics per platform: desktop, Android, cross-device, and overall."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence

from rich.console import Console
from rich.table import Table

from crab_gym.core.metrics import FAILURE_REASONS, EpisodeRecord, Metrics, aggregate

PLATFORMS = ("desktop", "android", "cross-device")


def platform_of(platforms: Sequence[str]) -> str:
    """The platform of a task from the devices it touches (``Task.platforms``)."""
    devices = set(platforms) - {"root"}
    if devices >= {"ubuntu", "android"}:
        return "cross-device"
    return "android" if "android" in devices else "desktop"


def metrics_by_platform(
    records: Iterable[EpisodeRecord], task_platforms: Mapping[str, Sequence[str]]
) -> dict[str, Metrics]:
    """Metrics over each platform's episodes (platforms without episodes are left out), then ``overall``.
    ``task_platforms`` maps a task id to its devices; an unknown task id is a KeyError naming it."""
    records = list(records)
    groups: dict[str, list[EpisodeRecord]] = {}
    for r in records:
        if r.task_id not in task_platforms:
            raise KeyError(f"task {r.task_id!r} of an episode record is not among the tasks given")
        groups.setdefault(platform_of(task_platforms[r.task_id]), []).append(r)
    out = {p: aggregate(groups[p]) for p in PLATFORMS if p in groups}
    if records:
        out["overall"] = aggregate(records)
    return out


def platform_table(
    by_platform: Mapping[str, Metrics], title: str = "crab-gym results", width: int = 120
) -> str:
    """One row per platform (the paper's table shape): episodes, SR, CR, EE, CE, then pass^k and pass@k
    when tasks ran k > 1 episodes, questions and extra questions per episode when any was asked, then the
    shares of failure reasons."""
    table = Table(title=title)
    repeated = any(m.k > 1 for m in by_platform.values())
    pass_columns: tuple[str, ...] = ("k", "pass^k", "pass@k") if repeated else ()
    asked = any(m.questions for m in by_platform.values())
    if asked:
        pass_columns += ("questions", "extra questions")
    for column in ("platform", "episodes", "SR", "CR", "EE", "CE", *pass_columns, *FAILURE_REASONS):
        table.add_column(column, justify="left" if column == "platform" else "right")
    for name, m in by_platform.items():
        cells = [name, str(m.n), f"{m.SR:.1%}", f"{m.CR:.1%}", f"{m.EE:.4f}"]
        cells.append("n/a" if m.CE is None else f"{m.CE:.3g}")
        if repeated:
            cells += [str(m.k), f"{m.pass_hat_k:.1%}", f"{m.pass_at_k:.1%}"]
        if asked:
            cells += [f"{m.questions:.2f}", f"{m.extra_questions:.2f}"]
        table.add_row(*cells, *(f"{m.termination_shares.get(r, 0.0):.0%}" for r in FAILURE_REASONS))
    buffer = io.StringIO()
    width += 12 * len(pass_columns)  # room for the optional columns, so no heading is cut
    Console(file=buffer, width=width, color_system=None, force_terminal=False).print(table)
    return buffer.getvalue()

"""Several evaluation runs side by side: one row per run and platform (the shape of the paper's Table 3)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from crab_gym.core.metrics import FAILURE_REASONS


def load_run_metrics(run: str | os.PathLike[str]) -> dict[str, Any]:
    """A run's ``metrics.json`` (from ``crab-gym eval``); ValueError naming the file if it is unusable."""
    path = Path(run) / "metrics.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read the run's metrics ({e})") from None
    if not isinstance(data, dict) or "SR" not in data:
        raise ValueError(f"{path}: field 'SR' missing: not written by crab-gym eval")
    return data


def compare_table(runs: list[str], width: int = 140) -> str:
    """A table with one row per run and platform: SR, CR, EE, CE, pass^k and pass@k (when a run has tasks
    with k > 1 episodes) and the shares of failure reasons."""
    table = Table(title="crab-gym runs compared")
    loaded = [(run, load_run_metrics(run)) for run in runs]
    repeated = any(m.get("k", 1) > 1 for _, d in loaded for m in (d.get("platforms") or {"": d}).values())
    pass_columns = ("k", "pass^k", "pass@k") if repeated else ()
    for column in ("run", "agent", "platform", "episodes", "SR", "CR", "EE", "CE", *pass_columns,
                   *FAILURE_REASONS):  # fmt: skip
        table.add_column(column, justify="left" if column in ("run", "agent", "platform") else "right")
    for run, data in loaded:
        platforms = data.get("platforms") or {"overall": data}
        for name, m in platforms.items():
            ce = m.get("CE")
            shares = m.get("termination_shares", {})
            cells = [Path(run).name, str(data.get("agent", "")), name, str(m["n"])]
            cells += [
                f"{m['SR']:.1%}",
                f"{m['CR']:.1%}",
                f"{m['EE']:.4f}",
                "n/a" if ce is None else f"{ce:.3g}",
            ]
            if repeated:
                k = m.get("k", 1)
                cells += [str(k), f"{m.get('pass_hat_k', m['SR']):.1%}", f"{m.get('pass_at_k', m['SR']):.1%}"]
            table.add_row(*cells, *(f"{shares.get(r, 0.0):.0%}" for r in FAILURE_REASONS))
    buffer = io.StringIO()
    width += 12 * len(pass_columns)  # room for the pass^k columns, so no heading is cut
    Console(file=buffer, width=width, color_system=None, force_terminal=False).print(table)
    return buffer.getvalue()

"""Validation marks: players rate a task "fair" or "unclear" with a note; one JSON line per mark.

The marks live in ``<out>/marks.jsonl`` next to the recorded demonstrations; ``crab-gym review`` (or
``crab-gym tasks review``) lists them per task.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MARKS_FILE", "VERDICTS", "TaskReview", "append_mark", "format_review", "load_marks", "summarize"]

MARKS_FILE = "marks.jsonl"
VERDICTS = ("fair", "unclear")
MAX_NOTE = 2000

_lock = threading.Lock()


def append_mark(
    out_dir: str | os.PathLike[str],
    task_id: str,
    verdict: str,
    note: str = "",
    episode_id: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Append one mark to ``<out_dir>/marks.jsonl`` and return it; ValueError for a bad verdict or note."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}; got {verdict!r}")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise ValueError(f"the note must be text of at most {MAX_NOTE} characters")
    mark: dict[str, Any] = {
        "task_id": task_id,
        "verdict": verdict,
        "note": note.strip(),
        "episode_id": episode_id,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **extra,
    }
    path = Path(out_dir) / MARKS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(mark, ensure_ascii=False) + "\n"
    with _lock, open(path, "a", encoding="utf-8") as f:  # one write per line: appends never interleave
        f.write(line)
    return mark


def load_marks(out_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every mark in ``<out_dir>/marks.jsonl``, oldest first (no file: none; malformed lines skipped)."""
    path = Path(out_dir) / MARKS_FILE
    if not path.exists():
        return []
    marks = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            mark = json.loads(line)
        except ValueError:
            continue  # a line cut by a killed writer
        if isinstance(mark, dict) and isinstance(mark.get("task_id"), str):
            if mark.get("verdict") in VERDICTS:
                marks.append(mark)
    return marks


@dataclass
class TaskReview:
    """The marks of one task: how many fair and unclear, and the notes with their verdicts."""

    task_id: str
    fair: int = 0
    unclear: int = 0
    notes: list[tuple[str, str]] = field(default_factory=list)  # (verdict, note)
    last: str = ""  # time of the latest mark


def summarize(marks: Iterable[Mapping[str, Any]]) -> list[TaskReview]:
    """Per task, in order of first mark: counts and notes."""
    by_task: dict[str, TaskReview] = {}
    for m in marks:
        r = by_task.setdefault(m["task_id"], TaskReview(m["task_id"]))
        if m["verdict"] == "fair":
            r.fair += 1
        else:
            r.unclear += 1
        if m.get("note"):
            r.notes.append((m["verdict"], str(m["note"])))
        r.last = max(r.last, str(m.get("time") or ""))
    return list(by_task.values())


def format_review(marks: list[dict[str, Any]], unclear_only: bool = False) -> str:
    """The marks as text: one line per task (fair and unclear counts, latest mark), its notes indented."""
    reviews = summarize(marks)
    if unclear_only:
        reviews = [r for r in reviews if r.unclear]
    if not reviews:
        return "no marks yet" if not marks else "no task was marked unclear"
    width = max(len(r.task_id) for r in reviews)
    lines = [f"{'task':<{width}}  fair  unclear  last mark"]
    for r in reviews:
        lines.append(f"{r.task_id:<{width}}  {r.fair:>4}  {r.unclear:>7}  {r.last}")
        lines += [f"    {verdict}: {note}" for verdict, note in r.notes]
    fair = sum(r.fair for r in reviews)
    unclear = sum(r.unclear for r in reviews)
    lines.append(f"{len(reviews)} tasks, {fair} fair and {unclear} unclear marks")
    return "\n".join(lines)

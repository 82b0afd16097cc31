"""The eval progress bar shows the success rate and completion ratio of the episodes finished so far, and
each finished episode is reported with its completion ratio."""

from __future__ import annotations

import json
import re

from crab_gym.runs.eval import run_eval


def test_progress_bar_shows_live_sr_and_cr(tmp_path, capsys):
    seen: list[dict] = []
    tasks = ["camera_take_photo-0", "clock_set_alarm-0"]  # the alarm needs 7 steps: cut at 5 with CR 0
    run_eval(tmp_path, "Crab-Android-v0", ("android",), "oracle", tasks, max_steps=5, on_episode=seen.append,
             view=False)  # fmt: skip
    bar = capsys.readouterr().out
    assert re.search(r"2/2 .* SR 50%\s+CR 50%", bar), bar
    records = {
        r["task_id"]: r for r in map(json.loads, (tmp_path / "records.jsonl").read_text().splitlines())
    }
    assert sorted((e["task_id"], e["completion_ratio"], e["success"]) for e in seen) == sorted(
        (t, r["completion_ratio"], r["success"]) for t, r in records.items()
    )

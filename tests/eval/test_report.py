"""report.html of real evaluation runs, opened in headless Chromium (Debian's, through Playwright): the
metrics tables, the four plots decoded as images, a strip of screens per recorded episode; no external
URL; the page without matplotlib; unreadable episode folders and given-up jobs listed, long strips cut."""

from __future__ import annotations

import base64
import io
import json
import shutil
import sys
from html import unescape

import pytest
from eval_support import LLM_TASKS, ORACLE_TASKS
from PIL import Image

from crab_gym.episode.format import episode_dirs, load_episode
from crab_gym.report.page import write_report

PLOTS = ["cr_per_task", "termination", "cr_over_steps", "tokens"]

DOM = """() => ({
  metrics: [...document.querySelectorAll("#metrics tbody tr")].map(r =>
      [...r.querySelectorAll("td")].map(td => td.textContent.trim())),
  tasks: [...document.querySelectorAll("#tasks tbody tr")].map(r => r.dataset.task),
  episodes: [...document.querySelectorAll("#episodes tbody tr")].map(r =>
      [...r.querySelectorAll("td")].map(td => (td.querySelector(".reason") ?? td).textContent.trim())),
  errors: [...document.querySelectorAll("#episodes .error-text")].map(e => e.textContent),
  plots: [...document.querySelectorAll("figure.plot")].map(f => ({key: f.dataset.plot,
      natural: [...f.querySelectorAll("img")].map(i => i.naturalWidth),
      note: f.querySelector(".note")?.textContent ?? null})),
  strips: [...document.querySelectorAll("section.episode")].map(s => ({id: s.dataset.episode,
      view: s.querySelector("h3 a")?.getAttribute("href") ?? null,
      tiles: [...s.querySelectorAll(".tile")].map(t => ({kind: t.dataset.kind, t: Number(t.dataset.t),
          text: t.textContent, img: t.querySelector("img") ? [t.querySelector("img").naturalWidth,
          t.querySelector("img").naturalHeight, t.querySelector("img").src.slice(0, 22)] : null}))})),
  urls: [...document.querySelectorAll("[src], [href]")].map(e =>
      e.getAttribute("src") ?? e.getAttribute("href")),
})"""


def open_report(page, html, shot):
    page.goto(html.resolve().as_uri())
    page.wait_for_function("[...document.images].every(i => i.complete)", timeout=20_000)
    page.screenshot(path=str(shot), full_page=True)
    assert Image.open(shot).height > 900  # the whole page, longer than the viewport
    return page.evaluate(DOM)


def records(run) -> dict[str, dict]:
    return {r["task_id"]: r for r in map(json.loads, (run / "records.jsonl").read_text().splitlines())}


def check_common(dom, run) -> None:
    metrics = json.loads((run / "metrics.json").read_text())
    rows = {r[0]: r for r in dom["metrics"]}
    assert list(rows) == ["android", "overall"]
    assert rows["overall"][1:4] == [str(metrics["n"]), f"{metrics['SR']:.1%}", f"{metrics['CR']:.1%}"]
    by_id = {r[0]: r for r in dom["episodes"]}
    folders = [p.name for p in episode_dirs(run)]
    assert sorted(by_id) == sorted(folders)
    for task, rec in records(run).items():
        row = by_id[f"{task}-e0"]
        assert row[1] == task and row[3] == ("yes" if rec["success"] else "no")
        assert row[4] == f"{rec['completion_ratio']:.2f}" and row[9] == rec["termination_reason"]
    assert [p["key"] for p in dom["plots"]] == PLOTS
    for p in dom["plots"][:3]:
        assert len(p["natural"]) == 1 and p["natural"][0] > 300, p  # decoded PNGs
    assert [s["id"] for s in dom["strips"]] == folders
    for strip in dom["strips"]:
        ep = load_episode(run / strip["id"])
        assert strip["view"] == f"view.html#ep-{folders.index(strip['id'])}" and (run / "view.html").exists()
        steps = [t for t in strip["tiles"] if t["kind"] == "step"]
        assert [t["t"] for t in steps] == list(range(1, len(ep.steps)))
        for tile in strip["tiles"]:
            if tile["img"]:
                w, h, head = tile["img"]
                assert 0 < max(w, h) <= 320 and head == "data:image/jpeg;base64"
        assert any(t["img"] for t in strip["tiles"] if t["kind"] == "end")  # the final screen
        for tile in steps:
            step = ep.steps[tile["t"]]
            readable = step.get("readable")
            if readable and readable["device"] == "android":
                assert tile["img"] and f"android.{readable['action']}(" in tile["text"]
            if step.get("invalid_action"):
                assert "invalid: " in tile["text"] and not tile["img"]
    for url in dom["urls"]:  # self-contained: data URLs, anchors, view.html beside it
        assert url.startswith(("data:image/", "#", "view.html")), url


def test_report_in_headless_chromium(oracle_run, llm_run, chromium, tmp_path):
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    try:
        dom = open_report(page, oracle_run / "report.html", tmp_path / "oracle_report.png")
        check_common(dom, oracle_run)
        assert [r[0] for r in dom["episodes"]] == sorted(f"{t}-e0" for t in ORACLE_TASKS)
        assert dom["tasks"] == sorted(ORACLE_TASKS)
        assert {r[9] for r in dom["episodes"]} == {"success", "step_limit"}
        assert dom["plots"][3]["natural"] == [] and "no episode reported tokens" in dom["plots"][3]["note"]
        alarm = next(s for s in dom["strips"] if s["id"] == "clock_set_alarm-0-e0")
        assert len(alarm["tiles"]) == 5 + 1 and "ended: step_limit" in alarm["tiles"][-1]["text"]
        assert "Not yet: an alarm at 19:45" in alarm["tiles"][0]["text"]  # the evaluator's feedback
        camera = next(s for s in dom["strips"] if s["id"] == "camera_take_photo-0-e0")
        assert "every check passed" in camera["tiles"][-1]["text"]

        run, _ = llm_run
        dom = open_report(page, run / "report.html", tmp_path / "llm_report.png")
        check_common(dom, run)
        assert dom["tasks"] == sorted(LLM_TASKS)
        assert {r[9] for r in dom["episodes"]} == {"false_completion", "agent_error"}
        assert len(dom["errors"]) == 1 and "400" in dom["errors"][0]  # the API error that ended it
        tokens = {r[0]: r[8] for r in dom["episodes"]}
        assert tokens == {f"{t}-e0": str(r["tokens"]) for t, r in records(run).items()}
        assert dom["plots"][3]["natural"][0] > 300  # tokens per episode drawn
        overall = next(r for r in dom["metrics"] if r[0] == "overall")
        assert overall[5] != "n/a"  # CE
        camera = next(s for s in dom["strips"] if s["id"] == "camera_take_photo-0-e0")
        assert [t["kind"] for t in camera["tiles"]] == ["step", "step", "end"]
        assert "rejected call" in camera["tiles"][0]["text"]
        assert (
            "root.complete()" in camera["tiles"][1]["text"]
            and "ended: false_completion" in camera["tiles"][2]["text"]
        )
    finally:
        page.close()


def test_report_says_so_when_matplotlib_is_missing(oracle_run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now raises ImportError
    html = write_report(oracle_run, {t: ("android",) for t in ORACLE_TASKS}, out_html=tmp_path / "r.html")
    text = unescape(html.read_text())
    assert 'id="no-plots"' in text and "pip install 'crab-gym[plots]'" in text
    assert "data:image/png" not in text and 'id="metrics"' in text and "data:image/jpeg" in text


def test_unreadable_folders_given_up_jobs_and_long_strips(oracle_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(oracle_run, run)
    (run / "notes_delete-0-e0" / "episode.json").write_text("{")
    alarm = load_episode(run / "clock_set_alarm-0-e0")
    (alarm.path / alarm.steps[0]["screens"]["android"]).write_bytes(b"garbage")  # the first screen
    lines = (alarm.path / "steps.jsonl").read_text().splitlines()
    lines[-1] = json.dumps({**json.loads(lines[-1]), "screens": "garbage", "feedback": 7})
    (alarm.path / "steps.jsonl").write_text("\n".join(lines) + "\n")
    with open(run / "failed.jsonl", "a") as f:
        f.write("not json\n")
        f.write(json.dumps({"episode_id": "camera_take_photo-0-e1", "task_id": "camera_take_photo-0",
                            "seed": 1, "error": "EOFError: the worker died"}) + "\n")  # fmt: skip
    html = unescape(write_report(run, {t: ("android",) for t in ORACLE_TASKS}, max_tiles=2).read_text())
    assert "notes_delete-0-e0/episode.json: not valid JSON" in html
    row = html[html.index('<tr data-episode="camera_take_photo-0-e1">') :]
    row = row[: row.index("</tr>")]
    assert "env_error" in row and "EOFError: the worker died" in row
    assert "… 3 steps not shown" in html  # the alarm episode's 5 steps: the first, a gap, the last
    assert "cannot read the stored array" in html  # its first screen, shown as missing
    with pytest.raises(ValueError, match="max_tiles"):
        write_report(run, {}, max_tiles=1)
    with pytest.raises(KeyError, match="camera_take_photo-0"):
        write_report(run, {"clock_set_alarm-0": ("android",)})


def test_strip_images_are_small_jpegs(oracle_run):
    html = (oracle_run / "report.html").read_text()
    jpegs = [u.split('"')[0] for u in html.split('src="data:image/jpeg;base64,')[1:]]
    assert jpegs
    for data in jpegs:
        image = Image.open(io.BytesIO(base64.b64decode(data)))
        assert image.format == "JPEG" and max(image.size) <= 320
    assert len(html) < 400_000  # 3 episodes, 14 screens

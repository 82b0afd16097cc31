"""The HTML viewer: pages of recorded runs opened in headless Chromium (Playwright), checked through the DOM
and the pixels of the embedded frames; the drawing functions on synthetic frames."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from crab_gym.episode import load_episodes
from crab_gym.episode.draw_actions import ARROW_COLOR, DOT_COLOR, MARK_COLOR, draw_action, draw_marks
from crab_gym.episode.view import write_view

# Per episode section, per card: kind, t, caption texts and each frame's key, device, size and src.
DOM_DUMP = """() => [...document.querySelectorAll("section.episode")].map(s => ({
  id: s.dataset.episode,
  instruction: s.querySelector(".instruction").textContent,
  curve: [...s.querySelectorAll("svg.curve circle")].map(c => Number(c.dataset.cr)),
  cards: [...s.querySelectorAll("article.card")].map(c => ({
    kind: c.dataset.kind, t: Number(c.dataset.t), invalid: c.classList.contains("invalid"),
    action: c.querySelector(".action")?.textContent ?? null,
    toolcall: c.querySelector(".toolcall")?.textContent ?? null,
    numbers: c.querySelector(".numbers").textContent,
    reason: c.querySelector(".invalid-reason")?.textContent ?? null,
    nodes: [...c.querySelectorAll("li.node")].map(n => n.className),
    frames: [...c.querySelectorAll("img.frame")].map(i => ({
      key: i.dataset.frame, device: i.dataset.device, acted: i.dataset.acted === "true",
      natural: [i.naturalWidth, i.naturalHeight], src: i.src})),
  })),
}))"""


def color_near(pixel, color, tol: int) -> bool:
    return all(abs(int(a) - int(b)) <= tol for a, b in zip(pixel, color, strict=False))


def changed(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> float:
    """The fraction of the pixels in ``where`` that differ clearly between two frames."""
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2)[where] > 40).mean())


def decode(src: str) -> np.ndarray:
    head, data = src.split(",", 1)
    assert head in ("data:image/jpeg;base64", "data:image/png;base64"), head
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))


@pytest.fixture(scope="module")
def page(chromium):
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    yield page
    page.close()


def open_view(page, html, shot):
    """Load the page, wait for every image, save a full-page screenshot; returns the DOM dump."""
    page.goto(html.resolve().as_uri())
    page.wait_for_function("[...document.images].every(i => i.complete)", timeout=20_000)
    page.screenshot(path=str(shot), full_page=True)
    assert Image.open(shot).height > 900  # longer than the viewport: the whole page was captured
    return page.evaluate(DOM_DUMP)


def check_episode(ep, sec, max_side: int) -> None:
    """A section shows every recorded screen (one card per step plus the end), loaded and downscaled, with
    the step's action, reward, CR and node states."""
    assert sec["instruction"] == ep.meta["instruction"]
    devices = ep.devices
    assert [c["kind"] for c in sec["cards"]] == ["step"] * (len(ep.steps) - 1) + ["end"]
    assert sum(len(c["frames"]) for c in sec["cards"]) == len(ep.steps) * len(devices)
    assert sec["curve"] == pytest.approx([s["completion_ratio"] for s in ep.steps], abs=1e-4)
    for card in sec["cards"]:
        assert [f["device"] for f in card["frames"]] == devices
        for f in card["frames"]:
            w, h = f["natural"]
            assert w > 0 and h > 0 and max(w, h) == max_side  # loaded, downscaled from 1080x2400
        if card["kind"] == "end":
            assert not any(f["acted"] for f in card["frames"])
            continue
        step = ep.steps[card["t"]]
        assert f"CR {step['completion_ratio']:.2f}" in card["numbers"]
        assert f"reward {step['reward']:.2f}" in card["numbers"]
        assert card["nodes"] == [f"node {n['status']}" for n in step["nodes"]]
        readable = step.get("readable")
        if readable is None:
            assert card["invalid"] and card["reason"] == f"invalid: {step['invalid_action']}"
            assert not any(f["acted"] for f in card["frames"])
            continue
        assert card["action"].startswith(f"{readable['device']}.{readable['action']}(")
        params = readable["params"]
        if "text" in params:
            assert params["text"] in card["action"]
        if "point" in params:
            x, y = params["point"]
            assert f"point=[{x:.3f}, {y:.3f}]" in card["action"]
        assert [f["acted"] for f in card["frames"]] == [d == readable["device"] for d in devices]


def test_phone_run_view(phone_run, page, tmp_path):
    html = write_view(phone_run, tmp_path / "phone.html", max_side=360)
    eps = list(load_episodes(phone_run))
    dom = open_view(page, html, tmp_path / "phone_view.png")

    rows = page.eval_on_selector_all(
        "#summary tbody tr",
        "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent.trim()))",
    )
    assert [r[1] for r in rows] == [ep.id for ep in eps]
    for row, ep in zip(rows, eps, strict=True):
        rec = ep.meta["record"]
        assert row[2:] == [ep.meta["task_id"], "yes" if rec["success"] else "no",
                           f"{rec['completion_ratio']:.2f}", str(len(ep.steps) - 1),
                           rec["termination_reason"], "complete"]  # fmt: skip
    assert {r[6] for r in rows} == {"success", "step_limit"}

    assert [s["id"] for s in dom] == [ep.id for ep in eps]
    for ep, sec in zip(eps, dom, strict=True):
        check_episode(ep, sec, max_side=360)

    # Identical frames are embedded once: every data URL occurs once in the file, fewer than the <img>s.
    text = html.read_text(encoding="utf-8")
    imgs = [f for sec in dom for c in sec["cards"] for f in c["frames"]]
    assert text.count("data:image/jpeg;base64,") == len({f["src"] for f in imgs}) < len(imgs)
    assert not re.search(r"<img[^>]* src=", text)  # sources come from the one map, not inline copies

    # The tap dot is drawn where the normalised point says, on the screen the tap acted on.
    ep, sec = eps[0], dom[0]
    taps = [
        c for c in sec["cards"] if c["kind"] == "step" and ep.steps[c["t"]]["readable"]["action"] == "tap"
    ]
    assert taps
    for card in taps:
        x, y = ep.steps[card["t"]]["readable"]["params"]["point"]
        frame = decode(card["frames"][0]["src"])
        h, w = frame.shape[:2]
        px, py = round(x * w), round(y * h)
        assert color_near(frame[py, px], DOT_COLOR, 40), (card["t"], frame[py, px])
        before, after = (
            np.asarray(Image.fromarray(ep.screen(t, "android")).resize((w, h), Image.Resampling.BILINEAR))
            for t in (card["t"] - 1, card["t"])
        )
        assert not color_near(before[py, px], DOT_COLOR, 60)  # the colour is the drawing's, not the app's
        far = np.ones((h, w), bool)
        far[max(0, py - 30) : py + 30, max(0, px - 30) : px + 30] = False
        # Away from the dot the frame is the screen the tap acted on, not the one it led to.
        assert changed(frame, before, far) < 0.01
        assert changed(frame, before, far) < changed(frame, after, far)


def test_marked_run_view(marked_run, page, tmp_path):
    html = write_view(marked_run, tmp_path / "marked.html", image_format="png")
    (ep,) = load_episodes(marked_run)
    (sec,) = open_view(page, html, tmp_path / "marked_view.png")
    check_episode(ep, sec, max_side=480)
    assert html.read_text(encoding="utf-8").count("data:image/jpeg") == 0

    # The malformed call is shown as sent, flagged invalid; tool-call text accompanies readable actions.
    first = sec["cards"][0]
    assert first["invalid"] and "element" in first["reason"] and first["action"] == ep.steps[1]["action"]
    assert all(c["toolcall"] and '"name"' in c["toolcall"] for c in sec["cards"][1:-1])
    assert sum(c["invalid"] for c in sec["cards"]) == 1

    # The marks the agent saw are outlined: the bottom edge of each box of the final screen (no action
    # drawn over it) is in the mark colour, and those pixels are not that colour in the raw screen.
    end = sec["cards"][-1]
    frame = decode(end["frames"][0]["src"])
    h, w = frame.shape[:2]
    raw = ep.screen(len(ep.steps) - 1, "android")
    s = w / raw.shape[1]
    marks = ep.steps[-1]["marks"]["android"]
    assert len(marks) >= 5
    for m in marks:
        x1, _, x2, y2 = m["box"]
        xm, ym = round((x1 + x2) / 2 * s), min(round(y2 * s), h - 1)
        strip = frame[max(0, ym - 1) : ym + 2, xm]
        assert any(color_near(p, MARK_COLOR, 0) for p in strip), (m, strip)


def test_draw_action_shapes():
    """Each kind of action lands where its parameters say, on a copy of the frame."""
    blank = Image.new("RGB", (200, 400), (255, 255, 255))

    tap = np.asarray(
        draw_action(blank, {"device": "android", "action": "tap", "params": {"point": [0.25, 0.75]}})
    )
    assert color_near(tap[300, 50], DOT_COLOR, 0) and color_near(tap[100, 150], (255, 255, 255), 0)
    assert np.asarray(blank).min() == 255  # the input is untouched

    swipe = {"device": "android", "action": "swipe", "params": {"direction": "up", "distance": "long"}}
    up = np.asarray(draw_action(blank, swipe))
    assert color_near(up[int(400 * (0.5 - 0.45)) + 6, 100], ARROW_COLOR, 0)  # the head, 0.45 of the height up
    assert color_near(up[260, 100], (255, 255, 255), 0)  # nothing below the centre

    drag = {"device": "ubuntu", "action": "drag", "params": {"start": [0.2, 0.2], "end": [0.8, 0.2]}}
    dr = np.asarray(draw_action(blank, drag))
    assert color_near(dr[80, 100], ARROW_COLOR, 0) and color_near(dr[320, 100], (255, 255, 255), 0)

    typed = np.asarray(
        draw_action(blank, {"device": "android", "action": "write_text", "params": {"text": "hi"}})
    )
    assert typed[380:395].mean() < 150 and typed[:300].min() == 255  # a dark caption box at the bottom only

    assert np.array_equal(np.asarray(draw_action(blank, None)), np.asarray(blank))
    boxed = np.asarray(draw_marks(blank, [{"id": 7, "box": [100, 200, 300, 600]}], scale=(0.5, 0.5)))
    assert color_near(boxed[300, 100], MARK_COLOR, 0) and color_near(boxed[250, 100], (255, 255, 255), 0)

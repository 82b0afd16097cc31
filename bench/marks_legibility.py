"""How many mark numbers Tesseract reads back from marked frames (prints figures, asserts nothing).

Frames: the desktop after reset (the panel) and with the text editor open; the phone's launcher and its
Contacts list. Each frame is marked by SetOfMarks (tree + region detector) and read at full size and
downscaled to 1280 and 1024 px on the longer side (:mod:`crab_gym.wrappers.mark_legibility`).

Run: .venv/bin/python bench/marks_legibility.py [--save DIR]
     (--save writes DIR/desktop-marked.png and DIR/phone-marked.png, downscaled to 1024 px)
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np
from PIL import Image

import crab_gym  # noqa: F401
from crab_gym.wrappers import SetOfMarks
from crab_gym.wrappers.mark_legibility import downscale, read_tags
from crab_gym.wrappers.marks import Mark

SIZES = (None, 1280, 1024)


def desktop_scenes() -> list[tuple[str, np.ndarray, list[Mark]]]:
    env = SetOfMarks(gym.make("Crab-Desktop-v0", tasks="v0"))
    try:
        obs, _ = env.reset(seed=0, options={"task": "vim_write_file-0"})
        out = [("desktop after reset", obs["ubuntu"]["screen"], env.marks["ubuntu"])]
        obs, *_ = env.step(env.encode_action("ubuntu", "search_application", {"name": "text editor"}))
        out.append(("desktop, text editor", obs["ubuntu"]["screen"], env.marks["ubuntu"]))
        return out
    finally:
        env.close()


def phone_scenes() -> list[tuple[str, np.ndarray, list[Mark]]]:
    env = SetOfMarks(gym.make("Crab-Android-v0", tasks="v0"))
    try:
        task = next(t for t in env.unwrapped.task_ids() if t.startswith("contacts_"))
        obs, _ = env.reset(seed=0, options={"task": task})
        out = [("phone launcher", obs["android"]["screen"], env.marks["android"])]
        contacts = next(m for m in env.marks["android"] if m.name == "Contacts")
        obs, *_ = env.step(env.encode_action("android", "tap", {"element": contacts.id}))
        out.append(("phone Contacts", obs["android"]["screen"], env.marks["android"]))
        return out
    finally:
        env.close()


def main(argv: list[str]) -> None:
    save = argv[argv.index("--save") + 1] if "--save" in argv else None
    scenes = desktop_scenes() + phone_scenes()
    totals: dict[int | None, list[int]] = {s: [0, 0] for s in SIZES}
    t0 = time.perf_counter()
    for name, frame, marks in scenes:
        cells = []
        for size in SIZES:
            rb = read_tags(frame, marks, size)
            ok = round(rb.share * len(marks))
            totals[size][0] += ok
            totals[size][1] += len(marks)
            wrong = f" misread {rb.misread()}" if rb.misread() else ""
            cells.append(f"{rb.long_side} px: {ok}/{len(marks)}{wrong}")
        print(f"{name:22s} " + "; ".join(cells))
    print(
        "all frames: "
        + "; ".join(
            f"{'full' if s is None else s} {ok}/{n} ({ok / max(n, 1):.0%})" for s, (ok, n) in totals.items()
        )
        + f"  (OCR {time.perf_counter() - t0:.1f} s)"
    )
    if save:
        for stem, (_, frame, _) in (("desktop", scenes[1]), ("phone", scenes[3])):
            img = Image.fromarray(downscale(frame, 1024)).quantize(256, dither=Image.Dither.NONE)
            img.save(f"{save}/{stem}-marked.png", optimize=True)
            print(f"saved {save}/{stem}-marked.png ({img.size[0]}x{img.size[1]})")


if __name__ == "__main__":
    main(sys.argv[1:])

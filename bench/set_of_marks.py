"""Set-of-Marks time per frame per source (prints figures, asserts nothing).

- tree: the phone's uiautomator dump (in-process simulated phone, home screen and Contacts) and the desktop's
  AT-SPI tree (mousepad, a GTK3 app; LibreOffice Calc, a big tree);
- detector: the weight-free region detector on a 1080x2400 phone frame and a 1280x800 desktop frame;
- ocr: each installed engine on the 1280x800 desktop frame (a fresh frame each time: the cache is bypassed);
- merge + draw of all sources.

Run: .venv/bin/python bench/set_of_marks.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from crab_gym.envs.android import AndroidEnv
from crab_gym.envs.desktop import DesktopEnv
from crab_gym.ocr import ENGINES
from crab_gym.wrappers.marks import Candidate, draw, merge
from crab_gym.wrappers.regions import detect_regions


def timed(fn: Callable[[], object], n: int) -> float:
    xs = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        xs.append(time.perf_counter() - t)
    return statistics.median(xs) * 1000


def main(n: int = 5) -> None:
    phone = AndroidEnv("sim")
    phone.reset(0)

    def phone_tree() -> object:
        phone.invalidate_state()
        return phone.ui_elements()

    print(f"tree, phone home screen (uiautomator):   {timed(phone_tree, n * 4):7.1f} ms")
    phone.launch("com.android.contacts")
    print(f"tree, phone Contacts (uiautomator):      {timed(phone_tree, n * 4):7.1f} ms")
    pframe = phone.screenshot()
    print(f"detector, phone frame 1080x2400:         {timed(lambda: detect_regions(pframe), n):7.1f} ms")
    desk = DesktopEnv()
    desk.reset()
    for app, label in (("text editor", "mousepad, GTK3"), ("calc", "LibreOffice Calc")):
        desk.reset()
        desk.launch_from_launcher(app)
        desk.settle(quiet=0.3)

        def desk_tree() -> object:
            desk.invalidate_state()
            return desk.ui_elements()

        desk_tree()  # the in-session agent starts on first use
        print(f"tree, desktop {label + ' (AT-SPI):':26s} {timed(desk_tree, n):7.1f} ms")
    frame = desk.screenshot()
    print(f"detector, desktop frame 1280x800:        {timed(lambda: detect_regions(frame), n):7.1f} ms")
    for name in ENGINES:
        try:
            engine = ENGINES[name]()
        except ImportError as e:
            print(f"ocr {name:12s} not installed ({e.name})")
            continue
        engine(frame)  # model load
        print(f"ocr {name:12s} desktop 1280x800:      {timed(lambda e=engine: e(frame), n) / 1000:7.2f} s")
    cands = [Candidate(e.box, e.role, e.name, e.source) for e in desk.ui_elements()]
    cands += [Candidate(b, "region", "", "detector") for b in detect_regions(frame)]
    ms = timed(lambda: draw(frame, merge(cands, (1280, 800))), n)
    print(f"merge + draw, {len(cands)} candidates:          {ms:7.1f} ms")
    desk.close()
    phone.close()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))

"""The phone's Chrome: what a page load and a browser step cost beside an ordinary app step (prints figures,
asserts nothing).

- first page load: the phone's own web server starting (uvicorn, TLS, a fresh CA) plus the fetch;
- page load: a link tapped on an open page (HTTPS fetch, parse, layout, History row, redraw);
- browser step: a scroll of the loaded page (layout cached, the viewport redrawn), full-size frame;
- app step: Contacts, a tap on a contact and back (the baseline), full-size frame.
The three kinds run in alternating windows in the same process; medians and the ratio to the app step.

Run: .venv/bin/python bench/phone_browser.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.apps.chrome import navigate


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(rounds: int = 20) -> None:
    phone = Phone(seed=0)
    phone.shell("am start -n com.android.chrome/com.google.android.apps.chrome.Main")
    first = timed(lambda: (navigate(phone, "https://en.wikipedia.org/"), phone.screenshot()))
    print(f"first page load (own web server start + fetch + draw)   {first * 1000:8.1f} ms")
    loads, scrolls, app = [], [], []
    for _ in range(rounds):
        for _ in range(5):
            loads.append(
                timed(lambda: (navigate(phone, "https://en.wikipedia.org/wiki/Kenya"), phone.screenshot()))
            )
            phone.back()
            phone.screenshot()
        phone.shell("am start -n com.android.chrome/com.google.android.apps.chrome.Main")
        for k in range(10):
            dy = 300 if k % 2 == 0 else -300
            scrolls.append(timed(lambda dy=dy: (phone.swipe(540, 1500, 540, 1500 - dy), phone.screenshot())))
        phone.shell("am start -n com.android.contacts/.activities.PeopleActivity")
        for _ in range(5):
            app.append(timed(lambda: (phone.tap(540, 500), phone.screenshot())))
            app.append(timed(lambda: (phone.back(), phone.screenshot())))
    base = statistics.median(app)
    kinds = (
        ("page load (link: fetch + layout + draw)", loads),
        ("browser step (scroll + draw)", scrolls),
        ("app step (Contacts tap/back + draw)", app),
    )
    for name, xs in kinds:
        med = statistics.median(xs)
        p90 = sorted(xs)[int(0.9 * len(xs))]
        print(f"{name:55s} median {med * 1000:7.2f} ms  p90 {p90 * 1000:7.2f} ms  x{med / base:5.2f}")
    phone.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)

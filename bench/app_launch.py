"""What starting an app costs a desktop session: seconds from the launch to its window and until it settles
(drawn, idle), and the memory (PSS) the session's processes and the X server gain; GIMP beside Mousepad as
the baseline, launches alternating, each from a fresh reset (prints only).

Run: .venv/bin/python bench/app_launch.py [--rounds N] [--apps gimp text_editor]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import pss_mb  # noqa: E402

from crab_gym.envs.desktop import DesktopEnv  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--apps", nargs="+", default=["text_editor", "gimp"])
    args = ap.parse_args()
    env = DesktopEnv()
    env.reset()
    xvfb = env.session._xvfb.pid  # the X server holds the pixels of each window
    window: dict[str, list[float]] = {a: [] for a in args.apps}
    seconds: dict[str, list[float]] = {a: [] for a in args.apps}
    added: dict[str, list[float]] = {a: [] for a in args.apps}
    try:
        for _ in range(args.rounds):
            for app in args.apps:  # alternating: both see the same machine load
                env.reset()
                env.settle(quiet=0.5, timeout=10)
                before = pss_mb([*env.session.session_pids(), xvfb])
                t0 = time.monotonic()
                env.open_app(app)
                window[app].append(time.monotonic() - t0)
                env.settle(quiet=0.5, timeout=30)
                seconds[app].append(time.monotonic() - t0)
                added[app].append(pss_mb([*env.session.session_pids(), xvfb]) - before)
    finally:
        env.close()
    base = args.apps[0]
    for app in args.apps:
        s, m = statistics.median(seconds[app]), statistics.median(added[app])
        ratio = s / statistics.median(seconds[base])
        w = statistics.median(window[app])
        print(
            f"{app:12s} window {w:5.2f} s, settled {s:5.2f} s ({ratio:4.1f}x {base}), "
            f"memory added {m:6.1f} MB PSS"
        )


if __name__ == "__main__":
    main()

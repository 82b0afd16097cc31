"""The launcher under load: how often ``search_application`` opens the app asked for (prints only).

Each round resets the desktop, drops the kernel's page cache (needs root; skipped otherwise) and launches
an app through rofi while a CPU hog runs on every core and a loop writes and fsyncs 200 MB files: the
conditions under which rofi's default lazy keyboard grab lost the typed name. A launch counts as right when
it opened a window whose title names the app.

Run: .venv/bin/python bench/launcher_load.py [--launches N]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import crab_gym  # noqa: F401

QUERIES = {"text editor": "Mousepad", "terminal": "Terminal", "writer": "LibreOffice Writer"}


def _drop_caches() -> bool:
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return False
    return True


def _load(folder: str) -> list[subprocess.Popen]:
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    io = f"while :; do dd if=/dev/zero of={folder}/io bs=1M count=200 conv=fsync 2>/dev/null; done"
    return [*hogs, subprocess.Popen(["bash", "-c", io])]


def main(launches: int) -> None:
    env = gym.make("Crab-Desktop-v0", tasks="v0", max_steps=10**9)
    desk = env.unwrapped.subenvs["ubuntu"]
    outcomes: collections.Counter[str] = collections.Counter()
    right, dropped, times = 0, 0, []
    with tempfile.TemporaryDirectory() as folder:
        load = _load(folder)
        try:
            for i in range(launches):
                query = list(QUERIES)[i % len(QUERIES)]
                env.reset(seed=i)
                dropped += _drop_caches()
                t = time.perf_counter()
                outcome = desk.launch_from_launcher(query)
                times.append(time.perf_counter() - t)
                win = desk.x.active_window()
                title = win.title if win is not None else ""
                ok = outcome == "window" and QUERIES[query] in title
                right += ok
                outcomes[outcome if ok else f"{outcome}: {title or 'no window'}"] += 1
        finally:
            for p in load:
                p.kill()
                p.wait()
            env.close()
    print(f"{right} of {launches} launches opened the app asked for (a CPU hog per core, an fsync loop)")
    print(f"page cache dropped before {dropped} of {launches} launches")
    print(f"launch time, median / max: {sorted(times)[len(times) // 2]:.2f} s / {max(times):.2f} s")
    for what, n in outcomes.most_common():
        print(f"  {n:3d}  {what}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=30)
    main(ap.parse_args().launches)

"""What the offline web costs a desktop session (prints figures, asserts nothing).

- start: XvfbSession.start() with the web (CA and leaf certificate, certutil into two NSS databases, the
  server's sockets in the namespace) and without it (CRAB_GYM_WEB=0), alternating.
- reset: XvfbSession.reset() of a session with the web and of one without, in alternating windows (the web
  itself is kept across resets; what a reset pays is HOME's larger copy with the browser profiles).
- step: a click on a page + settle + screenshot with Firefox (then Chromium) showing a stand-in page,
  against the same with the text editor open, in alternating windows of the same run.
- memory: the env process's RSS before and after starting the server and serving every site once (in a
  fresh interpreter), and the browsers' own memory (PSS, summed over their processes) on one page.

Run: PYTHONPATH=. .venv/bin/python bench/web.py [--resets N] [--steps N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from crab_gym.envs.desktop import DesktopEnv
from crab_gym.envs.desktop.backends.xvfb import XvfbSession

MS = 1000.0
MEMORY = r"""
import http.client, socket, ssl, tempfile
from pathlib import Path
def rss():
    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS')) / 1024
import crab_gym.envs.desktop  # the env process has this loaded anyway
r0 = rss()
from crab_gym.web.server import WebServer
from crab_gym.web.app import HOSTS
s = WebServer(0, Path(tempfile.mkdtemp()) / 'tls'); s.start()
ctx = ssl.create_default_context(cafile=str(s.certs.ca_pem))
paths = {'www.google.com': ['/search?q=tokyo', '/search?q=tokyo&tbm=isch', '/maps/dir/Zurich/Munich'],
         'en.wikipedia.org': ['/wiki/Japan'], 'github.com': ['/search?q=pytorch'],
         'encrypted-tbn0.gstatic.com': ['/images/tokyo-1.png'], 'arxiv.org': ['/pdf/1.pdf']}
for host in HOSTS:
    for path in paths.get(host, ['/']):
        c = http.client.HTTPConnection(host)
        c.sock = ctx.wrap_socket(socket.create_connection(('127.0.0.1', s.https_port)), server_hostname=host)
        c.request('GET', path, headers={'Host': host}); c.getresponse().read()
print(f'{r0:.1f} {rss():.1f}')
s.stop()
"""


def med(xs: list[float]) -> float:
    return statistics.median(xs) * MS


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def start_session(web: bool) -> tuple[XvfbSession, float]:
    os.environ["CRAB_GYM_WEB"] = "1" if web else "0"
    s = XvfbSession(size=(1280, 800))
    took = timed(s.start)
    os.environ.pop("CRAB_GYM_WEB")
    return s, took


def bench_start_and_reset(rounds: int, resets: int) -> None:
    starts: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for web in (True, False):
            s, took = start_session(web)
            starts[web].append(took)
            s.close()
    with_web, without = start_session(True)[0], start_session(False)[0]
    try:
        assert with_web.web is not None and without.web is None, "the web needs root (namespaces)"
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(rounds):  # alternating windows
            for web, s in ((True, with_web), (False, without)):
                times[web] += [timed(s.reset) for _ in range(resets)]
        print(f"start   with web {med(starts[True]):7.1f} ms   without {med(starts[False]):7.1f} ms"
              f"   added {med(starts[True]) - med(starts[False]):6.1f} ms")  # fmt: skip
        w, wo = med(times[True]), med(times[False])
        print(
            f"reset   with web {w:7.1f} ms   without {wo:7.1f} ms   added {w - wo:6.1f} ms",
            f"  ratio {w / wo:.3f}",
        )
        t = timed(lambda: with_web.web.set_seed(7))  # type: ignore[union-attr]  # asserted above
        print(f"reseed  a new world's sites at reset: {t * MS:.2f} ms")
    finally:
        with_web.close()
        without.close()


def pss_mb(session: XvfbSession, names: tuple[str, ...]) -> float:
    total = 0
    for p in session.processes():
        if any(n in p.name for n in names):
            try:
                with open(f"/proc/{p.pid}/smaps_rollup") as f:
                    total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
            except (OSError, StopIteration):
                pass
    return total / 1024


def bench_steps(steps: int, rounds: int) -> None:
    desk = DesktopEnv(size=(1280, 800))
    desk.reset()
    try:
        click = desk.action("click")

        def step(i: int) -> None:
            desk.execute(click, {"point": (0.3 + 0.4 * (i % 2), 0.6)})
            desk.settle()
            desk.screenshot()

        def window(setup) -> list[float]:
            desk.reset()
            setup()
            desk.settle(quiet=0.5, timeout=20)
            for i in range(3):
                step(i)
            return [timed(lambda i=i: step(i)) for i in range(steps)]

        session = desk.session
        assert isinstance(session, XvfbSession) and session.web is not None
        page = session.web.world.countries[0].url
        for browser, names in (("firefox", ("firefox",)), ("chromium", ("chromium",))):
            b, e = [], []
            for _ in range(rounds):
                b += window(lambda br=browser: desk.open_app(br, page))
                e += window(lambda: desk.open_app("text_editor"))
            p90 = sorted(b)[int(0.9 * len(b))] * MS
            print(f"step    {browser:8s} {med(b):7.1f} ms (p90 {p90:.1f})   text editor {med(e):7.1f} ms"
                  f"   ratio {med(b) / med(e):.2f}")  # fmt: skip
            desk.reset()
            desk.open_app(browser, page)
            desk.settle(quiet=1.0, timeout=30)
            print(
                f"memory  {browser} on one page: {pss_mb(session, names):.0f} MB PSS (the app, not the web)"
            )
    finally:
        desk.close()


def bench_memory() -> None:
    out = subprocess.run([sys.executable, "-c", MEMORY], capture_output=True, text=True, timeout=120)
    before, after = map(float, out.stdout.split())
    print(f"memory  env process RSS {before:.1f} -> {after:.1f} MB: the web adds {after - before:.1f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resets", type=int, default=5)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    bench_memory()
    bench_start_and_reset(a.rounds, a.resets)
    bench_steps(a.steps, a.rounds)


if __name__ == "__main__":
    main()

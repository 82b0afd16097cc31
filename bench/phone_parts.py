"""The simulated phone's parts, timed (prints figures, asserts nothing): each app's render (tree + frame),
screencap PNG encoding, the uiautomator dump, Phone-level steps/s and reset, and round trips through a real
adb server (the adb binary, a raw smart socket, adbutils) when `adb` is installed. bench/android_step.py
times the same phone through the env.

Run: .venv/bin/python bench/phone_parts.py [--steps 500]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import subprocess
import time

from crab_gym.envs.android.sim import Phone, PhoneServer

APPS = [
    "com.android.contacts",
    "com.google.android.apps.messaging",
    "com.android.settings",
    "com.google.android.deskclock",
    "com.google.android.keep",
    "com.google.android.calendar",
]


def _ms(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1000


def report(label: str, value: float, unit: str) -> None:
    print(f"{label:50s} {value:8.2f} {unit}")


def bench_in_process(steps: int) -> None:
    p = Phone()
    for pkg in [None, *APPS]:
        if pkg:
            p.launch(pkg)

        def full() -> None:
            p.invalidate()
            p.screenshot()

        full()
        report(f"render {pkg or 'home'} (tree + frame)", _ms(full, 20), "ms")

    def png() -> None:
        p.invalidate()
        p.screencap_png()

    report("screencap -p (render + PNG encode)", _ms(png, 10), "ms")
    report("uiautomator xml (tree cached)", _ms(p.ui_xml, 50), "ms")
    p.reset()
    rng = random.Random(0)
    t = time.perf_counter()
    for i in range(steps):
        r = rng.random()
        if r < 0.7:
            p.tap(rng.uniform(0, p.width), rng.uniform(0, p.height))
        elif r < 0.8:
            p.swipe(540, 1800, 540, 900, 300)
        elif r < 0.9:
            p.text("abc")
        else:
            p.keyevent(rng.choice((3, 4)))
        p.screenshot()
        if i % 100 == 99:
            p.reset()
    report("in-process steps (random action + screenshot)", steps / (time.perf_counter() - t), "steps/s")

    def dirty_reset() -> None:
        p.launch("com.android.contacts")
        p.shell("echo x > /sdcard/x; content insert --uri content://sms --bind address:s:1 --bind body:s:b")
        t0 = time.perf_counter()
        p.reset()
        times.append(time.perf_counter() - t0)

    times: list[float] = []
    for _ in range(20):
        dirty_reset()
    report("reset (after a file and a row changed)", sum(times) / len(times) * 1000, "ms")
    p.close()


def bench_adb() -> None:
    adb = shutil.which("adb")
    if not adb:
        print("adb: not installed, skipped")
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([adb, "-P", str(port), *args], capture_output=True, env=env, timeout=30)

    phone = Phone()
    with PhoneServer(phone) as server:
        run("start-server")
        try:
            run("connect", server.serial)
            time.sleep(0.3)
            report(
                "adb binary: shell input tap (incl. process spawn)",
                _ms(lambda: run("-s", server.serial, "shell", "input tap 5 5"), 10),
                "ms",
            )
            report(
                "raw adb-server socket: shell:input tap",
                _ms(lambda: _raw_shell(port, server.serial), 30),
                "ms",
            )
            try:
                import adbutils
            except ImportError:
                return
            d = adbutils.AdbClient(host="127.0.0.1", port=port).device(server.serial)
            report("adbutils: shell input tap", _ms(lambda: d.shell("input tap 5 5"), 30), "ms")
            report("adbutils: shell2 v2 (exit code)", _ms(lambda: d.shell2("true", v2=True), 30), "ms")

            def step() -> None:
                d.shell("input swipe 540 1800 540 900 300")
                d.shell("screencap -p", encoding=None)

            report("adbutils: action + screencap -p (one step)", _ms(step, 10), "ms")
            report("adbutils: dump_hierarchy", _ms(d.dump_hierarchy, 10), "ms")
        finally:
            run("kill-server")
    phone.close()


def _raw_shell(port: int, serial: str, cmd: str = "input tap 5 5") -> bytes:
    """The adb server's smart-socket protocol by hand: what a thin client costs without adbutils' sleeps."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        for req in (f"host:transport:{serial}", f"shell:{cmd}"):
            s.sendall(b"%04x" % len(req) + req.encode())
            if s.recv(4) != b"OKAY":
                raise RuntimeError(f"adb server refused {req!r}")
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=500)
    a = ap.parse_args(argv)
    bench_in_process(a.steps)
    bench_adb()


if __name__ == "__main__":
    main()

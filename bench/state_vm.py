"""Saving and loading the VM desktop's state (libvirt: ``savevm`` / ``loadvm`` of an internal snapshot),
beside a reset (``loadvm`` of the pristine snapshot) as the baseline, in alternating windows (prints figures).

Needs the domain ``crab-gym vm create`` made (the ``vm`` test tier makes it). Says whether QEMU runs under KVM
or TCG (software emulation, where the target is 2 s).

Run: .venv/bin/python bench/state_vm.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time

from crab_gym.envs.desktop import DesktopEnv


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    desk = DesktopEnv("libvirt")
    times: dict[str, list[float]] = {"save": [], "load": [], "reset": []}
    try:
        desk.reset()
        session = desk.session
        assert session is not None
        print(f"domain {session.identity()}, {'KVM' if session.slowdown == 1.0 else 'TCG'}")
        desk.launch_from_launcher("terminal")
        desk.execute(desk.action("write_text"), {"text": "echo branch point\n"})
        desk.settle()
        for _ in range(rounds):
            t = time.perf_counter()
            state = desk.save_state()
            times["save"].append(time.perf_counter() - t)
            t = time.perf_counter()
            desk.reset()
            times["reset"].append(time.perf_counter() - t)
            t = time.perf_counter()
            desk.load_state(state)
            times["load"].append(time.perf_counter() - t)
    finally:
        desk.close()
    for name, xs in times.items():
        print(f"{name:>6}: median {statistics.median(xs):.2f} s  max {max(xs):.2f} s  (n={len(xs)})")
    total = statistics.median(times["save"]) + statistics.median(times["load"])
    print(f"save + load: {total:.2f} s; reset (baseline): {statistics.median(times['reset']):.2f} s")


if __name__ == "__main__":
    main()

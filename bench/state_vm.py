"""Saving and loading the VM desktop's state (libvirt: ``savevm`` / ``loadvm`` of an internal snapshot),
beside a reset (``loadvm`` of the pristine snapshot) as the baseline, in alternating windows (prints figures).

Needs the domain ``crab-gym vm create`` made (the ``vm`` test tier makes it). Says whether QEMU runs under KVM
or TCG (software emulation, where the target is 2 s), where the worker's disk is (the pool, or
``CRAB_GYM_VM_WORKER_DIR``, e.g. /dev/shm), the guest's memory in use and in its page cache, and the RAM a
snapshot holds (QEMU leaves zero pages out).

Run: .venv/bin/python bench/state_vm.py [rounds]
     CRAB_GYM_VM_WORKER_DIR=/dev/shm/crab-gym .venv/bin/python bench/state_vm.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
from xml.etree import ElementTree as ET

from crab_gym.envs.desktop import DesktopEnv
from crab_gym.vm.domain import hmp


def guest_memory(desk: DesktopEnv) -> str:
    """MemTotal - MemFree and the page cache, from the guest's /proc/meminfo (read by the probe)."""
    raw = desk.session.read_bytes("/proc/meminfo", 1 << 16)
    kb = {line.split(":")[0]: int(line.split()[1]) for line in (raw or b"").decode().splitlines()}
    used = (kb["MemTotal"] - kb["MemFree"]) / 1024
    return f"guest memory in use {used:.0f} MiB, of it page cache {kb['Cached'] / 1024:.0f} MiB"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    desk = DesktopEnv("libvirt")
    times: dict[str, list[float]] = {"save": [], "load": [], "reset": []}
    try:
        desk.reset()
        session = desk.session
        assert session is not None
        print(f"domain {session.identity()}, {'KVM' if session.slowdown == 1.0 else 'TCG'}")
        disk = ET.fromstring(session.dom.XMLDesc(0)).find("devices/disk/source")
        print(f"worker disk {disk.get('file') if disk is not None else '?'}")
        desk.launch_from_launcher("terminal")
        desk.execute(desk.action("write_text"), {"text": "echo branch point\n"})
        desk.settle()
        print(guest_memory(desk))
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
        print(hmp(session.dom, "info snapshots").strip())  # VM SIZE: the RAM each holds
    finally:
        desk.close()
    for name, xs in times.items():
        print(f"{name:>6}: median {statistics.median(xs):.2f} s  max {max(xs):.2f} s  (n={len(xs)})")
    total = statistics.median(times["save"]) + statistics.median(times["load"])
    print(f"save + load: {total:.2f} s; reset (baseline): {statistics.median(times['reset']):.2f} s")


if __name__ == "__main__":
    main()

"""Whether KVM can run our guest here, and /dev/kvm opened to the kvm group where no udev did it.

libvirt lists KVM wherever ``/dev/kvm`` exists, but a paravirtual ``/dev/kvm`` (some cloud machines) opens
fine and then never runs a guest's kernel: QEMU starts, SeaBIOS prints, the kernel never does. So ``auto``
boots the image's kernel under KVM for a few seconds and takes KVM only if the kernel prints its banner.
"""

from __future__ import annotations

import grp
import os
import select
import shutil
import stat
import subprocess
import time
from pathlib import Path

DEV_KVM = "/dev/kvm"
BANNER = b"Linux version"


def kvm_runs_guests(kernel: str | Path, timeout: float = 15.0) -> bool:
    """True if ``kernel`` prints its banner within ``timeout`` s under KVM (real KVM: about a second)."""
    return os.access(DEV_KVM, os.R_OK | os.W_OK) and kernel_boots(kernel, "kvm", timeout)


def kernel_boots(kernel: str | Path, accel: str, timeout: float) -> bool:
    """True if QEMU with ``-accel accel`` gets ``kernel`` to print its banner within ``timeout`` s."""
    qemu = shutil.which("qemu-system-x86_64")
    if qemu is None:
        return False
    cmd = [qemu, "-accel", accel, "-m", "128", "-display", "none", "-nodefaults", "-no-reboot",
           "-serial", "stdio", "-kernel", str(kernel), "-append", "console=ttyS0 panic=-1"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    seen, deadline = b"", time.monotonic() + timeout
    try:
        while BANNER not in seen:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                return False
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:  # QEMU exited (no KVM after all)
                return False
            seen = seen[-len(BANNER) :] + chunk
        return True
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def open_to_kvm_group() -> bool:
    """As root on a machine without udev: give ``/dev/kvm`` to the ``kvm`` group, mode 0660, as Debian's udev
    rule does. With ``/dev/kvm`` root-only, libvirtd (probing as root, running QEMU as libvirt-qemu) finds its
    QEMU capabilities stale on every lookup and re-probes forever, so a ``defineXML`` never returns. True if
    it changed anything."""
    if os.geteuid() != 0 or not os.path.exists(DEV_KVM):
        return False
    try:
        gid = grp.getgrnam("kvm").gr_gid
    except KeyError:
        return False
    st = os.stat(DEV_KVM)
    if st.st_gid == gid and stat.S_IMODE(st.st_mode) & 0o060 == 0o060:
        return False
    os.chown(DEV_KVM, -1, gid)
    os.chmod(DEV_KVM, stat.S_IMODE(st.st_mode) | 0o060)
    return True

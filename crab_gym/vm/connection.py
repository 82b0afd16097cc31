"""Opening libvirt connections, and the daemons on a machine without systemd.

No libvirt event loop is registered: every stream we use (the probe channel, screenshots, volume copies)
is a blocking one, read on a thread where needed. A registered loop does not survive a fork, and vector
envs fork their workers from a process that may already have used libvirt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from typing import Any

from crab_gym.vm.kvm import open_to_kvm_group

DEFAULT_URI = os.environ.get("CRAB_GYM_LIBVIRT_URI", "qemu:///system")
SYSTEM_SOCKET = "/run/libvirt/libvirt-sock"

_quiet = False


class VMError(RuntimeError):
    """libvirt or the guest refused or failed; the message says which call and why."""


def import_libvirt() -> Any:
    try:
        import libvirt
    except ImportError as e:
        raise VMError(
            "the libvirt backend needs libvirt-python (pip install 'crab-gym[vm]'; it builds against "
            "Debian's libvirt-dev and pkg-config)"
        ) from e
    return libvirt


def _quiet_errors() -> None:
    """Failed calls raise libvirtError with the message; without this, libvirt also prints each to stderr
    (every "does it exist yet?" lookup among them)."""
    global _quiet
    if not _quiet:
        import_libvirt().registerErrorHandler(lambda _ctx, _err: None, None)
        _quiet = True


def is_local_system(uri: str) -> bool:
    return uri in ("qemu:///system", "qemu+unix:///system")


def is_this_machine(uri: str) -> bool:
    """A URI without a host (``qemu:///system``, ``qemu:///session``): QEMU runs here."""
    return uri.split("://", 1)[-1].startswith("/")


def ensure_daemons(uri: str, timeout: float = 15.0) -> None:
    """On this machine without systemd, start ``virtlogd`` and ``libvirtd`` for ``qemu:///system`` if they are
    not running (as systemd's socket units would), with ``/dev/kvm`` open to the kvm group as udev would
    leave it. Other URIs are left alone."""
    if not is_local_system(uri):
        return
    open_to_kvm_group()  # what udev does on a machine that has it (as root only); before libvirtd probes QEMU
    if os.path.exists(SYSTEM_SOCKET) and _socket_answers(SYSTEM_SOCKET):
        return
    if os.geteuid() != 0:
        raise VMError(f"no libvirtd answers on {SYSTEM_SOCKET}; start it as root, or use qemu:///session")
    for daemon in ("virtlogd", "libvirtd"):
        if shutil.which(daemon) is None:
            raise VMError(f"{daemon} not found (Debian: libvirt-daemon-system, libvirt-daemon-driver-qemu)")
        if subprocess.run(["pgrep", "-x", daemon], capture_output=True).returncode != 0:
            subprocess.run([daemon, "-d"], check=True, timeout=timeout)
    deadline = time.monotonic() + timeout
    while not (os.path.exists(SYSTEM_SOCKET) and _socket_answers(SYSTEM_SOCKET)):
        if time.monotonic() > deadline:
            raise VMError(f"libvirtd started but {SYSTEM_SOCKET} does not answer after {timeout:.0f} s")
        time.sleep(0.1)


def _socket_answers(path: str) -> bool:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(path)
            return True
        except OSError:
            return False


def open_connection(uri: str = DEFAULT_URI) -> Any:
    """A read-write libvirt connection to ``uri`` (local or remote, e.g. ``qemu+ssh://host/system``)."""
    libvirt = import_libvirt()
    _quiet_errors()
    ensure_daemons(uri)
    try:
        conn = libvirt.open(uri)
    except libvirt.libvirtError as e:
        raise VMError(f"cannot connect to libvirt at {uri}: {e}") from e
    if conn is None:
        raise VMError(f"cannot connect to libvirt at {uri}")
    return conn

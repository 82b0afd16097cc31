"""Where a desktop session lives: a slot (a machine-wide file lock) gives it a display number, a system user
of its own (when we are root), a network namespace with only loopback, a mount namespace whose /etc/hosts
names the offline web (``session_web.py``), and a directory under ``RUN_ROOT``. Taking a slot first ends the
sessions whose owner died (``session_reap.py``) and starts the watcher that ends this one if its owner dies
(``session_watch.py``)."""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.session_reap import (
    PREFIX,
    Owner,
    clear_record,
    end_session,
    reap_orphans,
    write_record,
)
from crab_gym.envs.desktop.backends.session_watch import SessionWatch
from crab_gym.envs.desktop.backends.session_web import ensure_hosts_mntns
from crab_gym.envs.desktop.primitives.x11 import X11Display
from crab_gym.envs.slot_lock import SlotLock

RUN_ROOT = Path(os.environ.get("CRAB_GYM_RUNDIR", "/tmp/crab-gym"))
MAX_SLOTS = 64
FIRST_DISPLAY = 100


@dataclass(frozen=True)
class SessionUser:
    name: str
    uid: int
    gid: int
    dedicated: bool  # a user of its own (root mode) or the caller (unprivileged mode)


def _ensure_user(name: str) -> SessionUser:
    """A system user for one slot (created once, reused); the caller itself when not root."""
    if os.geteuid() != 0:
        pw = pwd.getpwuid(os.getuid())
        return SessionUser(pw.pw_name, pw.pw_uid, pw.pw_gid, dedicated=False)
    for attempt in range(20):
        try:
            pw = pwd.getpwnam(name)
            return SessionUser(name, pw.pw_uid, pw.pw_gid, dedicated=True)
        except KeyError:
            pass
        res = subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/bin/bash", name],
            capture_output=True,
            text=True,
        )
        if res.returncode not in (0, 9):  # 9: exists (a concurrent creator won)
            time.sleep(0.05 * (attempt + 1))  # /etc/passwd is locked by a concurrent useradd
    raise DeviceError(f"could not create session user {name!r}")


def _ensure_netns(name: str) -> str | None:
    """A network namespace with only loopback, for one slot (created once, reused): session processes
    reach neither the network nor the host's or other sessions' ports. None when namespaces cannot be
    made here (not root, no ``ip``/``nsenter``, no CAP_SYS_ADMIN): sessions then share the host's network."""
    ip, nsenter = shutil.which("ip") or "/usr/sbin/ip", shutil.which("nsenter")
    if os.geteuid() != 0 or not nsenter or not os.path.exists(ip):
        return None
    path = f"/run/netns/{name}"
    res = None
    if not os.path.exists(path):
        res = subprocess.run([ip, "netns", "add", name], capture_output=True, text=True)
    if os.path.exists(path):
        res = subprocess.run([ip, "-n", name, "link", "set", "lo", "up"], capture_output=True, text=True)
        if res.returncode == 0:
            return path
    why = res.stderr.strip() if res is not None else "?"
    warnings.warn(f"no network namespace {name} ({why}): its sessions share the host's network", stacklevel=3)
    return None


class Slot:
    """An exclusive (user, directory) pair, held by a file lock that is global to the machine.

    The locks live in one place whatever ``CRAB_GYM_RUNDIR`` says, because the users they hand out are
    machine-wide: two runs must never share a session user (a reset kills all of its processes).
    """

    def __init__(self) -> None:
        RUN_ROOT.mkdir(parents=True, exist_ok=True)
        reap_orphans()
        self._lock = SlotLock(PREFIX, range(MAX_SLOTS))
        if self._lock.index is None:
            raise DeviceError(f"no free desktop slot (all {MAX_SLOTS} are in use)")
        n = self.index = self._lock.index
        end_session(n)  # its owner died after reap_orphans() looked
        self.dir = RUN_ROOT / f"s{n}"
        self.token = secrets.token_hex(8)  # the session's marker value
        self.user = _ensure_user(f"crabgym-s{n}")
        write_record(n, Owner(os.getpid(), self.token, self.user.uid, self.user.dedicated, str(self.dir)))
        self.watch = SessionWatch(n, self.token)  # ends the session if this process dies before release()
        self.netns = _ensure_netns(f"crabgym-s{n}") if self.user.dedicated else None
        self.mntns = ensure_hosts_mntns(f"crabgym-s{n}") if self.netns else None

    def release(self) -> None:
        """Free the slot once its session is gone (idempotent)."""
        self.watch.stop()
        if self._lock.index is not None and self._lock.held:
            clear_record(self._lock.index)
        self._lock.release()


def display_accepts(number: int) -> bool:
    """True if an X server listens on display ``number``."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(X11Display.socket_path(number))
            return True
        except OSError:
            return False


def free_display(first: int) -> int:
    """A display number no X server uses: ``first``, or the next one a slot stride away.

    Leftovers of a dead server (a lock naming no live process, a socket nobody listens on) are removed.
    """
    n = first
    while True:
        if not display_accepts(n):
            lock, sock = Path(f"/tmp/.X{n}-lock"), Path(X11Display.socket_path(n))
            try:
                os.kill(int(lock.read_text().strip()), 0)  # a live server still starting: not free
            except (FileNotFoundError, ValueError, ProcessLookupError):
                try:
                    lock.unlink(missing_ok=True)
                    sock.unlink(missing_ok=True)
                    return n
                except PermissionError:
                    pass
            except PermissionError:
                pass
        n += MAX_SLOTS

"""Sessions whose owner died: found by a record beside the slot's lock, ended at the next slot allocation.

A slot's lock is an ``flock`` (``slot_lock.py``), which the kernel frees when its process dies, however it
dies; the session's processes (Xvfb, D-Bus, openbox, the panel, the apps) run in sessions of their own and
live on. So the owner writes a record next to the lock when it takes the slot (its pid, the session's user and
marker token, its directory) and removes it when it closes the session. A record whose lock nobody holds was
left by a process killed before it could close (SIGKILL, an interrupted run): the next slot allocation ends
that session's processes and removes its directory (:func:`reap_orphans`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from crab_gym.envs.desktop.primitives.procs import marker_pids, user_pids
from crab_gym.envs.slot_lock import SlotLock, lock_dir

MARKER = "CRAB_GYM_SESSION"  # in every session process's environment: MARKER=<the session's token>
WEB_MARKER = "CRAB_GYM_SESSION_WEB"  # in its web server's (session_web.py), which runs as the owner
PREFIX = "slot"  # the slots' lock names: slot<n>.lock, and their records slot<n>.owner


@dataclass(frozen=True)
class Owner:
    """Who holds a slot and what its session leaves on the machine."""

    pid: int
    token: str  # the session's marker value
    uid: int  # the session user
    dedicated: bool  # a user of its own: its processes are the session's
    dir: str  # the session's directory (HOME, its pristine copy, the run dir)

    def pids(self, exclude: set[int] | frozenset[int] = frozenset()) -> list[int]:
        """The session's live processes: by user when it has its own, else by marker; and its web server."""
        web = marker_pids(f"{WEB_MARKER}={self.token}".encode(), exclude)
        if self.dedicated:
            return user_pids(self.uid, exclude) + web
        return marker_pids(f"{MARKER}={self.token}".encode(), exclude) + web


def record_path(index: int) -> Path:
    return lock_dir() / f"{PREFIX}{index}.owner"


def write_record(index: int, owner: Owner) -> None:
    path = record_path(index)
    tmp = path.with_suffix(".owner.tmp")
    tmp.write_text(json.dumps(asdict(owner)))
    os.replace(tmp, path)  # a reader sees the old record or the new one, never half of one


def read_record(index: int) -> Owner | None:
    """The slot's owner record; None if there is none or it cannot be read (then it is removed)."""
    path = record_path(index)
    try:
        owner = Owner(**json.loads(path.read_text()))
        types = {"pid": int, "token": str, "uid": int, "dedicated": bool, "dir": str}
        if all(isinstance(getattr(owner, k), t) for k, t in types.items()):
            return owner
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError):
        pass
    path.unlink(missing_ok=True)
    return None


def clear_record(index: int) -> None:
    record_path(index).unlink(missing_ok=True)


def kill_all(
    pids: Callable[[], list[int]], each_round: Callable[[], None] = lambda: None, bound: float = 5.0
) -> None:
    """SIGKILL every process ``pids()`` names until it names none (a dying parent may have forked a child
    meanwhile), for at most ``bound`` seconds; ``each_round`` runs after each round (it waits on our
    children)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        alive = pids()
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        each_round()
        time.sleep(0.005)
    each_round()


def end_session(index: int) -> bool:
    """End the session recorded for slot ``index`` and remove its record: kill its processes and remove its
    directory. The caller holds the slot's lock. False if there was no record."""
    owner = read_record(index)
    if owner is None:
        return False
    kill_all(lambda: owner.pids({os.getpid()}))
    d = Path(owner.dir)
    if d.name == f"s{index}":  # a record names its own slot's directory; anything else is not ours to remove
        shutil.rmtree(d, ignore_errors=True)
    clear_record(index)
    return True


def reap_orphans() -> list[int]:
    """End the session of every slot whose record outlived its owner (the slot's lock is free); the slots
    whose sessions were ended."""
    ended = []
    for path in lock_dir().glob(f"{PREFIX}*.owner"):
        number = path.name[len(PREFIX) : -len(".owner")]
        if not number.isdigit():
            continue
        lock = SlotLock(PREFIX, [int(number)])
        if lock.index is None:  # its owner is alive (or another process is reaping it right now)
            continue
        try:
            if end_session(lock.index):
                ended.append(lock.index)
        finally:
            lock.release()
    return ended

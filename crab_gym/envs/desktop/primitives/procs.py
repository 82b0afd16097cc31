"""The processes of a desktop session, read from ``/proc``: which are the session's, their names and
command lines.

Guest-safe (stdlib only): the VM image ships this module to the probe agent, which reads the guest's
processes by the same rules as the xvfb backend reads this machine's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Process:
    pid: int
    name: str
    cmdline: tuple[str, ...]


def _zombie(pid: str) -> bool:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1][1:2] == b"Z"


def live_pids(mine: Callable[[str], bool], exclude: Collection[int] = ()) -> list[int]:
    """Processes for which ``mine(pid)`` holds, but those in ``exclude`` and zombies (already dead: their
    parent reaps them)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        try:
            if mine(entry) and not _zombie(entry):
                pids.append(int(entry))
        except OSError:  # gone since the listing, or not ours to read
            continue
    return pids


def user_pids(uid: int, exclude: Collection[int] = ()) -> list[int]:
    """Live processes of user ``uid``."""
    return live_pids(lambda pid: os.stat(f"/proc/{pid}").st_uid == uid, exclude)


def marker_pids(marker: bytes, exclude: Collection[int] = ()) -> list[int]:
    """Live processes whose environment holds the entry ``marker`` (b"NAME=value")."""

    def mine(pid: str) -> bool:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return marker in f.read().split(b"\0")

    return live_pids(mine, exclude)


def proc_name(pid: int) -> str:
    """The process's name (``comm``); "" once it is gone."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def process_table(pids: Collection[int]) -> list[Process]:
    """Name and command line of each live process of ``pids``."""
    out = []
    for pid in pids:
        try:
            name = proc_name(pid)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        out.append(Process(pid, name, tuple(c.decode(errors="replace") for c in cmd if c)))
    return out


def _stat_fields(pid: int | str) -> list[str]:
    """``/proc/PID/stat`` after the name: state, ppid, pgrp, session, tty_nr, tpgid, ..."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].decode().split()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            out += [int(c) for c in f.read().split()]
    return out


def shell_attached(pid: int) -> bool:
    """False while ``pid`` is a terminal emulator (it holds a pty master, ``/dev/ptmx``, open) with no child
    yet in the foreground of its own terminal (a shell that set up job control); True otherwise, also for a
    process that is no terminal or cannot be read.

    A terminal maps its window before its shell is spawned and attached, and VTE drops keys typed before
    that (they have no pty to go to), so a launch waits for this as well as for the window.
    """
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True
    if not any(_link(f"/proc/{pid}/fd/{fd}") == "/dev/ptmx" for fd in fds):
        return True
    try:
        for child in _children(pid):
            state, _, pgrp, _, tty, tpgid = _stat_fields(child)[:6]
            if state != "Z" and tty != "0" and tpgid == pgrp:
                return True
    except (OSError, ValueError):
        return True  # the terminal went away, or this kernel lists no children: nothing to wait for
    return False


def _link(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""

"""A desktop session ends by itself when its owner dies, however it dies (SIGKILL too), without waiting for
the next slot allocation's reap (``session_reap.py``).

The owner starts a *watcher* when it takes a slot: a process in a session of its own (a signal to the
owner's process group spares it) that waits on a pidfd of its owner. Once the owner has exited, the watcher
takes the slot's lock and ends the session recorded there if it is still its own (same token):
:func:`~session_reap.end_session`, as the reap would. A desktop that starts first reaps it itself (the lock
is free until the watcher is ready), and the watcher then finds the slot taken or the record gone. An owner
that closes its session stops its watcher first.

The watcher runs this file as a script, under ``python -I -S``: a few stdlib modules only until its owner is
gone (its start costs ~10 ms of CPU; it holds 9 MB RSS, 3.5 MB PSS), then it adds site-packages and imports
the reap from the same checkout (~0.5 s).
"""

from __future__ import annotations

import fcntl
import os
import select
import sys
import time
import warnings

# the folder that holds this crab_gym package: ROOT/crab_gym/envs/desktop/backends/session_watch.py (no
# pathlib, nor subprocess at the top: the watcher imports only what it needs)
ROOT = os.path.abspath(__file__).rsplit(os.sep, 5)[0]


class SessionWatch:
    """The watcher of one slot's session, started by its owner (this process)."""

    def __init__(self, index: int, token: str) -> None:
        import subprocess

        from crab_gym.envs.desktop.backends.session_reap import PREFIX
        from crab_gym.envs.slot_lock import lock_dir

        self.owner = os.getpid()
        self.proc: subprocess.Popen | None = None
        lock = lock_dir() / f"{PREFIX}{index}.lock"
        try:
            with open(lock.with_suffix(".watch.log"), "wb") as log:  # its traceback, if it fails
                self.proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", __file__, str(self.owner), str(index), token, str(lock)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    cwd="/",
                    start_new_session=True,
                )
        except OSError as e:  # no interpreter to run it (an embedded Python): the reap is left
            warnings.warn(f"no watcher for desktop slot {index} ({e}): if this process is killed, its "
                          "session runs until the next desktop start ends it", stacklevel=2)  # fmt: skip

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def stop(self) -> None:
        """End the watcher (the owner is closing the session itself); idempotent. A forked child of the owner
        leaves it alone: it watches the owner."""
        if self.proc is not None and os.getpid() == self.owner:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def wait_for_exit(pid: int) -> None:
    """Return once process ``pid`` (our parent) has exited."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:  # no pidfds here (an old kernel, a sandbox): ask who our parent is, five times a second
        while os.getppid() == pid:
            time.sleep(0.2)
        return
    # the pidfd names our owner if it was still our parent after we opened it (else it is gone already)
    if os.getppid() == pid:
        select.select([fd], [], [])  # readable once the process has exited
    os.close(fd)


def end_if_own(index: int, token: str, lock: str) -> bool:
    """End slot ``index``'s session if its record is still ours, holding its ``lock``; False if the lock is
    held (a new owner took the slot: its allocation reaped our session) or the record is another's or gone."""
    import site

    site.main()  # -S left site-packages out: crab_gym needs them
    sys.path.insert(0, ROOT)
    from crab_gym.envs.desktop.backends.session_reap import end_session, read_record

    fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        record = read_record(index)
        return record is not None and record.token == token and end_session(index)
    finally:
        os.close(fd)  # frees the lock


def main(argv: list[str]) -> None:
    owner, index, token, lock = int(argv[0]), int(argv[1]), argv[2], argv[3]
    wait_for_exit(owner)
    print("ended" if end_if_own(index, token, lock) else "left to its new owner", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

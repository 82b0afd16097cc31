"""Lines a task setup runs, run without the shell: what ``monkey -p PKG -c android.intent.category.LAUNCHER
1`` and ``settings put NS KEY VALUE`` return and do, with neither the interpreter nor the other commands
loaded (the first reset of an RL env's phone runs one). tests/envs/android/sim/test_sim_setup_without_shell.py
checks each against its shell line.
"""

from __future__ import annotations

from collections.abc import Callable

from ..shell.errors import failure
from . import monkey as am_monkey
from .providers import put_setting

__all__ = ["Result", "as_line", "monkey", "settings_put"]

Result = tuple[bytes, bytes, int]


def as_line(phone, name: str, run: Callable[[], Result]) -> Result:
    """``run()`` as the shell runs the command ``name`` alone on a line: the phone ticks first, file times
    are noted after, and an error is reported as the shell reports a command's (``shell.errors.failure``)."""
    with phone.lock:
        phone.tick()
        try:
            return run()
        except Exception as e:  # a bug in a command is that command's failure
            said, code = failure(name, e)
            return b"", f"{said}\n".encode() if said else b"", code
        finally:
            phone.fs.times.note()


def monkey(phone, package: str) -> Result:
    """``monkey -p PACKAGE -c android.intent.category.LAUNCHER 1``."""

    def run() -> Result:
        if not am_monkey.launch(phone, package):
            return b"", (am_monkey.NO_ACTIVITIES + "\n").encode(), am_monkey.EXIT_NO_ACTIVITIES
        return (am_monkey.report(package) + "\n").encode(), b"", 0

    return as_line(phone, "monkey", run)


def settings_put(phone, namespace: str, key: str, value: str) -> Result:
    """``settings put NAMESPACE KEY VALUE``."""

    def run() -> Result:
        put_setting(phone, namespace, key, value)
        return b"", b"", 0

    return as_line(phone, "settings", run)

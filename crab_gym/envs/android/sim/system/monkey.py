"""`monkey -p PKG -c android.intent.category.LAUNCHER 1`: start an app's launcher activity, as tapping its
icon does (the event count is not replayed). The shell's ``monkey`` (system/am.py) and
:meth:`~crab_gym.envs.android.sim.phone.Phone.monkey` (a task setup's launch, with no shell) both run it.
"""

from __future__ import annotations

from . import logcat
from .packages import is_enabled
from .registry import APPS, LAUNCHER, short

__all__ = ["EXIT_NO_ACTIVITIES", "NO_ACTIVITIES", "launch", "report"]

NO_ACTIVITIES = "** No activities found to run, monkey aborted."
EXIT_NO_ACTIVITIES = 252


def launch(phone, package: str) -> bool:
    """Start ``package``'s launcher activity; False (nothing started) for an unknown or disabled package, or
    the launcher itself."""
    if package not in APPS or package == LAUNCHER or not is_enabled(phone, package):
        return False
    app = APPS[package]
    logcat.expect_intent(
        phone,
        "act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 "
        f"cmp={short(package, app.activity(app.main))}",
        uid=0,
    )
    phone.launch(package)
    return True


def report(package: str) -> str:
    """What monkey prints once it started ``package``."""
    return f"  bash arg: -p\n  bash arg: {package}\nEvents injected: 1\n## Network stats: elapsed time=2ms"

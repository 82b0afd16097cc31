"""The Android sub-env ("android"): a phone reached in-process (the simulated phone) or through adb.

Backends (``AndroidEnv(backend=...)``):

- ``"sim"``: our simulated phone driven in-process, no adb server (the RL speed path).
- ``"adb:<serial>"``: any adb device — a USB phone, ``emulator-5554``, or ``127.0.0.1:PORT`` (adb connect).
  The adb server is the one on ANDROID_ADB_SERVER_PORT (default 5037), started if none answers.
- ``"adb-sim"``: our simulated phone served as an adb device from this process on a free port and driven
  through adb exactly like a real one (how the tests prove the adb path gives the same results).
- ``"androidenv"``: our simulated phone driven through a DeepMind AndroidEnv (its touch/lift actions, its
  pixels, its adb calls); needs ``pip install android-env``. See :mod:`crab_gym.envs.android.androidenv`.

Actions and checks go through the backend's primitive interface (:mod:`crab_gym.envs.android.device`), and
every state read is an adb shell command (:mod:`crab_gym.envs.android.state`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crab_gym.envs.android.subenv import BACKENDS, AndroidEnv, make_device

_LAZY = ("AndroidEnv", "BACKENDS", "make_device")


def __getattr__(name: str) -> Any:
    """``AndroidEnv``, ``BACKENDS`` and ``make_device`` (:mod:`crab_gym.envs.android.subenv`), imported when
    first asked for: the evaluators and task templates under this package need no simulated phone."""
    if name in _LAZY:
        from crab_gym.envs.android import subenv

        return getattr(subenv, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BACKENDS", "AndroidEnv", "make_device"]

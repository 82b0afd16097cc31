"""Phone.monkey and Phone.settings_put (a task setup's launch and setting, no shell) return and do what the
shell's lines do."""

from __future__ import annotations

import shlex

import numpy as np
import pytest

from crab_gym.envs.android.sim import Phone

LINE = "monkey -p {} -c android.intent.category.LAUNCHER 1"
DISABLED = "com.google.android.keep"


def _seen(phone: Phone) -> dict[str, object]:
    """What an agent, adb or a check could tell apart: screen, tree, activities, log, clock, file times."""
    shell = {
        c: phone.shell(c)[0] for c in ("dumpsys activity activities", "logcat -d", "date +%s", "ls -lR /data")
    }
    return {"screen": phone.screenshot().tobytes(), "xml": phone.ui_xml(), **shell}


@pytest.mark.parametrize(
    "steps",
    [
        ["com.android.settings"],
        [
            "com.google.android.dialer",
            "com.android.contacts",
            "com.google.android.dialer",
        ],  # back to the front
        ["com.google.android.apps.nexuslauncher"],  # the launcher has no launcher activity to start
        ["org.example.missing"],
        [DISABLED],
    ],
)
def test_monkey_without_the_shell_is_the_shell_line(steps):
    by_shell, direct = Phone(width=360, height=800, seed=3), Phone(width=360, height=800, seed=3)
    try:
        for p in (by_shell, direct):
            assert p.shell(f"pm disable-user {DISABLED}")[2] == 0
        for package in steps:
            assert direct.monkey(package) == by_shell.shell(LINE.format(package))
            assert _seen(direct) == _seen(by_shell)
    finally:
        by_shell.close()
        direct.close()


def test_a_started_app_is_in_front_and_a_refused_one_changes_nothing():
    phone = Phone(width=360, height=800, seed=0)
    try:
        home = phone.screenshot()
        assert phone.monkey("org.example.missing") == (
            b"",
            b"** No activities found to run, monkey aborted.\n",
            252,
        )
        assert np.array_equal(phone.screenshot(), home)
        out, err, code = phone.monkey("com.android.settings")
        assert (code, err) == (0, b"") and b"Events injected: 1" in out
        assert phone.current.package == "com.android.settings"
        assert not np.array_equal(phone.screenshot(), home)
    finally:
        phone.close()


@pytest.mark.parametrize(
    "args",
    [
        ("global", "wifi_on", "0"),
        ("secure", "ui_night_mode", "2"),
        ("system", "screen_brightness", "a value with spaces"),
        ("nowhere", "wifi_on", "1"),  # refused: no such namespace
    ],
)
def test_settings_put_without_the_shell_is_the_shell_line(args):
    by_shell, direct = Phone(width=360, height=800, seed=5), Phone(width=360, height=800, seed=5)
    try:
        for p in (by_shell, direct):
            assert p.monkey("com.android.settings")[2] == 0  # a screen that shows settings
        line = "settings put " + " ".join(shlex.quote(a) for a in args)
        assert direct.settings_put(*args) == by_shell.shell(line)
        assert _seen(direct) == _seen(by_shell)
        assert direct.shell(f"settings get {args[0]} {args[1]}") == by_shell.shell(
            f"settings get {args[0]} {args[1]}"
        )
    finally:
        by_shell.close()
        direct.close()

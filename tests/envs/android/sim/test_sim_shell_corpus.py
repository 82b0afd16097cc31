"""Command lines as widely used automation tools send them, run on the served phone through Debian's adb.

Each entry: the line (as the tool sends it), a regex its stdout must contain, and the exit status
`adb shell` reports (shell protocol v2 carries it). Sources: AndroidViewClient's dump, android_world's
adb_utils, adbutils' device helpers, uiautomator2/appium-style probes.
"""

from __future__ import annotations

import re

import pytest

CORPUS = [
    # AndroidViewClient (ViewClient.dump with uiautomator)
    (
        "cp /dev/null /sdcard/window_dump.xml && uiautomator dump /sdcard/window_dump.xml >/dev/null"
        " && cat /sdcard/window_dump.xml",
        r"\A<\?xml version='1.0' encoding='UTF-8' standalone='yes' \?>"
        r"<hierarchy rotation=\"0\">.*</hierarchy>\Z",
        0,
    ),
    # android_world adb_utils
    ("dumpsys input | grep physicalFrame", r"physicalFrame=\[0, 0, 1080, 2400\]", 0),
    ("dumpsys input | grep logicalFrame", r"logicalFrame=\[0, 0, 1080, 2400\]", 0),
    ("dumpsys window | grep mCurrentRotation", r"mCurrentRotation=ROTATION_0", 0),
    ("wm size", r"\APhysical size: 1080x2400\n\Z", 0),
    ("whoami", r"\Aroot\n\Z", 0),
    ("uiautomator dump /sdcard/window_dump.xml", r"UI hierchary dumped to: /sdcard/window_dump.xml", 0),
    ("cat /sdcard/window_dump.xml", r"\A<\?xml .*</hierarchy>\Z", 0),
    ("dumpsys window | grep mCurrentFocus", r"mCurrentFocus=Window\{\w+ u0 [\w.]+/[\w.]+\}", 0),
    # adbutils
    (
        "rm -f /data/local/tmp/uidump.xml; uiautomator dump /data/local/tmp/uidump.xml && echo success",
        r"success\n\Z",
        0,
    ),
    ("getprop ro.build.version.sdk", r"\A34\n\Z", 0),
    ("dumpsys window windows", r"mCurrentFocus=Window\{", 0),
    ("dumpsys activity top", r"ACTIVITY [\w.]+/[\w.]+ \w+ pid=\d+", 0),
    ("dumpsys display", r"orientation=0", 0),
    ("dumpsys power", r"mHoldingDisplaySuspendBlocker=true", 0),
    ("dumpsys battery", r"level: 100", 0),
    ("pm list packages", r"package:com.android.settings\n", 0),
    ("ls -l /sdcard", r"drwx\S* +\d+ root sdcard_rw +\d+ [\d-]+ [\d:]+ Download\n", 0),
    # process and service probes (uiautomator2, appium, scripts)
    ("pidof com.android.systemui", r"\A\d+\n\Z", 0),
    ("pidof no.such.process", r"\A\Z", 1),
    ("ps -A | grep com.android.systemui", r"u0_a\d+ +\d+ +\d+ .* S com.android.systemui\n", 0),
    ("ps -A | head -1", r"\AUSER +PID +PPID +VSZ +RSS +WCHAN +ADDR S NAME\n\Z", 0),
    (
        "echo -n hello > /sdcard/h.txt; toybox md5sum /sdcard/h.txt",
        r"\A5d41402abc4b2a76b9719d911017c592  /sdcard/h.txt\n\Z",
        0,
    ),
    ("am stack list", r"RootTask id=\d+ bounds=\[0,0\]\[1080,2400\] displayId=0.*taskId=\d+: ", 0),
    ("dumpsys no_such_service", r"\A\Z", 0),
    # shell features scripts rely on
    ("echo $((6*7))", r"\A42\n\Z", 0),
    ("[ -f /sdcard/missing ] && echo yes || echo no", r"\Ano\n\Z", 0),
    ("[ -f /sdcard/missing ]", r"\A\Z", 1),
    ("test -e /dev/null && ls /dev/null", r"\A/dev/null\n\Z", 0),
    ("ls /sdcard/nothing 2>/dev/null || echo missing", r"\Amissing\n\Z", 0),
    (
        "echo x > /sdcard/c1.txt; echo y > /sdcard/c2.txt; ls /sdcard/c*.txt",
        r"\A/sdcard/c1.txt\n/sdcard/c2.txt\n\Z",
        0,
    ),
    ('if [ "$(getprop sys.boot_completed)" = 1 ]; then echo booted; fi', r"\Abooted\n\Z", 0),
    (
        "for p in com.android.settings com.nope; do pm path $p >/dev/null && echo $p; done",
        r"\Acom.android.settings\n\Z",
        1,  # the loop's status is its last command's: `pm path com.nope` fails
    ),
    ("exit 7", r"\A\Z", 7),
]


@pytest.mark.parametrize("line, pattern, status", CORPUS, ids=[c[0][:40] for c in CORPUS])
def test_corpus_over_adb(adb, served, line, pattern, status):
    proc = adb("-s", served.serial, "shell", line)
    out = proc.stdout.decode("utf-8", "replace")
    assert re.search(pattern, out, re.S), (out[:500], proc.stderr)
    assert proc.returncode == status, (out[:500], proc.stderr)

"""More adb clients on the served phone: Debian's `adb logcat` and `adb install`, adbutils' logcat stream,
pure-python-adb (through Debian's adb server, as it only speaks to a server) and AndroidViewClient."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time

import adbutils
import pytest
from apkbuild import build_apk

ADB = shutil.which("adb") or "/usr/bin/adb"


def _shell_threads() -> int:
    return sum(t.name.startswith("adb-shell") for t in threading.enumerate())


def _settle_threads(baseline: int, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while _shell_threads() > baseline and time.monotonic() < deadline:
        time.sleep(0.1)
    return _shell_threads()


def test_adb_logcat_dump(adb, served):
    adb("-s", served.serial, "shell", "log -t CrabAdb dumped")
    r = adb("-s", served.serial, "logcat", "-d", "-v", "brief", "CrabAdb:I", "*:S")
    assert r.returncode == 0
    assert re.fullmatch(r"(--------- beginning of \w+\n)*I/CrabAdb *\( *\d+\): dumped\n", r.stdout.decode())
    adb("-s", served.serial, "logcat", "-c")
    assert adb("-s", served.serial, "logcat", "-d").stdout == b""


def test_adb_logcat_follows_without_blocking_others(adb, served):
    """`adb logcat` streams new entries as they come; other clients keep working; closing it frees the
    phone's side."""
    baseline = _shell_threads()
    cmd = [
        ADB,
        "-P",
        str(adb.port),
        "-s",
        served.serial,
        "logcat",
        "-v",
        "brief",
        "ActivityTaskManager:I",
        "*:S",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=adb.env)
    try:
        time.sleep(1.0)
        t = time.perf_counter()
        r = adb("-s", served.serial, "shell", "am start -n com.android.settings/.Settings")
        assert r.stdout.startswith(b"Starting: Intent") and time.perf_counter() - t < 5
        line = b""
        deadline = time.monotonic() + 10
        while b"Displayed" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith(b"I/ActivityTaskManager(  560): Displayed com.android.settings/.Settings")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert _settle_threads(baseline) <= baseline


def test_adbutils_logcat_stream(adb, served, tmp_path):
    baseline = _shell_threads()
    d = adbutils.AdbClient(host="127.0.0.1", port=adb.port).device(served.serial)
    out = tmp_path / "logcat.txt"
    event = d.logcat(str(out), clear=True, re_filter="Input")
    time.sleep(0.5)
    d.shell("input tap 10 10")
    d.shell("input keyevent HOME")
    deadline = time.monotonic() + 10
    while out.read_text().count("Input") < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    event.stop_nowait()
    d.shell("log -t wake up")  # its reader looks at the stop flag after each line, as with a real phone's log
    event.stop(timeout=10)
    lines = out.read_text().splitlines()
    assert "injectMotionEvent: MotionEvent { action=ACTION_DOWN" in lines[0] and "x[0]=10.0" in lines[0]
    assert "keyCode=KEYCODE_HOME" in lines[1]
    assert _settle_threads(baseline) <= baseline


def test_adb_install_streams_the_apk(adb, served, tmp_path):
    apk = tmp_path / "hello.apk"
    apk.write_bytes(build_apk("com.example.hello", 2, "2.0", ["android.permission.CAMERA"], ".Main"))
    r = adb("-s", served.serial, "install", "-g", str(apk), timeout=60)
    assert r.returncode == 0 and b"Success" in r.stdout, (r.stdout, r.stderr)
    listed = adb("-s", served.serial, "shell", "pm list packages -3").stdout
    assert listed == b"package:com.example.hello\n"
    dump = adb("-s", served.serial, "shell", "dumpsys package com.example.hello").stdout.decode()
    assert "versionName=2.0" in dump and "android.permission.CAMERA: granted=true" in dump
    bad = tmp_path / "bad.apk"
    bad.write_bytes(b"not a zip")
    r = adb("-s", served.serial, "install", str(bad), check=False)
    assert r.returncode != 0 and b"INSTALL_PARSE_FAILED_NOT_APK" in r.stdout + r.stderr
    assert adb("-s", served.serial, "uninstall", "com.example.hello").stdout == b"Success\n"


# --- pure-python-adb ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ppadb_device(adb, served):
    client_mod = pytest.importorskip("ppadb.client")
    device = client_mod.Client(host="127.0.0.1", port=adb.port).device(served.serial)
    assert device is not None
    return device


def test_ppadb_shell_push_pull_screencap(ppadb_device, tmp_path):
    d = ppadb_device
    assert d.shell("echo hi; getprop ro.build.version.sdk") == "hi\n34\n"
    src = tmp_path / "up.txt"
    src.write_bytes(b"via ppadb\n" * 1000)
    d.push(str(src), "/sdcard/Download/ppadb.txt")
    d.pull("/sdcard/Download/ppadb.txt", str(tmp_path / "down.txt"))
    assert (tmp_path / "down.txt").read_bytes() == src.read_bytes()
    png = d.screencap()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "com.android.contacts" in d.list_packages()
    assert d.get_properties()["ro.product.model"] == "CrabPhone"
    assert d.is_installed("com.android.settings") and not d.is_installed("com.nope")


# --- AndroidViewClient --------------------------------------------------------------------------------------


def test_androidviewclient_dumps_finds_and_touches(adb, served):
    adbclient = pytest.importorskip("com.dtmilano.android.adb.adbclient")
    viewclient = pytest.importorskip("com.dtmilano.android.viewclient")
    served.phone.reset()
    device = adbclient.AdbClient(serialno=served.serial, hostname="127.0.0.1", port=adb.port)
    assert device.getSdkVersion() == 34
    vc = viewclient.ViewClient(device, served.serial, autodump=False)
    views = vc.dump()
    contacts = vc.findViewWithText("Contacts")
    assert views and contacts is not None and contacts.getClass() == "android.widget.TextView"
    (x1, y1), (x2, y2) = contacts.getCoords()
    assert 0 <= x1 < x2 <= 1080 and 0 <= y1 < y2 <= 2400
    contacts.touch()
    vc.dump()
    assert vc.findViewById("com.android.contacts:id/contact_list") is not None
    assert served.phone.focused_component()[0] == "com.android.contacts"

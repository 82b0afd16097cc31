"""Command lines as widely used automation tools send them, run on the served phone through Debian's adb.

Two tables: CORPUS (single lines and the regex their output must match) and TOOL_CORPUS (below: sequences
taken from named files of android_world, uiautomator2, appium-adb and adbutils, parsed as each tool does).

Each entry: the line (as the tool sends it), a regex its stdout must contain, and the exit status
`adb shell` reports (shell protocol v2 carries it). Sources: AndroidViewClient's dump, android_world's
adb_utils, adbutils' device helpers, uiautomator2/appium-style probes.
"""

from __future__ import annotations

import re

import pytest

CORPUS = [
    # AndroidViewClient, src/com/dtmilano/android/viewclient.py (ViewClient.dump with uiautomator)
    (
        "cp /dev/null /sdcard/window_dump.xml && uiautomator dump /sdcard/window_dump.xml >/dev/null"
        " && cat /sdcard/window_dump.xml",
        r"\A<\?xml version='1.0' encoding='UTF-8' standalone='yes' \?>"
        r"<hierarchy rotation=\"0\">.*</hierarchy>\Z",
        0,
    ),
    # android_world, android_world/env/adb_utils.py
    ("dumpsys input | grep physicalFrame", r"physicalFrame=\[0, 0, 1080, 2400\]", 0),
    ("dumpsys input | grep logicalFrame", r"logicalFrame=\[0, 0, 1080, 2400\]", 0),
    ("dumpsys window | grep mCurrentRotation", r"mCurrentRotation=ROTATION_0", 0),
    ("wm size", r"\APhysical size: 1080x2400\n\Z", 0),
    ("whoami", r"\Aroot\n\Z", 0),
    ("uiautomator dump /sdcard/window_dump.xml", r"UI hierchary dumped to: /sdcard/window_dump.xml", 0),
    ("cat /sdcard/window_dump.xml", r"\A<\?xml .*</hierarchy>\Z", 0),
    ("dumpsys window | grep mCurrentFocus", r"mCurrentFocus=Window\{\w+ u0 [\w.]+/[\w.]+\}", 0),
    # adbutils, adbutils/_device.py (dump_hierarchy, window_size, current_app and the getprop helpers)
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
    # process and service probes (uiautomator2, appium-adb; android_env reads `am stack list`)
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
    # shell features the tools' scripts rely on (not one tool's lines)
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


# --- command lines from tools' public code, parsed the way each tool parses them -------------------------
#
# Each case names the tool, the file (and the commit it was read at) and the function; it sends the tool's
# command lines to the served phone through Debian's adb and parses the output with that function's own
# parsing (transliterated from JavaScript for appium-adb). adbutils is driven directly: its methods are the
# tool's own code.
ANDROID_WORLD = "google-research/android_world@d9c569f"
UIAUTOMATOR2 = "openatx/uiautomator2@39742b7"
APPIUM_ADB = "appium/appium-adb@8eea1a8"
SMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"


def _sh(adb, served, line: str) -> str:
    proc = adb("-s", served.serial, "shell", line)
    return proc.stdout.decode("utf-8", "replace")


def _tap_text(served, text: str) -> None:
    """android_world's actuation.find_and_click_element: the element with this text, in any case."""
    v = next(v for v in served.phone.ui_tree().walk() if v.text.lower() == text.lower())
    x1, y1, x2, y2 = v.bounds
    served.phone.tap((x1 + x2) / 2, (y1 + y2) / 2)


def aw_add_and_list_contacts(adb, served):
    # android_world/utils/contacts_utils.py: add_contact, list_contacts, clear_contacts
    _sh(
        adb,
        served,
        "am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact "
        '-e name "Ada King" -e phone 5550123',
    )
    _tap_text(served, "SAVE")
    _sh(adb, served, "input keyevent KEYCODE_BACK")
    out = _sh(adb, served, "content query --uri content://contacts/phones/ --projection display_name:number")
    contacts = re.findall(r"display_name=(.*), number=(.*)", out)
    assert ("Ada King", "5550123") in contacts and len(contacts) == 13
    _sh(adb, served, "pm clear com.android.providers.contacts")
    assert not re.findall(
        r"display_name=(.*), number=(.*)",
        _sh(adb, served, "content query --uri content://contacts/phones/ --projection display_name:number"),
    )


def aw_clear_sms_and_threads(adb, served):
    # android_world/task_evals/common_validators/sms_validators.py: clear_sms_and_threads, then the sent box
    for sql in ("DELETE FROM sms;", "DELETE FROM threads;"):
        assert adb("-s", served.serial, "shell", f'sqlite3 {SMS_DB} "{sql}"').returncode == 0
    assert _sh(adb, served, "content query --uri content://sms/sent").strip() == "No result found."
    _sh(adb, served, "monkey -p com.google.android.apps.messaging 1")
    assert not [v for v in served.phone.ui_tree().walk() if v.rid.endswith("conversation_name")]


def aw_advance_system_time(adb, served):
    # android_world/utils/datetime_utils.py: advance_system_time; sms_validators.py: get_android_time
    import datetime as dt

    now = dt.datetime.strptime(_sh(adb, served, "date").strip(), "%a %b %d %H:%M:%S %Z %Y")
    later = now + dt.timedelta(days=3, hours=2)
    _sh(adb, served, "date " + later.strftime("%m%d%H%M%y.%S"))
    assert dt.datetime.strptime(_sh(adb, served, "date").strip(), "%a %b %d %H:%M:%S %Z %Y") == later
    millis = int(_sh(adb, served, "date +%s").strip()) * 1000
    assert millis == int(later.replace(tzinfo=dt.timezone.utc).timestamp()) * 1000
    assert _sh(adb, served, "service call alarm 3 s16 UTC").startswith("Result: Parcel(")


def aw_broadcast_and_settings(adb, served):
    # android_world/env/adb_utils.py: extract_broadcast_data, toggle_airplane_mode, check_airplane_mode,
    # clear_android_emulator_call_log, call_phone_number, get_call_state, end_call_if_active
    out = _sh(adb, served, "am broadcast -a clipper.get")
    assert "Broadcast completed: result=0" in out and "result=-1, data=" not in out  # extract -> None
    _sh(adb, served, "settings put global airplane_mode_on 1")
    assert _sh(adb, served, "settings get global airplane_mode_on").replace("\r", "").strip("\n") == "1"
    _sh(adb, served, "content delete --uri content://call_log/calls")
    assert _sh(adb, served, "content query --uri content://call_log/calls").strip() == "No result found."
    _sh(adb, served, "am start -a android.intent.action.CALL -d tel:5550199")
    assert served.phone.focused_component()[0] == "com.google.android.dialer"

    def call_state() -> str:  # get_call_state
        m = re.search(r"mCallState=(\d)", _sh(adb, served, "dumpsys telephony.registry"))
        return {"0": "IDLE", "1": "RINGING", "2": "OFFHOOK"}.get(m.group(1), "UNKNOWN") if m else "UNKNOWN"

    assert call_state() == "OFFHOOK"
    _sh(adb, served, "input keyevent KEYCODE_ENDCALL")  # end_call_if_active
    assert call_state() == "IDLE" and "mWakefulness=Awake" in _sh(adb, served, "dumpsys power")


def u2_app_lists_and_uninstall_all(adb, served):
    # uiautomator2/__init__.py: app_list("-3"), app_uninstall_all, app_list_running
    assert re.findall(r"package:([^\s]+)", _sh(adb, served, "pm list packages -3")) == []
    packages = re.findall(r"package:([^\s]+)", _sh(adb, served, "pm list packages"))
    _sh(adb, served, "monkey -p com.android.contacts -c android.intent.category.LAUNCHER 1")
    names = re.findall(r"(\S+)$", _sh(adb, served, "ps -A").strip().replace("\r\n", "\n"), re.M)
    assert set(packages) & set(names) >= {"com.android.contacts", "com.android.systemui"}
    assert adb("-s", served.serial, "shell", "pm uninstall com.nope").returncode != 0  # exit code read


def u2_pidof_app(adb, served):
    # uiautomator2/__init__.py: _compat_shell_ps and _pidof_app
    _sh(adb, served, "monkey -p com.google.android.deskclock 1")
    output = _sh(adb, served, "ps -A")
    if len(output.strip().splitlines()) <= 1:
        output = _sh(adb, served, "ps")
    pid = None
    for line in output.strip().replace("\r\n", "\n").splitlines():
        fields = line.strip().split()
        if len(fields) >= 9 and fields[-1] == "com.google.android.deskclock":
            pid = int(fields[1])
    assert pid == int(_sh(adb, served, "pidof com.google.android.deskclock"))


def u2_auto_grant_permissions(adb, served):
    # uiautomator2/__init__.py: app_auto_grant_permissions
    sdk = int(_sh(adb, served, "getprop ro.build.version.sdk").strip())
    dump = _sh(adb, served, "dumpsys package com.google.android.keep")
    target = int(re.search(r"targetSdk=(\d+)", dump).group(1))  # type: ignore[union-attr]
    denied = re.findall(r"(android\.\w*\.?permission\.\w+): granted=false", dump)
    assert sdk >= 23 and target >= 22 and "android.permission.CAMERA" in denied
    for permission in denied:
        assert (
            adb("-s", served.serial, "shell", f"pm grant com.google.android.keep {permission}").returncode
            == 0
        )
    dump = _sh(adb, served, "dumpsys package com.google.android.keep")
    assert not re.findall(r"(android\.\w*\.?permission\.\w+): granted=false", dump)


def u2_check_device_file_hash(adb, served):
    # uiautomator2/core.py: _check_device_file_hash
    import hashlib

    adb("-s", served.serial, "shell", "echo -n payload > /data/local/tmp/u2.bin")
    output = _sh(adb, served, "toybox md5sum /data/local/tmp/u2.bin")
    assert hashlib.md5(b"payload").hexdigest() in output


def _appium_is_screen_locked(window: str, power: str) -> bool:
    """lib/tools/lockmgmt.ts: isScreenLocked over `dumpsys window` and `dumpsys power`."""
    showing = any(x in window for x in ("mShowingLockscreen=true", "mDreamingLockscreen=true")) or all(
        re.search(x, window)
        for x in (r"KeyguardStateMonitor[\n\s]+mIsShowing=true", r"\s+mInputRestricted=true")
    )
    on_keyguard = bool(re.search(r"mCurrentFocus.+Keyguard", window, re.I))
    m = re.search(r"mScreenOnFully=\w+", window, re.I)
    fully_on = not m or m.group(0).split("=")[1] == "true"
    dozing = bool(re.search(r"^[\s\w]+wakefulness[^=]*=Dozing$", power, re.I | re.M))
    off = bool(re.search(r"\s+screenState=SCREEN_STATE_OFF", window, re.I))
    return showing or on_keyguard or not fully_on or dozing or off


def appium_lock_cycle(adb, served):
    # lib/tools/lockmgmt.ts: isScreenLocked, lock (keyevent 26), cycleWakeUp, dismissKeyguard
    def locked() -> bool:
        return _appium_is_screen_locked(_sh(adb, served, "dumpsys window"), _sh(adb, served, "dumpsys power"))

    assert not locked()
    _sh(adb, served, "input keyevent 26")
    assert locked()
    _sh(adb, served, "input keyevent 26")
    _sh(adb, served, "input keyevent 224")  # cycleWakeUp: POWER, then WAKEUP
    assert locked()
    _sh(adb, served, "wm dismiss-keyguard")
    assert not locked()


def appium_activate_app(adb, served):
    # lib/tools/app-commands.ts: resolveLaunchableActivity (cmd) and activateApp (API >= 26)
    lines = [
        x.strip()
        for x in _sh(adb, served, "cmd package resolve-activity --brief com.android.settings").split("\n")
    ]
    activity = next(x for x in lines if re.match(r"^[^\W][\w./$]*$", x) and "/" in x)
    out = _sh(
        adb,
        served,
        "am start-activity -a android.intent.action.MAIN -c android.intent.category.LAUNCHER "
        "-f 0x10200000 -n " + activity,
    )
    assert not re.search(r"^error:", out, re.I | re.M)
    assert served.phone.focused_component() == ("com.android.settings", "com.android.settings.Settings")


def appium_permissions(adb, served):
    # lib/helpers.js (lib/utils/helpers/index.ts): extractMatchingPermissions, as getGrantedPermissions and
    # getReqPermissions call it on `dumpsys package`
    def extract(dump: str, groups: list[str], granted: bool | None = None) -> list[str]:
        result = []
        for group in groups:
            m = re.search(rf"^(\s*{re.escape(group)} permissions:[\s\S]+)", dump, re.M)
            if not m:
                continue
            lines = m.group(1).split("\n")
            indent = len(lines[0]) - len(lines[0].lstrip())
            for line in lines[1:]:
                if len(line) - len(line.lstrip()) <= indent:
                    break
                name = re.search(r"android\.permission\.\w+", line)
                if name:
                    g = re.search(r"\bgranted=(\w+)", line)
                    result.append((name.group(0), g.group(1) == "true" if g else None))
        return [n for n, g in result if granted is None or g is granted]

    dump = _sh(adb, served, "dumpsys package com.android.contacts")
    assert "android.permission.READ_CONTACTS" in extract(dump, ["install", "runtime"], True)
    assert "android.permission.POST_NOTIFICATIONS" in extract(dump, ["install", "runtime"], False)
    assert "android.permission.INTERNET" in extract(dump, ["requested"])


def appium_process_ids(adb, served):
    # lib/tools/process-commands.ts: listProcessStatus (ps --help, then ps -A) and getProcessIdsByName
    assert re.search(r"^-A\b", _sh(adb, served, "ps --help"), re.M)
    stdout = _sh(adb, served, "ps -A")
    titles = re.search(r"^(.*\bPID\b.*\bNAME\b.*)$", stdout, re.M).group(1).strip().split()  # type: ignore[union-attr]
    pid_i, name_i = titles.index("PID"), titles.index("NAME")
    pids = [
        int(items[pid_i])
        for items in (line.strip().split() for line in stdout.split("\n"))
        if len(items) > max(pid_i, name_i) and items[name_i] == "com.android.systemui"
    ]
    assert pids == [780]


def _adbutils_device(adb, served):
    import adbutils

    return adbutils.AdbClient(host="127.0.0.1", port=adb.port).device(served.serial)


def adbutils_screen_and_airplane(adb, served):
    # adbutils/shell.py: is_screen_on, switch_screen, keyevent, switch_airplane, battery, rotation
    d = _adbutils_device(adb, served)
    assert d.is_screen_on()
    d.switch_screen(False)
    assert not d.is_screen_on()
    d.switch_screen(True)
    d.keyevent("KEYCODE_MENU")
    assert d.is_screen_on() and "mDreamingLockscreen=false" in d.shell("dumpsys window")
    d.switch_airplane(True)
    assert d.shell("settings get global airplane_mode_on") == "1"
    assert d.battery().level == 100 and d.rotation() == 0


def adbutils_apps(adb, served):
    # adbutils/shell.py: list_packages, app_info, app_start, app_current, app_stop, app_clear
    d = _adbutils_device(adb, served)
    assert d.list_packages(["-3"]) == [] and "com.android.settings" in d.list_packages(["-s"])
    info = d.app_info("com.android.contacts")
    assert info is not None and (info.version_name, info.version_code) == ("14", 34)
    assert "SYSTEM" in info.flags and info.first_install_time is not None and info.path.endswith(".apk")
    assert info.signature is not None and d.app_info("com.nope") is None
    d.app_start("com.google.android.keep")
    assert d.app_current().package == "com.google.android.keep"
    d.app_clear("com.google.android.keep")
    assert d.app_current().package != "com.google.android.keep"


TOOL_CORPUS = [
    (f"android_world {ANDROID_WORLD} utils/contacts_utils.py", aw_add_and_list_contacts),
    (
        f"android_world {ANDROID_WORLD} task_evals/common_validators/sms_validators.py",
        aw_clear_sms_and_threads,
    ),
    (f"android_world {ANDROID_WORLD} utils/datetime_utils.py", aw_advance_system_time),
    (f"android_world {ANDROID_WORLD} env/adb_utils.py", aw_broadcast_and_settings),
    (f"uiautomator2 {UIAUTOMATOR2} uiautomator2/__init__.py app_list", u2_app_lists_and_uninstall_all),
    (f"uiautomator2 {UIAUTOMATOR2} uiautomator2/__init__.py _pidof_app", u2_pidof_app),
    (
        f"uiautomator2 {UIAUTOMATOR2} uiautomator2/__init__.py app_auto_grant_permissions",
        u2_auto_grant_permissions,
    ),
    (f"uiautomator2 {UIAUTOMATOR2} uiautomator2/core.py", u2_check_device_file_hash),
    (f"appium-adb {APPIUM_ADB} lib/tools/lockmgmt.ts", appium_lock_cycle),
    (f"appium-adb {APPIUM_ADB} lib/tools/app-commands.ts activateApp", appium_activate_app),
    (f"appium-adb {APPIUM_ADB} lib/utils/helpers extractMatchingPermissions", appium_permissions),
    (f"appium-adb {APPIUM_ADB} lib/tools/process-commands.ts", appium_process_ids),
    ("adbutils 2.12.0 adbutils/shell.py (installed)", adbutils_screen_and_airplane),
    ("adbutils 2.12.0 adbutils/shell.py (installed)", adbutils_apps),
]


@pytest.mark.parametrize("source, case", TOOL_CORPUS, ids=[c.__name__ for _, c in TOOL_CORPUS])
def test_tool_corpus(adb, served, source, case):
    served.phone.reset()
    try:
        case(adb, served)
    finally:
        served.phone.reset()

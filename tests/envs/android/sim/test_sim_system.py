"""The phone's system state as tools see and change it through the shell: screen and lock, the clock, the
log, intents and broadcasts, packages and permissions, and data resets (pm clear, the SMS database)."""

from __future__ import annotations

import re

import numpy as np

SMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"


def sh(phone, cmd: str) -> str:
    out, err, code = phone.shell(cmd)
    assert code == 0, (cmd, out, err)
    return out.decode()


def texts(phone) -> list[str]:
    return [v.text for v in phone.ui_tree().walk() if v.text]


# --- screen and lock ----------------------------------------------------------------------------------------


def test_power_key_sleeps_and_locks_then_wake_and_menu_unlock(phone):
    sh(phone, "am start -n com.android.settings/.Settings")
    assert "mWakefulness=Awake" in sh(phone, "dumpsys power")
    sh(phone, "input keyevent 26")
    power, policy = sh(phone, "dumpsys power"), sh(phone, "dumpsys window policy")
    assert "mWakefulness=Asleep" in power and "Display Power: state=OFF" in power
    assert "mHoldingDisplaySuspendBlocker=false" in power  # what adbutils' is_screen_on reads
    assert "screenState=SCREEN_STATE_OFF" in policy and re.search(
        r"KeyguardStateMonitor\s+mIsShowing=true", policy
    )
    assert not phone.screenshot().any()  # the display is off: a black frame
    sh(phone, "input tap 540 1200")  # touches reach nothing while the screen is off
    sh(phone, "input keyevent KEYCODE_WAKEUP")
    window = sh(phone, "dumpsys window")
    assert "mDreamingLockscreen=true" in window and "mCurrentFocus=Window{" in window
    assert re.search(r"mCurrentFocus=Window\{\w+ u0 NotificationShade\}", window)
    assert "Swipe up to open" in texts(phone) and phone.screenshot().any()
    sh(phone, "input keyevent 4")  # BACK on the keyguard does nothing
    assert "mDreamingLockscreen=true" in sh(phone, "dumpsys window")
    sh(phone, "input keyevent 82")
    window = sh(phone, "dumpsys window")
    assert (
        "mDreamingLockscreen=false" in window and "com.android.settings/" in window.split("mCurrentFocus=")[1]
    )


def test_swipe_up_and_dismiss_keyguard_unlock(phone):
    sh(phone, "input keyevent SLEEP; input keyevent WAKEUP; input swipe 540 1900 540 500")
    assert "mIsShowing=false" in sh(phone, "dumpsys window policy")
    sh(phone, "input keyevent POWER; input keyevent POWER; wm dismiss-keyguard")
    assert "showing=false" in sh(phone, "dumpsys window policy")
    sh(phone, "input keyevent KEYCODE_ENDCALL")  # no call: ENDCALL turns the screen off
    assert "mWakefulness=Asleep" in sh(phone, "dumpsys power")
    phone.reset()
    assert "mWakefulness=Awake" in sh(phone, "dumpsys power")


def test_text_does_not_reach_a_locked_app(phone):
    sh(phone, "am start -a android.intent.action.DIAL -d tel:123")
    sh(phone, "input keyevent 26; input keyevent 224; input text 999; input keyevent 82")
    assert phone.current.state["fields"]["digits"] == "123"


# --- the clock ----------------------------------------------------------------------------------------------


def test_date_sets_the_clock_apps_and_logcat_use(phone):
    assert sh(phone, "date") == "Fri Mar 15 09:30:00 UTC 2024\n"
    assert sh(phone, "date 0320101524.30") == "Wed Mar 20 10:15:30 UTC 2024\n"  # android_world's form
    shown = {
        v.rid.rsplit("/", 1)[-1]: v.text
        for v in phone.ui_tree().walk()
        if v.rid.endswith(("/clock", "/date"))
    }
    assert shown == {"clock": "10:15", "date": "Wednesday, Mar 20"}  # the status bar and the home screen
    assert sh(phone, "date +%Y-%m-%dT%H:%M") == "2024-03-20T10:15\n"
    assert sh(phone, "date -s '2025-01-02 03:04:05'") == "Thu Jan  2 03:04:05 UTC 2025\n"
    stamp = int(sh(phone, "date +%s"))
    sh(phone, "am start -a android.intent.action.SENDTO -d sms:+15551234 --es sms_body hello")
    phone.tap(*_center(phone, "Send"))
    rows = sh(phone, f"sqlite3 {SMS_DB} 'SELECT date FROM sms ORDER BY _id DESC LIMIT 1'")
    assert abs(int(rows) // 1000 - stamp) < 60  # the message carries the new clock
    assert "01-02 03:04" in sh(phone, "logcat -d -t 1")
    assert phone.shell("date 13999999")[2] == 1
    phone.reset()
    assert sh(phone, "date +%s") == "1710495000\n"


def _center(phone, text: str) -> tuple[float, float]:
    v = next(v for v in phone.ui_tree().walk() if v.text == text or v.desc == text)
    x1, y1, x2, y2 = v.bounds
    return (x1 + x2) / 2, (y1 + y2) / 2


# --- logcat -------------------------------------------------------------------------------------------------


def test_logcat_formats_filters_and_clear(phone):
    sh(phone, "logcat -c")
    sh(phone, "am start -n com.android.settings/.Settings; log -t CrabTest -p w hello world")
    out = sh(phone, "logcat -d")
    assert "--------- beginning of system" in out and "--------- beginning of main" in out
    assert re.search(
        r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +560 +\d+ I ActivityTaskManager: START u0 \{flg=0x10000000 "
        r"cmp=com.android.settings/.Settings\} .*from uid 0",
        out,
        re.M,
    )
    assert re.search(
        r"I ActivityTaskManager: Displayed com.android.settings/.Settings for user 0: \+\d+ms", out
    )
    brief = sh(phone, "logcat -d -s CrabTest -v brief")
    assert re.fullmatch(r"--------- beginning of main\nW/CrabTest\( *\d+\): hello world\n", brief)
    assert sh(phone, "logcat -d -b main -v tag CrabTest:W '*:S'") == "W/CrabTest: hello world\n"
    assert sh(phone, "logcat -d -b main -v raw -e 'hel+o'") == "hello world\n"
    assert re.fullmatch(
        r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} W/CrabTest\(\s*\d+\): hello world\n",
        sh(phone, "logcat -d -b main -v time -s CrabTest"),
    )
    assert len(sh(phone, "logcat -d -b system -t 1").splitlines()) == 1
    sh(phone, "logcat -b all -c")
    assert sh(phone, "logcat -d") == ""
    assert phone.shell("logcat -v nosuch")[2] == 1
    assert phone.shell("logcat -b nosuch")[1].startswith(b"logcat: Unknown buffer")
    assert "ring buffer is 256 KiB" in sh(phone, "logcat -g")


def test_logcat_in_process_dumps_instead_of_following(phone):
    """No host stream to follow for: `logcat` without -d returns what is there."""
    assert "ActivityManager" in sh(phone, "logcat")


def test_launcher_taps_log_activity_starts(phone):
    phone.tap(*_center(phone, "Contacts"))
    assert "cmp=com.android.contacts/.activities.PeopleActivity" in sh(
        phone, "logcat -d -s ActivityTaskManager"
    )


# --- intents and broadcasts --------------------------------------------------------------------------------


def test_insert_contact_intent_prefills_the_editor_and_save_creates_it(phone):
    out = sh(
        phone,
        "am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact "
        '-e name "Ada Lovelace" -e phone 5550100',
    )
    assert (
        out == "Starting: Intent { act=android.intent.action.INSERT typ=vnd.android.cursor.dir/contact "
        "(has extras) }\n"
    )
    shown = texts(phone)
    assert {"Ada", "Lovelace", "5550100"} <= set(shown)
    phone.tap(*_center(phone, "Save"))
    rows = sh(phone, "content query --uri content://contacts/phones/ --projection display_name:number")
    assert "display_name=Ada Lovelace, number=5550100" in rows


def test_intent_errors_as_android_prints_them(phone):
    # https has a browser now (Chrome); a scheme no app takes still does not resolve
    out, err, code = phone.shell("am start -a android.intent.action.VIEW -d ftp://example.com")
    assert code == 1 and err == (
        b"Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW "
        b"dat=ftp://example.com flg=0x10000000 }\n"
    )
    out, err, code = phone.shell("am start -n com.nope/.Main")
    assert err == b"Error type 3\nError: Activity class {com.nope/com.nope.Main} does not exist.\n"
    out, err, code = phone.shell("am start -a x --ei n notanumber")
    assert code == 255 and b'java.lang.NumberFormatException: For input string: "notanumber"' in err
    assert (
        b"Warning: Activity not started, intent has been delivered"
        in sh(
            phone, "am start -n com.android.settings/.Settings; am start -n com.android.settings/.Settings"
        ).encode()
    )
    w = sh(phone, "am start -W -n com.android.contacts/.activities.PeopleActivity")
    assert re.search(
        r"Status: ok\nLaunchState: COLD\nActivity: com.android.contacts/.activities.PeopleActivity\n"
        r"TotalTime: \d+\nWaitTime: \d+\nComplete\n",
        w,
    )


def test_broadcasts_complete_and_known_ones_act(phone):
    out = sh(
        phone,
        "settings put global airplane_mode_on 1; "
        "am broadcast -a android.intent.action.AIRPLANE_MODE --ez state true",
    )
    assert out == (
        "Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE flg=0x400000 (has extras) }\n"
        "Broadcast completed: result=0\n"
    )
    assert "Airplane mode on (from settings)" in sh(phone, "logcat -d -s AirplaneModeEnabler")
    assert sh(phone, "am broadcast -a com.example.NOBODY") == (
        "Broadcasting: Intent { act=com.example.NOBODY flg=0x400000 }\nBroadcast completed: result=0\n"
    )
    phone.fs.write_bytes("/sdcard/Pictures/cat.jpg", b"\xff\xd8\xff" + bytes(100))
    sh(
        phone,
        "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///sdcard/Pictures/cat.jpg",
    )
    rows = sh(
        phone, "content query --uri content://media/external/images/media --projection _data:mime_type:_size"
    )
    assert rows == "Row: 0 _data=/storage/emulated/0/Pictures/cat.jpg, mime_type=image/jpeg, _size=103\n"


# --- packages -----------------------------------------------------------------------------------------------


def test_pm_list_packages_flags(phone):
    assert sh(phone, "pm list packages -3") == ""
    system = sh(phone, "pm list packages -s").splitlines()
    assert "package:com.android.contacts" in system and system == sh(phone, "pm list packages").splitlines()
    assert "package:/product/app/GoogleContacts/GoogleContacts.apk=com.android.contacts\n" in sh(
        phone, "pm list packages -f contacts"
    )
    assert sh(phone, "pm list packages -U com.android.contacts") == "package:com.android.contacts uid:10080\n"
    assert (
        sh(phone, "pm disable-user com.google.android.keep")
        == "Package com.google.android.keep new state: disabled-user\n"
    )
    assert sh(phone, "pm list packages -d") == "package:com.google.android.keep\n"
    assert "package:com.google.android.keep" not in sh(phone, "pm list packages -e")
    assert phone.shell("monkey -p com.google.android.keep 1")[2] == 252  # a disabled app does not start
    sh(phone, "pm enable com.google.android.keep")
    phone.reset()
    assert sh(phone, "pm list packages -d") == ""


def test_pm_grant_revoke_and_their_errors(phone):
    pkg, perm = "com.google.android.keep", "android.permission.CAMERA"
    assert f"{perm}: granted=false" in sh(phone, f"dumpsys package {pkg}")
    sh(phone, f"pm grant {pkg} {perm}")
    assert f"{perm}: granted=true" in sh(phone, f"dumpsys package {pkg}")
    sh(phone, f"pm revoke {pkg} {perm}")
    assert f"{perm}: granted=false" in sh(phone, f"dumpsys package {pkg}")
    for args, message in (
        (f"com.nope {perm}", "java.lang.IllegalArgumentException: Unknown package: com.nope"),
        (
            f"{pkg} android.permission.NOPE",
            "java.lang.IllegalArgumentException: Unknown permission: android.permission.NOPE",
        ),
        (
            f"{pkg} android.permission.SEND_SMS",
            f"java.lang.SecurityException: Package {pkg} has not requested permission "
            "android.permission.SEND_SMS",
        ),
        (f"{pkg} android.permission.INTERNET", "is not a changeable permission type"),
    ):
        out, err, code = phone.shell(f"pm grant {args}")
        assert code == 255 and err.decode().startswith("Exception occurred while executing 'grant':\n"), err
        assert message in err.decode()
    groups = sh(phone, "pm list permissions -g -d")
    assert "group:android.permission-group.CAMERA\n  permission:android.permission.CAMERA\n" in groups


def test_pm_install_from_a_file_lists_it_as_third_party(phone):
    from apkbuild import build_apk

    phone.fs.write_bytes(
        "/data/local/tmp/app.apk",
        build_apk("com.example.app", 3, "3.0", ["android.permission.CAMERA"], ".Main"),
    )
    assert sh(phone, "pm install -r -t -g /data/local/tmp/app.apk") == "Success\n"
    assert sh(phone, "pm list packages -3") == "package:com.example.app\n"
    assert re.fullmatch(
        r"package:/data/app/~~[\w-]+==/com\.example\.app-[\w-]+==/base\.apk\n",
        sh(phone, "pm path com.example.app"),
    )
    dump = sh(phone, "dumpsys package com.example.app")
    assert (
        "versionCode=3 minSdk=24 targetSdk=34" in dump and "android.permission.CAMERA: granted=true" in dump
    )
    assert sh(phone, "pm uninstall com.example.app") == "Success\n" and sh(phone, "pm list packages -3") == ""
    assert sh(phone, "echo junk > /sdcard/x.apk; pm install /sdcard/x.apk; true").startswith(
        "Failure [INSTALL_PARSE_FAILED_NOT_APK"
    )


# --- data resets -------------------------------------------------------------------------------------------


def test_pm_clear_contacts_provider_empties_contacts(phone):
    assert "Row: 0" in sh(phone, "content query --uri content://contacts/phones/")
    assert sh(phone, "pm clear com.android.providers.contacts") == "Success\n"
    assert sh(phone, "content query --uri content://contacts/phones/") == "No result found.\n"
    sh(phone, "monkey -p com.android.contacts 1")
    assert "No contacts" in texts(phone)
    sh(
        phone,
        "content insert --uri content://com.android.contacts/raw_contacts "
        "--bind name:s:Neo --bind number:s:1",
    )
    assert "Neo" in sh(
        phone, "content query --uri content://contacts/people"
    )  # the provider works after clear
    assert phone.shell("pm clear com.nope") == (b"Failed\n", b"", 1)


def test_pm_clear_app_stops_it_and_empties_its_data(phone):
    sh(phone, "monkey -p com.google.android.keep 1")
    assert sh(phone, "pm clear com.google.android.keep") == "Success\n"
    assert phone.current.package != "com.google.android.keep"
    assert (
        sh(phone, "sqlite3 /data/data/com.google.android.keep/databases/keep.db 'SELECT COUNT(*) FROM notes'")
        == "0\n"
    )


def test_deleting_sms_threads_clears_the_messages_app(phone):
    """android_world's reset: DELETE FROM sms, then FROM threads; the conversation list reads threads."""
    sh(phone, "monkey -p com.google.android.apps.messaging 1")
    assert len([v for v in phone.ui_tree().walk() if v.rid.endswith("conversation_name")]) == 7
    sh(phone, f"sqlite3 {SMS_DB} 'DELETE FROM sms;'")
    assert (
        len([v for v in phone.ui_tree().walk() if v.rid.endswith("conversation_name")]) == 7
    )  # threads stay
    sh(phone, f"sqlite3 {SMS_DB} 'DELETE FROM threads;'")
    assert "No conversations" in texts(phone)
    assert sh(phone, "content query --uri content://sms") == "No result found.\n"


def test_threads_follow_messages_and_a_provider_delete(phone):
    out = sh(phone, f"sqlite3 {SMS_DB} 'SELECT message_count, snippet FROM threads ORDER BY _id'")
    assert out.splitlines()[2] == "2|Happy birthday!"
    sh(phone, "content insert --uri content://sms/inbox --bind address:s:+10000 --bind body:s:fresh")
    assert (
        sh(phone, f"sqlite3 {SMS_DB} 'SELECT message_count, snippet FROM threads ORDER BY _id DESC LIMIT 1'")
        == "1|fresh\n"
    )
    sh(phone, "content delete --uri content://sms --where \"address='+10000'\"")
    assert sh(phone, f"sqlite3 {SMS_DB} 'SELECT COUNT(*) FROM threads'") == "7\n"  # the empty thread went
    sh(phone, "content delete --uri content://mms-sms/conversations/1")
    assert sh(phone, f"sqlite3 {SMS_DB} 'SELECT COUNT(*) FROM sms WHERE thread_id = 1'") == "0\n"
    # raw SQL leaves orphans, as on Android: a thread deleted by hand keeps its messages in sms
    sh(phone, f"sqlite3 {SMS_DB} 'DELETE FROM threads WHERE _id = 2'")
    assert sh(phone, f"sqlite3 {SMS_DB} 'SELECT COUNT(*) FROM sms WHERE thread_id = 2'") == "1\n"


def test_screen_and_dumps_stay_cheap_in_process(phone):
    """The hooks the system state adds keep frames cached: two screenshots with nothing between are one."""
    a = phone.screenshot()
    assert a is phone.screenshot() and isinstance(a, np.ndarray)

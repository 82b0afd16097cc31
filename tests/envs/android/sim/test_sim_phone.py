"""The phone as a device: apps driven by taps and text, state in SQLite, reset, determinism, rendering."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from crab_gym.envs.android.sim import Phone


def node(phone: Phone, **attrs) -> ET.Element:
    """The first node of the uiautomator dump whose attributes match (as an agent would find it)."""
    root = ET.fromstring(phone.ui_xml())
    for n in root.iter("node"):
        if all(n.get(k) == v for k, v in attrs.items()):
            return n
    raise LookupError(f"no node with {attrs}")


def tap(phone: Phone, **attrs) -> None:
    b = node(phone, **attrs).get("bounds")
    x1, y1, x2, y2 = (int(v) for v in b.replace("][", ",").strip("[]").split(","))
    phone.tap((x1 + x2) / 2, (y1 + y2) / 2)


def focus(phone: Phone) -> str:
    return phone.shell("dumpsys window | grep mCurrentFocus")[0].decode()


def sh(phone: Phone, cmd: str) -> str:
    out, err, code = phone.shell(cmd)
    assert code == 0, err
    return out.decode()


def test_home_screen_and_tapping_the_contacts_icon(phone):
    assert "com.google.android.apps.nexuslauncher" in focus(phone)
    tap(phone, **{"content-desc": "Contacts"})
    assert "u0 com.android.contacts/com.android.contacts.activities.PeopleActivity}" in focus(phone)
    phone.keyevent(3)
    assert "nexuslauncher" in focus(phone)


def test_adding_a_contact_through_the_ui(phone):
    tap(phone, **{"content-desc": "Contacts"})
    tap(phone, **{"content-desc": "Create contact"})
    assert node(phone, **{"resource-id": "com.android.contacts:id/first_name"}).get("focused") == "true"
    sh(phone, "input text Zed")
    tap(phone, text="Last name")
    sh(phone, "input text Zebra%sJr")
    tap(phone, text="Phone")
    sh(phone, "input text '+1 555 0100'")
    phone.keyevent("KEYCODE_DEL")
    sh(phone, "input text 9")
    tap(phone, text="Save")
    out = sh(
        phone,
        "content query --uri content://com.android.contacts/data/phones --projection display_name:number"
        " --where \"display_name='Zed Zebra Jr'\"",
    )
    assert out == "Row: 0 display_name=Zed Zebra Jr, number=+1 555 0109\n"
    assert "QuickContactActivity" in focus(phone)
    assert "Zed Zebra Jr" in phone.ui_xml()


def test_sending_an_sms_through_the_ui(phone):
    phone.launch("com.google.android.apps.messaging")
    tap(phone, **{"content-desc": "Start chat"})
    phone.text("+15550123")
    tap(phone, text="Text message")
    sh(phone, "input text 'see you soon'")
    tap(phone, text="Send")
    out = sh(
        phone,
        "content query --uri content://sms/sent --projection address:body:type "
        "--where \"address='+15550123'\"",
    )
    assert out == "Row: 0 address=+15550123, body=see you soon, type=2\n"


def test_settings_toggles_write_the_settings_tables(phone):
    sh(phone, "am start -n com.android.settings/.Settings")
    tap(phone, text="Network & internet")
    before = sh(phone, "settings get global wifi_on").strip()
    tap(phone, **{"resource-id": "com.android.settings:id/wifi_switch"})
    assert sh(phone, "settings get global wifi_on").strip() == ("0" if before == "1" else "1")
    phone.keyevent(4)
    tap(phone, text="Display")
    light = phone.screenshot()[1200, 540].copy()
    tap(phone, text="Dark theme")
    assert sh(phone, "settings get secure ui_night_mode").strip() == "2"
    assert phone.screenshot()[1200, 540].sum() < light.sum()  # the theme really changed


def test_clock_notes_tasks_calendar_dialer_camera(phone):
    phone.launch("com.google.android.deskclock")
    tap(phone, **{"content-desc": "Add alarm"})
    phone.text("6")
    tap(phone, text="Minutes (0-59)")
    phone.text("45")
    tap(phone, text="Save")
    assert "6|45|1" in sh(
        phone,
        "sqlite3 /data/data/com.google.android.deskclock/databases/alarms.db "
        "'SELECT hour, minutes, enabled FROM alarm_templates'",
    )
    phone.launch("com.google.android.keep")
    tap(phone, **{"content-desc": "New text note"})
    phone.text("Groceries")
    tap(phone, text="Note")
    phone.text("apples")
    phone.keyevent(4)  # Keep saves on back
    assert "Groceries|apples" in sh(
        phone, "sqlite3 /data/data/com.google.android.keep/databases/keep.db 'SELECT title, body FROM notes'"
    )
    phone.launch("com.google.android.apps.tasks")
    tap(phone, **{"content-desc": "Create new task"})
    phone.text("Water plants")
    phone.keyevent(66)
    assert "Water plants|0" in sh(
        phone,
        "sqlite3 /data/data/com.google.android.apps.tasks/databases/tasks.db "
        "'SELECT title, completed FROM tasks'",
    )
    phone.launch("com.google.android.calendar")
    tap(phone, **{"content-desc": "Create new event"})
    for hint, value in (
        ("Add title", "Dentist again"),
        ("Date (YYYY-MM-DD)", "2024-03-20"),
        ("Start time (HH:MM)", "14:30"),
    ):
        tap(phone, text=hint)
        phone.text(value)
    tap(phone, text="Save")
    out = sh(
        phone,
        "content query --uri content://com.android.calendar/events --projection title:dtstart "
        "--where \"title='Dentist again'\"",
    )
    assert out == "Row: 0 title=Dentist again, dtstart=1710945000000\n"
    phone.launch("com.google.android.dialer")
    tap(phone, **{"content-desc": "key pad"})
    for k in "5550":
        tap(phone, **{"content-desc": k})
    tap(phone, text="Call")
    assert "InCallActivity" in focus(phone)
    assert sh(
        phone, "content query --uri content://call_log/calls --projection number:type --sort 'date DESC'"
    ).startswith("Row: 0 number=5550, type=2")
    phone.launch("com.android.camera2")
    tap(phone, **{"content-desc": "Shutter"})
    assert sh(phone, "ls /sdcard/DCIM/Camera").strip().endswith(".jpg")


def test_drawer_scroll_and_long_press(phone):
    phone.swipe(540, 1800, 540, 600, 200)
    tap(phone, text="Files")
    assert "documentsui" in focus(phone)
    phone.home()
    phone.launch("com.android.contacts")
    first = node(phone, **{"resource-id": "com.android.contacts:id/title"}).get("text")
    phone.swipe(540, 1800, 540, 800, 300)
    assert node(phone, **{"resource-id": "com.android.contacts:id/title"}).get("text") != first
    assert node(phone, **{"resource-id": "com.android.contacts:id/contact_list"}).get("scrollable") == "true"
    phone.launch("com.google.android.apps.tasks")
    n_before = sh(
        phone,
        "sqlite3 /data/data/com.google.android.apps.tasks/databases/tasks.db 'SELECT count(*) FROM tasks'",
    )
    b = node(phone, **{"resource-id": "com.google.android.apps.tasks:id/task_name"}).get("bounds")
    x1, y1, x2, y2 = (int(v) for v in b.replace("][", ",").strip("[]").split(","))
    sh(phone, f"input swipe {(x1 + x2) // 2} {(y1 + y2) // 2} {(x1 + x2) // 2} {(y1 + y2) // 2} 800")
    n_after = sh(
        phone,
        "sqlite3 /data/data/com.google.android.apps.tasks/databases/tasks.db 'SELECT count(*) FROM tasks'",
    )
    assert int(n_after) == int(n_before) - 1  # long press deletes a task


def test_reset_restores_pristine_state_fast(phone):
    pristine_xml, pristine_frame = phone.ui_xml(), phone.screenshot().copy()
    db = sh(phone, "content query --uri content://sms")
    sh(
        phone,
        "content insert --uri content://sms/inbox --bind address:s:1 --bind body:s:x; "
        "echo junk > /sdcard/j.txt;"
        " settings put global bluetooth_on 1; am start -n com.android.settings/.Settings",
    )
    t = time.perf_counter()
    phone.reset()
    elapsed = time.perf_counter() - t
    assert sh(phone, "content query --uri content://sms") == db
    assert not phone.fs.exists("/sdcard/j.txt")
    assert sh(phone, "settings get global bluetooth_on") == "0\n"
    assert phone.ui_xml() == pristine_xml
    assert np.array_equal(phone.screenshot(), pristine_frame)
    assert elapsed < 1.0  # measured in the bench, not asserted tightly here


def test_same_seed_same_bytes_other_seed_other_data():
    a, b, c = Phone(seed=3), Phone(seed=3), Phone(seed=4)
    try:
        for p in (a, b, c):
            p.launch("com.android.contacts")
        assert a.screencap_png() == b.screencap_png()
        assert a.shell("content query --uri content://contacts/people") == b.shell(
            "content query --uri content://contacts/people"
        )
        assert a.shell("content query --uri content://contacts/people") != c.shell(
            "content query --uri content://contacts/people"
        )
    finally:
        for p in (a, b, c):
            p.close()


@pytest.mark.parametrize("size", [(1080, 2400), (540, 1200)])
def test_screenshot_shape_and_dump_bounds(size):
    p = Phone(width=size[0], height=size[1])
    try:
        frame = p.screenshot()
        assert frame.shape == (size[1], size[0], 3) and frame.dtype == np.uint8
        assert f'bounds="[0,0][{size[0]},{size[1]}]"' in p.ui_xml()
        assert p.shell("wm size")[0] == f"Physical size: {size[0]}x{size[1]}\n".encode()
    finally:
        p.close()


def test_quick_settings_shade(phone):
    phone.swipe(540, 20, 540, 1200, 200)
    assert "u0 NotificationShade}" in focus(phone)
    assert sh(phone, "settings get global bluetooth_on") == "0\n"
    tap(phone, **{"content-desc": "Bluetooth"})
    assert sh(phone, "settings get global bluetooth_on") == "1\n"
    assert node(phone, **{"content-desc": "Bluetooth"}).get("checked") == "true"
    phone.keyevent(4)
    assert "nexuslauncher" in focus(phone)
    phone.swipe(540, 20, 540, 1200, 200)
    phone.tap(540, 2000)  # outside the panel
    assert "nexuslauncher" in focus(phone)


def test_every_app_opens_renders_and_dumps(phone):
    from crab_gym.envs.android.sim.apps import APPS, LAUNCHER

    packages = sh(phone, "pm list packages")
    for pkg, app in APPS.items():
        if pkg == LAUNCHER:
            continue
        assert f"package:{pkg}\n" in packages
        sh(phone, f"monkey -p {pkg} -c android.intent.category.LAUNCHER 1")
        assert f"u0 {pkg}/{app.activity(app.main)}}}" in focus(phone)
        ET.fromstring(phone.ui_xml())
        assert phone.screenshot().shape == (2400, 1080, 3)


@pytest.mark.parametrize("seed", range(5))
def test_monkey_never_breaks_the_phone(seed, caplog):
    """Thousands of random taps, swipes, texts and keys: no exception, and the phone stays consistent."""
    import random

    rng = random.Random(seed)
    p = Phone(seed=seed)
    try:
        for i in range(1500):
            r = rng.random()
            if r < 0.55:
                clickable = [v for v in p.ui_tree().walk() if v.clickable]
                v = rng.choice(clickable)
                x1, y1, x2, y2 = v.bounds
                p.tap(rng.uniform(x1, x2 - 1), rng.uniform(y1, y2 - 1))
            elif r < 0.7:
                p.swipe(
                    *(rng.uniform(0, 1080) for _ in range(1)),
                    rng.uniform(0, 2400),
                    rng.uniform(0, 1080),
                    rng.uniform(0, 2400),
                    rng.choice((100, 300, 800)),
                )
            elif r < 0.85:
                p.text(rng.choice(["12", "Alice", "7:30", "2024-03-20", "hello world", "+15550100", ""]))
            elif r < 0.97:
                p.keyevent(rng.choice((3, 4, 66, 67, 62, 187)))
            else:
                p.reset()
            if i % 50 == 0:
                assert p.screenshot().shape == (2400, 1080, 3)
                ET.fromstring(p.ui_xml())
        assert p.shell("echo ok") == (b"ok\n", b"", 0)
        assert not [r for r in caplog.records if r.levelname == "ERROR"], "an app crashed (see the log)"
    finally:
        p.close()


def test_an_app_bug_shows_the_crash_dialog_never_an_exception(phone, monkeypatch, caplog):
    from crab_gym.envs.android.sim.apps import spec

    settings = spec("com.android.settings")

    def broken(s):
        raise ZeroDivisionError("bug in a screen")

    monkeypatch.setitem(settings.screens, "connected", (".SubSettings", broken))
    phone.launch("com.android.settings")
    tap(phone, text="Connected devices")
    assert node(phone, text="Settings keeps stopping") is not None
    tap(phone, text="Close app")
    assert "nexuslauncher" in focus(phone)
    assert phone.shell("echo fine")[2] == 0


def test_a_non_empty_foreign_root_is_refused(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not a phone sandbox"):
        Phone(root=tmp_path)
    assert (tmp_path / "precious.txt").read_text() == "keep me"
    sandbox = tmp_path / "phone"
    p = Phone(root=sandbox)
    p.shell("echo x > /sdcard/x.txt")
    p.close()
    p = Phone(root=sandbox)  # reusing its own sandbox is fine, and starts pristine
    assert not p.fs.exists("/sdcard/x.txt")
    p.close()


def test_a_new_sandbox_seeds_the_tree_a_wiped_one_does(tmp_path):
    """A new root is seeded without the wipe (its skeleton is what a wipe leaves); a reused one is wiped
    first: both give the same pristine tree, bytes, directories, links, modes and times."""
    new = Phone(root=tmp_path / "new", seed=3)
    reused = Phone(root=tmp_path / "reused", seed=1)
    reused.shell("echo x > /sdcard/Download/x.txt; mkdir -p /data/local/tmp/d")
    reused.close()
    reused = Phone(root=tmp_path / "reused", seed=3)
    a, b = new.fs.snapshot(), reused.fs.snapshot()
    assert (a.files, a.dirs, a.links, a.stats) == (b.files, b.dirs, b.links, b.stats)
    new.close()
    reused.close()


def test_files_app_sees_pushed_and_removed_files(phone):
    phone.launch("com.google.android.documentsui")
    tap(phone, text="Download")
    assert "report.pdf" not in phone.ui_xml()
    phone.shell("echo pdf > /sdcard/Download/report.pdf")
    assert node(phone, text="report.pdf") is not None
    phone.shell("rm /sdcard/Download/report.pdf")
    assert "report.pdf" not in phone.ui_xml()
    phone.shell("cmd statusbar expand-settings")
    assert "NotificationShade" in focus(phone)
    phone.shell("cmd statusbar collapse")
    assert "documentsui" in focus(phone)

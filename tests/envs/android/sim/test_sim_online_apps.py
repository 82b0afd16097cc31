"""The phone's online apps (Google Drive, Chrome, Google Maps) through real adb clients: listed by pm, started
by am, named by dumpsys, drawn in the launcher, their state in their SQLite databases; bad input is safe."""

from __future__ import annotations

import re

import adbutils
import pytest

from crab_gym.envs.android.sim.system.registry import APPS

DRIVE = "com.google.android.apps.docs"
DOCLIST = "/data/data/com.google.android.apps.docs/databases/DocList.db"
ONLINE = {DRIVE: ".app.NewMainProxyActivity"}


@pytest.fixture(scope="module")
def device(adb, served):
    client = adbutils.AdbClient(host="127.0.0.1", port=adb.port)
    client.connect(served.serial)
    return client.device(served.serial)


@pytest.fixture
def fresh(device, served):
    served.phone.reset(0)
    return device


def _tap(device, x: float, y: float) -> None:
    device.shell(f"input tap {int(x * 1080)} {int(y * 2400)}")


def _labels(xml: str) -> list[tuple[str, str]]:
    """(text, content-desc) of Drive's entry_label nodes."""
    return re.findall(
        r'text="([^"]*)" resource-id="com\.google\.android\.apps\.docs:id/entry_label" '
        r'[^>]*?content-desc="([^"]*)"',
        xml,
    )


@pytest.mark.parametrize("package", sorted(ONLINE))
def test_pm_am_dumpsys_and_launcher_know_the_app(fresh, package):
    assert f"package:{package}" in fresh.shell("pm list packages").split()
    assert fresh.shell(f"pm path {package}").startswith("package:/product/app/")
    out = fresh.shell(f"am start -n {package}/{ONLINE[package]}")
    assert "Error" not in out, out
    cur = fresh.app_current()
    assert (cur.package, cur.activity) == (package, package + ONLINE[package])
    assert f"{package}/{ONLINE[package]}" in fresh.shell("dumpsys activity activities")
    fresh.shell("input keyevent 3")
    fresh.shell("input swipe 540 1800 540 600")  # the app drawer
    assert f'content-desc="{APPS[package].label}"' in fresh.dump_hierarchy()


def test_drive_lists_creates_a_folder_and_uploads(fresh):
    fresh.shell(f"am start -n {DRIVE}/{ONLINE[DRIVE]}")
    assert ("Work", "Work Folder") in _labels(fresh.dump_hierarchy())
    _tap(fresh, 0.848, 0.8775)  # New
    _tap(fresh, 0.5, 0.1575)  # Folder
    fresh.shell("input text content")
    _tap(fresh, 0.867, 0.0808)  # Create
    assert ("content", "content Folder") in _labels(fresh.dump_hierarchy())
    rows = fresh.shell(f"sqlite3 {DOCLIST} \"SELECT title, mime_type FROM entries WHERE title = 'content'\"")
    assert rows.strip() == "content|application/vnd.google-apps.folder"

    fresh.sync.push(b"receipt 42\n", "/sdcard/Download/receipt.txt")
    _tap(fresh, 0.848, 0.8775)  # New
    _tap(fresh, 0.5, 0.1575 + 0.0833)  # Upload: the picker opens on /sdcard
    xml = fresh.dump_hierarchy()
    names = re.findall(r'text="([^"]*)" resource-id="com\.google\.android\.apps\.docs:id/title"', xml)
    _tap(fresh, 0.5, 0.1575 + 0.0833 * names.index("Download"))
    _tap(fresh, 0.5, 0.1575)  # the only file in Download
    assert ("receipt.txt", "receipt.txt") in _labels(fresh.dump_hierarchy())
    blob = fresh.shell(f"sqlite3 {DOCLIST} \"SELECT blob FROM entries WHERE title = 'receipt.txt'\"").strip()
    assert fresh.sync.read_bytes(blob) == b"receipt 42\n"
    assert fresh.app_current().package == DRIVE


def test_drive_refuses_empty_or_slashed_names_and_survives_a_broken_database(fresh, served):
    fresh.shell(f"am start -n {DRIVE}/{ONLINE[DRIVE]}")
    before = fresh.shell(f'sqlite3 {DOCLIST} "SELECT COUNT(*) FROM entries"')
    _tap(fresh, 0.848, 0.8775)
    _tap(fresh, 0.5, 0.1575)
    _tap(fresh, 0.867, 0.0808)  # Create with no name: nothing happens
    fresh.shell("input text a/b")
    _tap(fresh, 0.867, 0.0808)
    assert fresh.shell(f'sqlite3 {DOCLIST} "SELECT COUNT(*) FROM entries"') == before
    assert "New folder" in fresh.dump_hierarchy()
    fresh.shell(f"rm {DOCLIST}; echo garbage > {DOCLIST}")
    fresh.shell("input keyevent 4")
    xml = fresh.dump_hierarchy()  # the app's crash dialog, not a dead device
    assert "keeps stopping" in xml
    assert fresh.shell("echo alive") == "alive"
    # long-press removes an entry (to the trash)
    served.phone.reset(0)
    fresh.shell(f"am start -n {DRIVE}/{ONLINE[DRIVE]}")
    fresh.shell("input swipe 540 378 540 378 800")  # long-press the first row (Photos)
    assert "Photos" not in [t for t, _ in _labels(fresh.dump_hierarchy())]
    assert fresh.shell(f"sqlite3 {DOCLIST} \"SELECT trashed FROM entries WHERE title = 'Photos'\"") == "1"


def test_the_templates_drawer_points_open_their_apps(phone):
    """The android templates tap the app drawer at layout.DRAWER's points: each opens the app it names."""
    from crab_gym.tasks.templates.android.layout import DRAWER

    labels = {"gmail": "Gmail", "keep": "Keep Notes", "phone": "Phone"}
    for app, (x, y) in DRAWER.items():
        phone.home()
        phone.current.state["drawer"] = True
        phone.invalidate()
        phone.tap(x * phone.width, y * phone.height)
        assert APPS[phone.current.package].label == labels.get(app, app.capitalize()), app

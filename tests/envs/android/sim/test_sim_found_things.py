"""What the phone's apps gained for CRAB v0's sub-tasks, driven by taps on what the screen shows: Contacts'
search, the calendar's all-day events and written dates, the Bluetooth device name, the Files inspector,
the Clock's world clock, and toybox's touch -d / -t."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from crab_gym.envs.android.sim.storage import db
from crab_gym.envs.android.sim.system.providers import get_setting


def nodes(phone) -> list[ElementTree.Element]:
    return list(ElementTree.fromstring(phone.ui_xml()).iter("node"))


def tap_text(phone, text: str, nth: int = 0) -> None:
    found = [n for n in nodes(phone) if n.get("text") == text or n.get("content-desc") == text]
    x1, y1, x2, y2 = map(int, re.findall(r"\d+", found[nth].get("bounds", "")))
    phone.tap((x1 + x2) / 2, (y1 + y2) / 2)


def texts(phone) -> list[str]:
    return [n.get("text", "") for n in nodes(phone)]


def sql(phone, path: str, query: str) -> list[tuple]:
    with db.connect(phone.fs, path) as c:
        return c.execute(query).fetchall()


def test_contacts_search_finds_a_contact_by_name_and_opens_the_card(phone) -> None:
    with db.connect(phone.fs, db.CONTACTS_DB) as c:
        db.add_contact(c, "Ines Duarte", "", "ines.d@example.net")
    phone.launch("com.android.contacts")
    tap_text(phone, "Search")
    phone.text("ines")
    assert "Ines Duarte" in texts(phone)
    tap_text(phone, "Ines Duarte")
    assert {"Ines Duarte", "ines.d@example.net"} <= set(texts(phone))
    phone.back()
    phone.current.state["fields"]["query"] = "nobody"
    phone.invalidate()
    assert "No contacts found" in texts(phone)


@pytest.mark.parametrize("written", ["1 January 2025", "2025-01-01", "January 1, 2025"])
def test_calendar_all_day_event_from_a_written_date(phone, written: str) -> None:
    phone.launch("com.google.android.calendar")
    tap_text(phone, "Create new event")
    phone.text("New year")
    tap_text(phone, "Date (YYYY-MM-DD)")
    phone.text(written)
    tap_text(phone, "All-day")
    tap_text(phone, "Save")
    rows = sql(phone, db.CALENDAR_DB, "SELECT dtstart, dtend, allDay FROM Events WHERE title = 'New year'")
    assert rows == [(1735689600000, 1735776000000, 1)]  # 2025-01-01 00:00 UTC, one day, all day
    assert any("All day" in t for t in texts(phone))


def test_calendar_rejects_a_date_it_cannot_read(phone) -> None:
    phone.launch("com.google.android.calendar")
    tap_text(phone, "Create new event")
    phone.text("Nothing")
    tap_text(phone, "Date (YYYY-MM-DD)")
    phone.text("the first of never")
    tap_text(phone, "Save")
    assert any(t.startswith("Date as YYYY-MM-DD") for t in texts(phone))


def test_bluetooth_device_name_renamed_in_settings(phone) -> None:
    phone.launch("com.android.settings")
    tap_text(phone, "Connected devices")
    assert "CrabPhone" in texts(phone)  # the device name until Bluetooth has its own
    tap_text(phone, "Device name")
    phone.text("Crab's phone")
    tap_text(phone, "Rename")
    assert get_setting(phone, "secure", "bluetooth_name") == "Crab's phone"
    assert "Crab's phone" in texts(phone)


def test_files_inspector_shows_the_date_touch_set(phone) -> None:
    out, err, code = phone.shell(
        "echo hi > /sdcard/Movies/a.txt && touch -d '2024-06-04 12:00' /sdcard/Movies/a.txt"
    )
    assert code == 0, err
    phone.launch("com.google.android.documentsui")
    tap_text(phone, "Movies")
    tap_text(phone, "a.txt")
    shown = texts(phone)
    assert {"a.txt", "4 June 2024", "12:00", "text/plain", "3 B"} <= set(shown)


@pytest.mark.parametrize(
    "args, stamp",
    [
        ("-d 2024-06-04T12:30:05Z", "2024-06-04 12:30:05"),
        ("-d @1717500000", "2024-06-04 11:20:00"),
        ("-t 202406041230.05", "2024-06-04 12:30:05"),
        ("-t 06041230", "2024-06-04 12:30:00"),  # the year of the phone's clock
        ("-m -t 2406041230", "2024-06-04 12:30:00"),
    ],
)
def test_touch_sets_times_as_toybox_does(phone, args: str, stamp: str) -> None:
    out, err, code = phone.shell(f"touch {args} /sdcard/t && date -u -r /sdcard/t '+%Y-%m-%d %H:%M:%S'")
    assert code == 0, err
    assert out.decode().strip() == stamp


def test_touch_bad_date_and_no_create(phone) -> None:
    _, err, code = phone.shell("touch -d yesterday /sdcard/x")
    assert code == 1 and b"bad date" in err
    _, _, code = phone.shell("touch -c -d @0 /sdcard/missing; ls /sdcard/missing")
    assert code != 0


def test_world_clock_adds_a_city_and_keeps_it_in_deskclocks_preferences(phone) -> None:
    phone.launch("com.google.android.deskclock")
    tap_text(phone, "Clock")
    tap_text(phone, "Cities")
    phone.text("kolk")
    tap_text(phone, "Kolkata")
    assert "Kolkata" in texts(phone)
    assert any("5 hours 30 minutes ahead" in t for t in texts(phone))  # the phone is on UTC
    prefs = phone.fs.resolve(
        "/data/data/com.google.android.deskclock/shared_prefs/com.google.android.deskclock_preferences.xml"
    ).read_text()
    assert '<set name="selected_cities"><string>Kolkata</string></set>' in prefs


def test_city_picker_makes_only_the_rows_in_view(phone, monkeypatch) -> None:
    from crab_gym.envs.android.sim.apps import worldclock

    made: list[str] = []
    real = worldclock.gap
    monkeypatch.setattr(worldclock, "gap", lambda city, now: made.append(city) or real(city, now))
    phone.launch("com.google.android.deskclock")
    tap_text(phone, "Clock")
    tap_text(phone, "Cities")
    every = list(worldclock.cities())
    for _ in range(2):  # at the top, then scrolled down
        made.clear()
        shown = [t for t in texts(phone) if t in worldclock.cities()]
        assert 3 < len(shown) < 30 and shown == every[every.index(shown[0]) :][: len(shown)]
        assert set(shown) <= set(made) and len(set(made) - set(shown)) <= 2  # of hundreds: those in view
        phone.swipe(540, 1800, 540, 600)
    assert shown[0] != every[0]

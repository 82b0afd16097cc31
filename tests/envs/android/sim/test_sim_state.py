"""The phone's state saved at any moment and loaded back: the same moment, and the same future from it."""

from __future__ import annotations

import datetime as dt
import os
import pickle
import shutil

import adbutils
import numpy as np

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.storage import db


def look(phone: Phone) -> tuple:
    """What the phone shows of itself: files (with modes and times), log, clock, power, screen and tree."""
    outputs = tuple(
        phone.shell(cmd)
        for cmd in (
            "ls -laR /sdcard /data/data/com.google.android.deskclock",
            "ls /sdcard/DCIM/Camera",
            "logcat -d",
            "date",
            "dumpsys power | grep -i wakefulness",
            "settings get secure ui_night_mode",
            "cmd notification list",
            "content query --uri content://contacts/phones --projection display_name",
        )
    )
    return outputs, phone.ui_xml(), phone.screenshot().tobytes()


def busy(phone: Phone, salt: str) -> list:
    """A run of taps, keys, text and shell commands whose outputs depend on everything before them."""
    out = []
    for step in (
        lambda: phone.keyevent(3),
        lambda: phone.tap(0.5 * phone.width, 0.775 * phone.height),  # Contacts
        lambda: phone.tap(0.848 * phone.width, 0.8775 * phone.height),  # new contact
        lambda: phone.text(f"Zed {salt}"),
        lambda: phone.shell(f"log -t Crab {salt}; echo {salt} >> /sdcard/Download/notes.txt"),
        lambda: phone.shell(
            "am start -a android.intent.action.SET_TIMER --ei android.intent.extra.alarm.LENGTH 3"
        ),
        lambda: phone.keyevent(4),
        lambda: phone.keyevent(3),
        lambda: phone.tap(0.9 * phone.width, 0.775 * phone.height),  # Camera
        lambda: phone.tap(0.5 * phone.width, 0.8583 * phone.height),  # a photo: the clock moves a second
        lambda: phone.shell(
            f"settings put secure ui_night_mode 2; cmd notification post -t T{salt} tag {salt}"
        ),
        lambda: phone.shell("cmd statusbar expand-notifications"),
        lambda: phone.swipe(540 * phone.width / 1080, 1800 * phone.height / 2400, 540, 400),
    ):
        out.append(step())
        out.append(look(phone))
    return out


def test_a_state_brings_back_the_moment_and_its_future():
    phone = Phone(width=360, height=800)
    try:
        busy(phone, "before")
        phone.shell("input keyevent 26")  # asleep and locked at the save
        phone.shell("chmod 600 /sdcard/Download/notes.txt")
        state = pickle.loads(pickle.dumps(phone.save_state()))
        at_save = look(phone)
        phone.shell("input keyevent 26; input keyevent 82")
        after = busy(phone, "after")
        assert phone.counter > state.counter  # the clock moved after the save
        phone.load_state(state)
        assert look(phone) == at_save
        phone.shell("input keyevent 26; input keyevent 82")
        assert busy(phone, "after") == after
    finally:
        phone.close()


def test_a_state_loads_onto_another_phone_of_that_size():
    a, b = Phone(width=360, height=800), Phone(width=360, height=800, seed=4)
    try:
        busy(a, "x")
        b.load_state(a.save_state())
        assert look(a) == look(b)
        assert busy(a, "y") == busy(b, "y")
    finally:
        a.close()
        b.close()


def test_the_sandbox_keeps_modes_times_and_symlinks():
    phone = Phone(width=360, height=800)
    try:
        root = phone.fs.root
        target = root / "sdcard/Download/a.txt"
        target.write_text("a")
        os.chmod(target, 0o640)
        os.utime(target, ns=(10**18, 10**18))
        os.symlink("a.txt", root / "sdcard/Download/link")
        snap = phone.fs.snapshot()
        target.write_text("changed")
        os.chmod(target, 0o600)
        os.unlink(root / "sdcard/Download/link")
        os.symlink("elsewhere", root / "sdcard/Download/link")
        (root / "sdcard/Download/new").write_text("n")
        phone.fs.restore(snap)
        st = os.lstat(target)
        assert target.read_text() == "a" and st.st_mode & 0o777 == 0o640 and st.st_mtime_ns == 10**18
        assert os.readlink(root / "sdcard/Download/link") == "a.txt"
        assert not (root / "sdcard/Download/new").exists()
    finally:
        phone.close()


def test_a_restore_changes_only_what_differs_and_says_so(tmp_path):
    """An unchanged tree is only read (the readers keep their connections); a changed one is told once,
    before the first change, and comes back whatever replaced what: a same-size rewrite, a file where a
    directory was and back, a symlink to a directory outside the sandbox (not followed)."""
    phone = Phone(width=360, height=800)
    try:
        root = phone.fs.root
        (root / "sdcard/Download/a.txt").write_text("abc")
        (root / "sdcard/Music/album").mkdir()
        (root / "sdcard/Music/album/t.mp3").write_bytes(b"mp3")
        snap = phone.fs.snapshot()
        calls: list[bool] = []
        assert phone.fs.restore(snap, before_change=lambda: calls.append(True)) is False
        assert calls == []
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "keep").write_text("k")
        (root / "sdcard/Download/a.txt").write_text("xyz")  # same size, other bytes
        shutil.rmtree(root / "sdcard/Music/album")
        (root / "sdcard/Music/album").write_text("a file now")
        shutil.rmtree(root / "sdcard/Movies")
        os.symlink(outside, root / "sdcard/Movies")

        def before() -> None:
            calls.append((root / "sdcard/Download/a.txt").read_text() == "xyz")

        assert phone.fs.restore(snap, before_change=before) is True
        assert calls == [True]
        assert (root / "sdcard/Download/a.txt").read_text() == "abc"
        assert (root / "sdcard/Music/album/t.mp3").read_bytes() == b"mp3"
        assert (root / "sdcard/Movies").is_dir() and not (root / "sdcard/Movies").is_symlink()
        assert (outside / "keep").read_text() == "k"
        assert phone.fs.snapshot() == snap
    finally:
        phone.close()


def test_the_clock_runs_on_from_the_save_in_real_time():
    phone = Phone(width=360, height=800, realtime=True)
    try:
        phone.shell("date 031509452024.00")
        state = phone.save_state()
        phone.shell("date 010100002030.00")
        phone.load_state(state)
        assert phone.shell("date")[0].startswith(b"Fri Mar 15 09:45")
        assert np.array_equal(phone.screenshot(), phone.screenshot())
    finally:
        phone.close()


def test_an_apps_handlers_come_back_with_its_screen():
    """Keep's editor saves the note on back through a handler it sets when drawn: code, not state, so the
    load draws the top screen again and back still saves."""
    phone = Phone(width=360, height=800)
    try:
        phone.launch("com.google.android.keep")
        phone.push("edit", focus="title")
        phone.text("Branch")
        phone.screenshot()
        state = phone.save_state()
        phone.keyevent(4)
        saved = phone.shell("content query --uri content://com.google.android.keep/notes")
        phone.load_state(state)
        phone.keyevent(4)
        assert (
            b"Branch"
            in phone.shell(
                "sqlite3 /data/data/com.google.android.keep/databases/keep.db 'SELECT title FROM notes'"
            )[0]
        )
        assert phone.shell("content query --uri content://com.google.android.keep/notes") == saved
    finally:
        phone.close()


def _epoch(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc).timestamp())


def test_files_take_the_phone_clock_and_keep_it_through_a_load(adb, served):
    """A file's and a directory's time is the phone's when they changed (not the host's), and after a load
    `ls`, `stat` and adb's sync STAT and LIST (adbutils) give the saved times back, also for a directory whose
    entries changed after the save (its times used to be the host's, and a directory's were not saved)."""
    phone = served.phone
    device = adbutils.AdbClient(host="127.0.0.1", port=adb.port).device(served.serial)

    def times() -> tuple:
        listed = sorted((f.path, int(f.mtime.timestamp())) for f in device.sync.list("/sdcard/Times"))
        return (
            phone.shell("ls -la /sdcard/Times /sdcard/Times/kept")[0],
            phone.shell("stat -c '%n %Y' /sdcard/Times /sdcard/Times/kept /sdcard/Times/kept/a")[0],
            listed,
            int(device.sync.stat("/sdcard/Times/kept").mtime.timestamp()),
        )

    assert phone.shell("stat -c %Y /sdcard/Download")[0] == b"%d\n" % (db.NOW_MS // 1000)  # the clock's start
    phone.shell("date -s '2025-01-02 03:04:00'; mkdir -p /sdcard/Times/kept; echo a > /sdcard/Times/kept/a")
    saved, at_save = phone.save_state(), times()
    stamps = [int(line.split()[1]) for line in at_save[1].decode().splitlines()]
    assert all(0 <= t - _epoch("2025-01-02 03:04:00") < 60 for t in stamps), at_save
    assert dict(at_save[2])["kept"] == at_save[3] == stamps[1]
    phone.shell("date -s '2031-05-06 07:08:00'; mkdir /sdcard/Times/new; rm /sdcard/Times/kept/a")
    assert times() != at_save and b"2031-05-06 07:08" in phone.shell("ls -l /sdcard/Times")[0]
    phone.load_state(saved)
    assert times() == at_save


def test_ls_t_find_newer_and_test_nt_order_files_by_the_phone_clock():
    phone = Phone(width=360, height=800)
    try:
        phone.shell("cd /sdcard/Download; date -s '2024-06-04 12:00:00'; echo old > old.txt; mkdir later")
        phone.shell("date -s '2024-06-04 13:00:00'; echo new > /sdcard/Download/new.txt")
        phone.shell("date -s '2024-06-04 11:00:00'")  # the clock goes back: the files keep their times
        ls = phone.shell("ls -lt /sdcard/Download")[0].decode().splitlines()[1:]
        assert [line.split()[-3:] for line in ls] == [
            ["2024-06-04", "13:00", "new.txt"],
            ["2024-06-04", "12:00", "later"],
            ["2024-06-04", "12:00", "old.txt"],
        ]
        assert phone.shell("ls -tr /sdcard/Download")[0].split() == [b"old.txt", b"later", b"new.txt"]
        newer = phone.shell("find /sdcard/Download -newer /sdcard/Download/old.txt")[0].split()
        assert newer == [b"/sdcard/Download", b"/sdcard/Download/new.txt"]
        code = phone.shell("cd /sdcard/Download; [ new.txt -nt old.txt ] && [ old.txt -ot new.txt ]")[2]
        assert code == 0
        assert phone.shell("date -r /sdcard/Download/new.txt '+%H:%M'")[0] == b"13:00\n"
        phone.shell("cd /sdcard/Download; mv old.txt later/moved.txt; cp new.txt copy.txt")
        out = phone.shell("cd /sdcard/Download; ls -l later copy.txt")[0].decode()
        assert "2024-06-04 12:00 moved.txt" in out  # mv keeps the time; a copy is new: the clock's time now
        assert "2024-06-04 11:00 copy.txt" in out
        ls = phone.shell("ls -t /sdcard/Download")[0].split()
        assert ls == [b"new.txt", b"copy.txt", b"later"]  # ties by name
    finally:
        phone.close()

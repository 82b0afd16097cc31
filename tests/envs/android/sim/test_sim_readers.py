"""Kept read connections (sim/storage/readers.py): reads reuse one connection per database, and never see a
file that was replaced, rewritten in place, or changed by a shell command or a reset."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading

from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.storage import db

CONTACTS = "content://com.android.contacts/contacts"


def names(phone: Phone) -> set[str]:
    out = phone.shell(f"content query --uri {CONTACTS} --projection display_name")[0].decode()
    return {line.split("display_name=", 1)[1] for line in out.splitlines() if "display_name=" in line}


def test_reads_reuse_one_connection_per_database(phone):
    before = names(phone)
    assert before and names(phone) == before
    assert len(phone.readers) == 1
    phone.shell("settings get system screen_brightness")
    assert len(phone.readers) == 2


def test_a_write_through_sqlite_is_seen_by_the_next_read(phone):
    names(phone)
    phone.shell(f"content insert --uri {CONTACTS} --bind name:s:Zora")
    assert "Zora" in names(phone)
    sql = "UPDATE raw_contacts SET display_name = 'Zed' WHERE display_name = 'Zora'"
    phone.shell(f'sqlite3 {db.CONTACTS_DB} "{sql}"')
    assert "Zed" in names(phone) and "Zora" not in names(phone)


def test_reset_rewrites_files_in_place_and_reads_see_the_pristine_state(phone):
    pristine = names(phone)
    phone.shell(f"content insert --uri {CONTACTS} --bind name:s:Zora")
    assert "Zora" in names(phone)
    phone.reset()
    assert len(phone.readers) == 0
    assert names(phone) == pristine


def test_a_database_deleted_and_recreated_is_read_anew(phone):
    """`pm clear` unlinks the file and creates a new one: a kept connection would still read the old inode."""
    assert names(phone)
    phone.shell("pm clear com.android.providers.contacts")
    assert names(phone) == set()


def test_a_file_replaced_outside_sqlite_is_read_anew(phone, tmp_path):
    """Bytes written over the database by a non-SQLite writer, with the same inode."""
    host = phone.fs.resolve(db.CONTACTS_DB)
    assert names(phone)
    other = tmp_path / "other.db"
    shutil.copyfile(host, other)
    with sqlite3.connect(other) as c:
        c.execute("UPDATE raw_contacts SET display_name = 'Only'")
    c.close()
    inode = os.stat(host).st_ino
    with open(host, "r+b") as fh:  # in place, as Sandbox.restore writes
        fh.write(other.read_bytes())
        fh.truncate()
    assert os.stat(host).st_ino == inode
    assert names(phone) == {"Only"}


def test_a_shell_command_that_changes_files_drops_kept_connections(phone):
    names(phone)
    assert len(phone.readers) == 1
    phone.shell("touch /sdcard/x")
    assert len(phone.readers) == 0


def test_reads_from_another_thread_and_a_forked_child():
    """The adb server answers from its own threads; a vector env forks its workers."""
    phone = Phone(seed=3)
    try:
        expected = names(phone)
        seen: list[set[str]] = []
        t = threading.Thread(target=lambda: seen.append(names(phone)))
        t.start()
        t.join(30)
        assert seen == [expected]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child reads through its parent's Readers object
            ok = names(phone) == expected and phone.readers._pid == os.getpid()
            os.write(w, b"1" if ok else b"0")
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(r, 1) == b"1"
        assert names(phone) == expected  # the parent's kept connection is still good
    finally:
        phone.close()


def test_phone_databases_commit_without_waiting_for_the_disk(phone):
    """The sandbox is rewritten at every reset: writers skip fsync (synchronous=OFF), and a reader on its own
    connection still sees each commit."""
    with db.connect(phone.fs, db.SETTINGS_DB) as c:
        assert c.execute("PRAGMA synchronous").fetchone()[0] == 0
    assert phone.shell("settings get system screen_brightness")[0].strip() != b"7"
    phone.shell("settings put system screen_brightness 7")
    assert phone.shell("settings get system screen_brightness")[0].strip() == b"7"

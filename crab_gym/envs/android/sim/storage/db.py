"""The phone's SQLite state at Android paths, seeded from a seed, with a pristine in-memory copy for reset."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .now import NOW_MS
from .seeddata import DRIVE, MAILS, NOTES

CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
CALLLOG_DB = "/data/data/com.android.providers.contacts/databases/calllog.db"
SMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"
CALENDAR_DB = "/data/data/com.android.providers.calendar/databases/calendar.db"
SETTINGS_DB = "/data/data/com.android.providers.settings/databases/settings.db"
ALARMS_DB = "/data/data/com.google.android.deskclock/databases/alarms.db"
NOTES_DB = "/data/data/com.google.android.keep/databases/keep.db"
TASKS_DB = "/data/data/com.google.android.apps.tasks/databases/tasks.db"
MAIL_DB = "/data/data/com.google.android.gm/databases/mail.db"
MEDIA_DB = "/data/data/com.android.providers.media.module/databases/external.db"
DRIVE_DB = "/data/data/com.google.android.apps.docs/databases/DocList.db"
CHROME_HISTORY = "/data/data/com.android.chrome/app_chrome/Default/History"
MAPS_DB = "/data/data/com.google.android.apps.maps/databases/gmm_myplaces.db"

PHONE_MIME = "vnd.android.cursor.item/phone_v2"
EMAIL_MIME = "vnd.android.cursor.item/email_v2"
NAME_MIME = "vnd.android.cursor.item/name"

SCHEMAS = {
    CONTACTS_DB: """
CREATE TABLE mimetypes (_id INTEGER PRIMARY KEY AUTOINCREMENT, mimetype TEXT NOT NULL UNIQUE);
CREATE TABLE raw_contacts (_id INTEGER PRIMARY KEY AUTOINCREMENT, contact_id INTEGER, display_name TEXT,
  display_name_alt TEXT, starred INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0,
  account_name TEXT, account_type TEXT);
CREATE TABLE data (_id INTEGER PRIMARY KEY AUTOINCREMENT, raw_contact_id INTEGER NOT NULL,
  mimetype_id INTEGER NOT NULL, is_primary INTEGER NOT NULL DEFAULT 0, data1 TEXT, data2 TEXT, data3 TEXT);
CREATE VIEW view_data AS SELECT data._id AS _id, data.raw_contact_id AS raw_contact_id,
  raw_contacts.contact_id AS contact_id, mimetype, data1, data2, data3, is_primary, display_name, starred
  FROM data JOIN raw_contacts ON raw_contacts._id = data.raw_contact_id
  JOIN mimetypes ON mimetypes._id = data.mimetype_id WHERE raw_contacts.deleted = 0;
CREATE VIEW view_phones AS SELECT _id, raw_contact_id, contact_id, mimetype, display_name, data1, data2,
  data1 AS number, data2 AS type, starred FROM view_data WHERE mimetype = 'vnd.android.cursor.item/phone_v2';
CREATE VIEW view_emails AS SELECT _id, raw_contact_id, contact_id, mimetype, display_name, data1, data2,
  data1 AS address, starred FROM view_data WHERE mimetype = 'vnd.android.cursor.item/email_v2';
CREATE VIEW view_contacts AS SELECT contact_id AS _id, display_name, starred,
  EXISTS(SELECT 1 FROM view_phones p WHERE p.contact_id = raw_contacts.contact_id) AS has_phone_number
  FROM raw_contacts WHERE deleted = 0;
CREATE VIEW view_people AS SELECT contact_id AS _id, display_name AS name,
  (SELECT data1 FROM view_phones p WHERE p.contact_id = raw_contacts.contact_id ORDER BY p._id LIMIT 1)
  AS number, starred FROM raw_contacts WHERE deleted = 0;
""",
    CALLLOG_DB: """
CREATE TABLE calls (_id INTEGER PRIMARY KEY AUTOINCREMENT, number TEXT, date INTEGER, duration INTEGER,
  type INTEGER, new INTEGER DEFAULT 1, name TEXT, is_read INTEGER DEFAULT 0);
""",
    # AOSP's MmsSmsDatabaseHelper: threads and canonical_addresses, kept up to date by triggers on sms. As in
    # AOSP, nothing deletes sms rows when threads are deleted (the provider's conversation delete does both).
    # The thread date comes from the message (AOSP uses the wall clock) so that runs stay reproducible.
    SMS_DB: """
CREATE TABLE sms (_id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id INTEGER, address TEXT, person INTEGER,
  date INTEGER, date_sent INTEGER DEFAULT 0, protocol INTEGER, read INTEGER DEFAULT 0,
  status INTEGER DEFAULT -1,
  type INTEGER, subject TEXT, body TEXT, seen INTEGER DEFAULT 0);
CREATE TABLE canonical_addresses (_id INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT,
  sub_id INTEGER DEFAULT -1);
CREATE TABLE threads (_id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER DEFAULT 0,
  message_count INTEGER DEFAULT 0, recipient_ids TEXT, snippet TEXT, snippet_cs INTEGER DEFAULT 0,
  read INTEGER DEFAULT 1, archived INTEGER DEFAULT 0, type INTEGER DEFAULT 0, error INTEGER DEFAULT 0,
  has_attachment INTEGER DEFAULT 0, sub_id INTEGER DEFAULT -1);
CREATE TRIGGER sms_update_thread_on_insert AFTER INSERT ON sms BEGIN
  UPDATE threads SET date = new.date, snippet = new.body, snippet_cs = 0 WHERE threads._id = new.thread_id;
  UPDATE threads SET message_count = (SELECT COUNT(sms._id) FROM sms WHERE thread_id = new.thread_id
    AND sms.type != 3) WHERE threads._id = new.thread_id;
  UPDATE threads SET read = CASE (SELECT COUNT(*) FROM sms WHERE read = 0 AND thread_id = threads._id)
    WHEN 0 THEN 1 ELSE 0 END WHERE threads._id = new.thread_id;
END;
CREATE TRIGGER sms_update_thread_date_subject_on_update AFTER UPDATE OF date, body, type ON sms BEGIN
  UPDATE threads SET date = new.date, snippet = new.body, snippet_cs = 0 WHERE threads._id = new.thread_id;
  UPDATE threads SET message_count = (SELECT COUNT(sms._id) FROM sms WHERE thread_id = new.thread_id
    AND sms.type != 3) WHERE threads._id = new.thread_id;
END;
CREATE TRIGGER sms_update_thread_read_on_update AFTER UPDATE OF read ON sms BEGIN
  UPDATE threads SET read = CASE (SELECT COUNT(*) FROM sms WHERE read = 0 AND thread_id = threads._id)
    WHEN 0 THEN 1 ELSE 0 END WHERE threads._id = new.thread_id;
END;
""",
    CALENDAR_DB: """
CREATE TABLE Calendars (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, calendar_displayName TEXT,
  account_name TEXT, account_type TEXT, visible INTEGER DEFAULT 1, calendar_color INTEGER,
  calendar_access_level INTEGER DEFAULT 700, ownerAccount TEXT, sync_events INTEGER DEFAULT 1,
  calendar_timezone TEXT);
CREATE TABLE Events (_id INTEGER PRIMARY KEY AUTOINCREMENT, calendar_id INTEGER DEFAULT 1, title TEXT,
  eventLocation TEXT, description TEXT, dtstart INTEGER, dtend INTEGER, allDay INTEGER DEFAULT 0,
  eventTimezone TEXT DEFAULT 'UTC', deleted INTEGER DEFAULT 0);
""",
    SETTINGS_DB: """
CREATE TABLE system (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE ON CONFLICT REPLACE, value TEXT);
CREATE TABLE secure (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE ON CONFLICT REPLACE, value TEXT);
CREATE TABLE global (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE ON CONFLICT REPLACE, value TEXT);
""",
    ALARMS_DB: """
CREATE TABLE alarm_templates (_id INTEGER PRIMARY KEY AUTOINCREMENT, hour INTEGER NOT NULL,
  minutes INTEGER NOT NULL, days_of_week INTEGER NOT NULL DEFAULT 0, enabled INTEGER NOT NULL DEFAULT 1,
  vibrate INTEGER NOT NULL DEFAULT 1, label TEXT NOT NULL DEFAULT '', ringtone TEXT,
  delete_after_use INTEGER NOT NULL DEFAULT 0);
CREATE TABLE timers (_id INTEGER PRIMARY KEY AUTOINCREMENT, length INTEGER NOT NULL, label TEXT DEFAULT '',
  started INTEGER, rang INTEGER);
""",
    NOTES_DB: """
CREATE TABLE notes (_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL DEFAULT '', created INTEGER, modified INTEGER, pinned INTEGER DEFAULT 0,
  archived INTEGER DEFAULT 0);
""",
    TASKS_DB: """
CREATE TABLE tasks (_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, notes TEXT DEFAULT '',
  due INTEGER, completed INTEGER NOT NULL DEFAULT 0, list TEXT DEFAULT 'My Tasks');
""",
    MAIL_DB: """
CREATE TABLE messages (_id INTEGER PRIMARY KEY AUTOINCREMENT, folder TEXT NOT NULL, sender TEXT,
  recipient TEXT, subject TEXT, body TEXT, date INTEGER, read INTEGER DEFAULT 0);
""",
    MEDIA_DB: """
CREATE TABLE files (_id INTEGER PRIMARY KEY AUTOINCREMENT, _data TEXT UNIQUE COLLATE NOCASE, _size INTEGER,
  date_added INTEGER, date_modified INTEGER, mime_type TEXT, title TEXT, _display_name TEXT,
  media_type INTEGER DEFAULT 0, relative_path TEXT, bucket_display_name TEXT,
  volume_name TEXT DEFAULT 'external_primary');
""",
    # Drive's entries: files and folders of My Drive (parent_id NULL), an uploaded file's bytes under files/.
    DRIVE_DB: """
CREATE TABLE entries (_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, mime_type TEXT NOT NULL,
  parent_id INTEGER, size INTEGER DEFAULT 0, created INTEGER, modified INTEGER, trashed INTEGER DEFAULT 0,
  blob TEXT);
""",
    # Chrome's History database: its urls and visits tables (the columns tasks read).
    CHROME_HISTORY: """
CREATE TABLE urls (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT UNIQUE, title TEXT DEFAULT '',
  visit_count INTEGER DEFAULT 0, last_visit_time INTEGER DEFAULT 0);
CREATE TABLE visits (id INTEGER PRIMARY KEY AUTOINCREMENT, url INTEGER NOT NULL, visit_time INTEGER);
""",
    # Maps' searches and directions, as the app shows them under "Recent".
    MAPS_DB: """
CREATE TABLE searches (_id INTEGER PRIMARY KEY AUTOINCREMENT, query TEXT NOT NULL,
  result TEXT DEFAULT '', address TEXT DEFAULT '', time INTEGER);
CREATE TABLE directions (_id INTEGER PRIMARY KEY AUTOINCREMENT, origin TEXT NOT NULL,
  destination TEXT NOT NULL, distance_m INTEGER, time INTEGER);
""",
}
# The databases each package's `pm clear` empties (the app's own, or the provider's).
PACKAGE_DATABASES = {
    "com.android.providers.contacts": (CONTACTS_DB, CALLLOG_DB),
    "com.android.providers.telephony": (SMS_DB,),
    "com.android.providers.calendar": (CALENDAR_DB,),
    "com.android.providers.settings": (SETTINGS_DB,),
    "com.android.providers.media.module": (MEDIA_DB,),
    "com.google.android.deskclock": (ALARMS_DB,),
    "com.google.android.keep": (NOTES_DB,),
    "com.google.android.apps.tasks": (TASKS_DB,),
    "com.google.android.gm": (MAIL_DB,),
    "com.google.android.apps.docs": (DRIVE_DB,),
    "com.android.chrome": (CHROME_HISTORY,),
    "com.google.android.apps.maps": (MAPS_DB,),
}

SETTINGS = {
    "system": {
        "screen_brightness": "102",
        "screen_brightness_mode": "0",
        "screen_off_timeout": "60000",
        "font_scale": "1.0",
        "accelerometer_rotation": "0",
        "volume_ring": "5",
    },
    "secure": {
        "ui_night_mode": "1",
        "location_mode": "3",
        "android_id": "crab0000sim00000",
        "default_input_method": "com.android.inputmethod.latin/.LatinIME",
    },
    "global": {
        "airplane_mode_on": "0",
        "wifi_on": "1",
        "bluetooth_on": "0",
        "mobile_data": "1",
        "auto_time": "1",
        "adb_enabled": "1",
        "development_settings_enabled": "1",
        "device_name": "CrabPhone",
        "window_animation_scale": "0",
        "transition_animation_scale": "0",
        "animator_duration_scale": "0",
    },
}


def create_database(fs, path: str) -> None:
    """(Re)create one database at its Android path with its schema and the rows its provider creates with it
    (contacts2.db's mimetypes, settings.db's defaults): what a provider holds after `pm clear`."""
    host = fs.resolve(path)
    host.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(str(host) + suffix).unlink(missing_ok=True)
    with open_db(host) as c:
        c.executescript(SCHEMAS[path])
        if path == CONTACTS_DB:
            c.executemany(
                "INSERT INTO mimetypes (mimetype) VALUES (?)",
                [(m,) for m in (NAME_MIME, PHONE_MIME, EMAIL_MIME)],
            )
        if path == SETTINGS_DB:
            for table, values in SETTINGS.items():
                c.executemany(f"INSERT INTO {table} (name, value) VALUES (?, ?)", sorted(values.items()))
    c.close()


def seed_databases(fs, seed: int) -> None:
    """Create every database at its Android path and fill it deterministically from `seed`."""
    from .baseline import CALENDAR, baseline  # here: a phone seeded from the cache never needs it

    base = baseline(seed)
    for path in SCHEMAS:
        create_database(fs, path)
    with connect(fs, CONTACTS_DB) as c:
        for person in base.contacts:
            add_contact(c, person.name, person.number, person.email)
    with connect(fs, SMS_DB) as c:
        for m in base.sms:
            insert_sms(c, m.address, m.body, m.date, m.type, read=m.read)
    with connect(fs, CALLLOG_DB) as c:
        c.executemany(
            "INSERT INTO calls (number, date, duration, type, name, new, is_read) VALUES (?,?,?,?,?,0,1)",
            [(k.number, k.date, k.duration, k.type, k.name) for k in base.calls],
        )
    with connect(fs, CALENDAR_DB) as c:
        c.execute(
            "INSERT INTO Calendars (name, calendar_displayName, account_name, account_type) VALUES (?,?,?,?)",
            (CALENDAR["name"], CALENDAR["calendar_displayName"], CALENDAR["account_name"], "LOCAL"),
        )
        c.executemany(
            "INSERT INTO Events (title, eventLocation, description, dtstart, dtend) VALUES (?,?,'',?,?)",
            [(e.title, e.location, e.dtstart, e.dtend) for e in base.events],
        )
    with connect(fs, ALARMS_DB) as c:
        c.execute("INSERT INTO alarm_templates (hour, minutes, enabled, label) VALUES (7, 0, 1, 'Wake up')")
        c.execute("INSERT INTO alarm_templates (hour, minutes, enabled, label) VALUES (8, 30, 0, '')")
    with connect(fs, NOTES_DB) as c:
        for i, (title, body) in enumerate(NOTES):
            c.execute(
                "INSERT INTO notes (title, body, created, modified) VALUES (?,?,?,?)",
                (title, body, NOW_MS - i * 1000, NOW_MS - i * 1000),
            )
    with connect(fs, TASKS_DB) as c:
        c.executemany("INSERT INTO tasks (title) VALUES (?)", [(t,) for t in base.tasks])
    with connect(fs, MAIL_DB) as c:
        for i, (sender, subject, body) in enumerate(MAILS):
            c.execute(
                "INSERT INTO messages (folder, sender, recipient, subject, body, date) VALUES "
                "('inbox',?,?,?,?,?)",
                (sender, "me@example.com", subject, body, NOW_MS - i * 600_000),
            )
    with connect(fs, DRIVE_DB) as c:
        for i, (title, mime, size) in enumerate(DRIVE):
            when = NOW_MS - (len(DRIVE) - i) * 86_400_000
            c.execute(
                "INSERT INTO entries (title, mime_type, size, created, modified) VALUES (?,?,?,?,?)",
                (title, mime, size, when, when),
            )


def open_db(host: str | Path, **kwargs) -> sqlite3.Connection:
    """A writing connection to a phone database that does not wait for the disk: the sandbox is rewritten at
    every reset, so a commit needs no fsync (``synchronous=OFF``; every connection, in this process or
    another, still sees each commit at once). An fsync on the host's disk took 1-3 ms a commit and made a
    step that toggles a setting 5-7x the cost of one that changes nothing."""
    conn = sqlite3.connect(host, timeout=5.0, **kwargs)
    conn.execute("PRAGMA synchronous=OFF")
    return conn


class connect:
    """A short-lived connection to an Android-path database, committed and closed on exit."""

    def __init__(self, fs, path: str) -> None:
        self.conn = open_db(fs.resolve(path))

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, exc_type, *rest) -> None:
        if exc_type is None:
            self.conn.commit()
        self.conn.close()


def add_contact(c: sqlite3.Connection, name: str, number: str = "", email: str = "") -> int:
    rid = new_raw_contact(c, account_type="com.android.localphone")
    name_contact(c, rid, name)
    mimes = dict(c.execute("SELECT mimetype, _id FROM mimetypes"))
    c.execute(
        "INSERT INTO data (raw_contact_id, mimetype_id, data1) VALUES (?,?,?)", (rid, mimes[NAME_MIME], name)
    )
    if number:
        c.execute(
            "INSERT INTO data (raw_contact_id, mimetype_id, data1, data2, is_primary) VALUES (?,?,?,2,1)",
            (rid, mimes[PHONE_MIME], number),
        )
    if email:
        c.execute(
            "INSERT INTO data (raw_contact_id, mimetype_id, data1, data2) VALUES (?,?,?,1)",
            (rid, mimes[EMAIL_MIME], email),
        )
    return int(rid or 0)


def new_raw_contact(c: sqlite3.Connection, **account: object) -> int:
    """An empty raw contact (its own aggregate contact), as a stock raw_contacts insert makes one."""
    cols = [k for k in ("account_name", "account_type") if account.get(k) is not None]
    names, marks = ", ".join(cols) or "deleted", ", ".join("?" * len(cols)) or "0"
    rid = c.execute(
        f"INSERT INTO raw_contacts ({names}) VALUES ({marks})", [account[k] for k in cols]
    ).lastrowid
    c.execute("UPDATE raw_contacts SET contact_id = ? WHERE _id = ?", (rid, rid))
    return int(rid or 0)


def name_contact(c: sqlite3.Connection, rid: int, name: str) -> None:
    """A raw contact's display name, as the provider derives it from a StructuredName row."""
    alt = ", ".join(reversed(name.split(" ", 1)))
    c.execute(
        "UPDATE raw_contacts SET display_name = ?, display_name_alt = ? WHERE _id = ?", (name, alt, rid)
    )


def thread_of(c: sqlite3.Connection, address: str) -> int | None:
    """The conversation with `address` (Threads.getOrCreateThreadId's lookup), None if there is none."""
    row = c.execute(
        "SELECT t._id FROM threads t JOIN canonical_addresses a ON t.recipient_ids = CAST(a._id AS TEXT) "
        "WHERE a.address = ? ORDER BY t._id LIMIT 1",
        (address,),
    ).fetchone()
    return None if row is None else int(row[0])


def thread_id_for(c: sqlite3.Connection, address: str) -> int:
    """The conversation with `address`, created (with its canonical address) when there is none."""
    tid = thread_of(c, address)
    if tid is not None:
        return tid
    row = c.execute("SELECT _id FROM canonical_addresses WHERE address = ?", (address,)).fetchone()
    aid = (
        row[0]
        if row
        else c.execute("INSERT INTO canonical_addresses (address) VALUES (?)", (address,)).lastrowid
    )
    return int(c.execute("INSERT INTO threads (recipient_ids) VALUES (?)", (str(aid),)).lastrowid or 0)


def update_threads(c: sqlite3.Connection) -> None:
    """After messages were deleted through the provider (MmsSmsDatabaseHelper.updateAllThreads): threads
    without messages go, the others get their count, date and snippet again."""
    c.execute(
        "DELETE FROM threads WHERE _id NOT IN "
        "(SELECT DISTINCT thread_id FROM sms WHERE thread_id IS NOT NULL)"
    )
    c.execute(
        "UPDATE threads SET message_count ="
        " (SELECT COUNT(*) FROM sms WHERE thread_id = threads._id AND type != 3),"
        " date = (SELECT date FROM sms WHERE thread_id = threads._id ORDER BY date DESC LIMIT 1),"
        " snippet = (SELECT body FROM sms WHERE thread_id = threads._id ORDER BY date DESC LIMIT 1)"
    )


def insert_sms(c: sqlite3.Connection, address: str, body: str, date: int, type_: int, read: int = 1) -> int:
    cur = c.execute(
        "INSERT INTO sms (thread_id, address, date, date_sent, read, type, body, seen) "
        "VALUES (?,?,?,?,?,?,?,1)",
        (thread_id_for(c, address), address, date, date, read, type_, body),
    )
    return int(cur.lastrowid or 0)

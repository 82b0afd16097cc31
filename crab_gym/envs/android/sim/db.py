"""The phone's SQLite state at Android paths, seeded from a seed, with a pristine in-memory copy for reset."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
CALLLOG_DB = "/data/data/com.android.providers.contacts/databases/calllog.db"
SMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"
CALENDAR_DB = "/data/data/com.android.providers.calendar/databases/calendar.db"
SETTINGS_DB = "/data/data/com.android.providers.settings/databases/settings.db"
ALARMS_DB = "/data/data/com.google.android.deskclock/databases/alarms.db"
NOTES_DB = "/data/data/com.google.android.keep/databases/keep.db"
TASKS_DB = "/data/data/com.google.android.apps.tasks/databases/tasks.db"
MAIL_DB = "/data/data/com.google.android.gm/databases/mail.db"

PHONE_MIME = "vnd.android.cursor.item/phone_v2"
EMAIL_MIME = "vnd.android.cursor.item/email_v2"
NAME_MIME = "vnd.android.cursor.item/name"
# The simulated "now": 2024-03-15 09:30:00 UTC, in milliseconds (a fixed clock keeps episodes reproducible).
NOW_MS = 1710495000000

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
    SMS_DB: """
CREATE TABLE sms (_id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id INTEGER, address TEXT, person INTEGER,
  date INTEGER, date_sent INTEGER DEFAULT 0, protocol INTEGER, read INTEGER DEFAULT 0,
  status INTEGER DEFAULT -1,
  type INTEGER, subject TEXT, body TEXT, seen INTEGER DEFAULT 0);
""",
    CALENDAR_DB: """
CREATE TABLE Calendars (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, calendar_displayName TEXT,
  account_name TEXT, account_type TEXT, visible INTEGER DEFAULT 1);
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
CREATE TABLE timers (_id INTEGER PRIMARY KEY AUTOINCREMENT, length INTEGER NOT NULL, label TEXT DEFAULT '');
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
}

FIRST = [
    "Alice",
    "Bob",
    "Carol",
    "David",
    "Emma",
    "Frank",
    "Grace",
    "Henry",
    "Isabel",
    "Jack",
    "Karen",
    "Liam",
    "Maria",
    "Noah",
    "Olivia",
    "Peter",
    "Quinn",
    "Rosa",
    "Sam",
    "Tina",
    "Umar",
    "Vera",
    "Walter",
    "Yuki",
]
LAST = [
    "Smith",
    "Johnson",
    "Brown",
    "Garcia",
    "Miller",
    "Davis",
    "Lopez",
    "Wilson",
    "Anderson",
    "Thomas",
    "Moore",
    "Martin",
    "Lee",
    "Clark",
    "Lewis",
    "Walker",
    "Young",
    "King",
    "Wright",
    "Scott",
]
SMS_BODIES = [
    "See you at 6?",
    "Running 10 minutes late",
    "Can you call me back?",
    "Thanks for lunch!",
    "The meeting moved to 3pm",
    "Happy birthday!",
    "Did you get my email?",
    "On my way",
    "Let's meet at the station",
    "Don't forget the tickets",
]
EVENTS = [
    ("Team meeting", "Room 4B"),
    ("Dentist", "Main St Clinic"),
    ("Lunch with Sam", "Cafe Luna"),
    ("Project review", "Online"),
    ("Gym", "City Gym"),
    ("Flight to Berlin", "Airport T2"),
]
NOTES = [
    ("Shopping list", "Milk, eggs, bread"),
    ("Ideas", "Write the quarterly report outline"),
    ("Wi-Fi password", "guest network: crab2024"),
]
TASKS = ["Pay electricity bill", "Book train tickets", "Call the plumber", "Return library books"]
MAILS = [
    ("newsletter@example.com", "Weekly digest", "Top stories of the week."),
    ("boss@example.com", "Report due Friday", "Please send the report by Friday noon."),
    ("friend@example.com", "Weekend plans", "Hiking on Saturday?"),
]
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


def phone_number(rng: random.Random) -> str:
    return f"+1 555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"


def seed_databases(fs, seed: int) -> None:
    """Create every database at its Android path and fill it deterministically from `seed`."""
    rng = random.Random(seed)
    for path, schema in SCHEMAS.items():
        host = fs.resolve(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(str(host) + suffix).unlink(missing_ok=True)
        with sqlite3.connect(host) as c:
            c.executescript(schema)
        c.close()
    names = rng.sample([f"{f} {ln}" for f in FIRST for ln in LAST], 12)
    numbers = [phone_number(rng) for _ in names]
    with connect(fs, CONTACTS_DB) as c:
        for mime in (NAME_MIME, PHONE_MIME, EMAIL_MIME):
            c.execute("INSERT INTO mimetypes (mimetype) VALUES (?)", (mime,))
        for name, number in zip(names, numbers, strict=True):
            add_contact(c, name, number, f"{name.split()[0].lower()}@example.com")
    with connect(fs, SMS_DB) as c:
        for i in range(8):
            k = rng.randrange(len(names))
            insert_sms(
                c,
                numbers[k],
                rng.choice(SMS_BODIES),
                NOW_MS - (8 - i) * 3_600_000,
                rng.choice((1, 1, 2)),
                read=1,
            )
    with connect(fs, CALLLOG_DB) as c:
        for i in range(6):
            k = rng.randrange(len(names))
            c.execute(
                "INSERT INTO calls (number, date, duration, type, name, new, is_read) VALUES (?,?,?,?,?,0,1)",
                (
                    numbers[k],
                    NOW_MS - (6 - i) * 7_200_000,
                    rng.randint(0, 600),
                    rng.choice((1, 2, 3)),
                    names[k],
                ),
            )
    with connect(fs, CALENDAR_DB) as c:
        c.execute(
            "INSERT INTO Calendars (name, calendar_displayName, account_name, account_type) VALUES "
            "('personal', 'Personal', 'crab@example.com', 'LOCAL')"
        )
        for i, (title, where) in enumerate(rng.sample(EVENTS, 4)):
            start = NOW_MS + (i + 1) * 86_400_000 + rng.randint(8, 17) * 3_600_000 - 9 * 3_600_000
            c.execute(
                "INSERT INTO Events (title, eventLocation, description, dtstart, dtend) VALUES (?,?,?,?,?)",
                (title, where, "", start, start + 3_600_000),
            )
    with connect(fs, SETTINGS_DB) as c:
        for table, values in SETTINGS.items():
            c.executemany(f"INSERT INTO {table} (name, value) VALUES (?, ?)", sorted(values.items()))
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
        for title in rng.sample(TASKS, 3):
            c.execute("INSERT INTO tasks (title) VALUES (?)", (title,))
    with connect(fs, MAIL_DB) as c:
        for i, (sender, subject, body) in enumerate(MAILS):
            c.execute(
                "INSERT INTO messages (folder, sender, recipient, subject, body, date) VALUES "
                "('inbox',?,?,?,?,?)",
                (sender, "me@example.com", subject, body, NOW_MS - i * 600_000),
            )


class connect:
    """A short-lived connection to an Android-path database, committed and closed on exit."""

    def __init__(self, fs, path: str) -> None:
        self.conn = sqlite3.connect(fs.resolve(path), timeout=5.0)

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, exc_type, *rest) -> None:
        if exc_type is None:
            self.conn.commit()
        self.conn.close()


def add_contact(c: sqlite3.Connection, name: str, number: str = "", email: str = "") -> int:
    cur = c.execute(
        "INSERT INTO raw_contacts (display_name, display_name_alt, account_type) VALUES (?,?,?)",
        (name, ", ".join(reversed(name.split(" ", 1))), "com.android.localphone"),
    )
    rid = cur.lastrowid
    c.execute("UPDATE raw_contacts SET contact_id = ? WHERE _id = ?", (rid, rid))
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


def thread_id_for(c: sqlite3.Connection, address: str) -> int:
    row = c.execute("SELECT thread_id FROM sms WHERE address = ? LIMIT 1", (address,)).fetchone()
    if row:
        return int(row[0])
    return int(c.execute("SELECT COALESCE(MAX(thread_id), 0) + 1 FROM sms").fetchone()[0])


def insert_sms(c: sqlite3.Connection, address: str, body: str, date: int, type_: int, read: int = 1) -> int:
    cur = c.execute(
        "INSERT INTO sms (thread_id, address, date, date_sent, read, type, body, seen) "
        "VALUES (?,?,?,?,?,?,?,1)",
        (thread_id_for(c, address), address, date, date, read, type_, body),
    )
    return int(cur.lastrowid or 0)

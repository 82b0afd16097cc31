"""A phone we can neither snapshot nor reset by name (``adb:<serial>`` that is no emulator) put back to a
seed's data over adb only: ``pm clear`` of the task apps and the stock providers' packages, the task folders
on /sdcard emptied, then the seed's :class:`~crab_gym.envs.android.sim.storage.baseline.Baseline` written
through the stock content providers in their own schemas (``content insert``) and ``adb push``.

The writes are the ones a stock Android takes from the shell: a contact is an empty ``raw_contacts`` row
then ``data`` rows (StructuredName, Phone, Email) naming its ``raw_contact_id``; a calendar is inserted as a
sync adapter (``caller_is_syncadapter=true`` with its account), then events with its ``calendar_id``; text
messages go to ``content://sms/inbox`` / ``sent`` after ``appops set com.android.shell WRITE_SMS allow``
(only the default SMS app may write them otherwise). What no stock provider holds (the Tasks, Keep, Clock
and Gmail apps' own databases, settings) is cleared, not seeded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING

from crab_gym.envs.android.device import quote
from crab_gym.envs.android.sim.storage.baseline import CALENDAR, Baseline, Contact, baseline
from crab_gym.envs.base import DeviceError

if TYPE_CHECKING:
    from crab_gym.envs.android.device import Device

# The apps tasks use: a reset on a real device clears them (an emulator's snapshot or our phone's own reset
# restores them instead).
TASK_PACKAGES = (
    "com.android.contacts",
    "com.google.android.apps.messaging",
    "com.google.android.dialer",
    "com.google.android.calendar",
    "com.google.android.deskclock",
    "com.google.android.apps.tasks",
    "com.google.android.keep",
    "com.google.android.documentsui",
    "com.android.settings",
    "com.google.android.gm",
    "com.android.camera2",
)
# The stock providers the task apps keep their data in (contacts and call log, SMS, calendar).
PROVIDER_PACKAGES = (
    "com.android.providers.contacts",
    "com.android.providers.telephony",
    "com.android.providers.calendar",
)
# Where tasks put and look for files; each is removed and made again (a phone kept for tests only).
SDCARD_DIRS = (
    "/sdcard/Download",
    "/sdcard/Documents",
    "/sdcard/Pictures",
    "/sdcard/DCIM/Camera",
    "/sdcard/Music",
    "/sdcard/Movies",
)
# What a provider's rows are deleted through when its package cannot be cleared (a phone that refuses).
FALLBACK_DELETES = {
    "com.android.providers.contacts": (
        "content://com.android.contacts/raw_contacts?caller_is_syncadapter=true",
        "content://call_log/calls",
    ),
    "com.android.providers.telephony": ("content://sms",),
    "com.android.providers.calendar": ("content://com.android.calendar/events",),
}
CONTACTS = "content://com.android.contacts"
NAME, PHONE, EMAIL = (f"vnd.android.cursor.item/{m}" for m in ("name", "phone_v2", "email_v2"))
BOXES = {1: "inbox", 2: "sent"}  # an SMS's type: the provider uri it is inserted through
CHUNK = 3000  # characters of one shell command line (adbd's old limit was 4 KiB)
_ROW_ID = re.compile(rb"Row: \d+ _id=(\d+)")


def bind(name: str, value: str | int | None) -> str:
    """One ``--bind`` of ``content``: a string, a long or a null."""
    if value is None:
        return f"--bind {name}:n:"
    if isinstance(value, int):
        return f"--bind {name}:l:{value}"
    return "--bind " + quote(f"{name}:s:{value}")


def insert(uri: str, **values: str | int | None) -> str:
    """A ``content insert`` command line."""
    return f"content insert --uri {quote(uri)} " + " ".join(bind(k, v) for k, v in values.items())


def run(dev: Device, commands: Iterable[str]) -> bytes:
    """Run command lines joined by ``&&`` in as few shell calls as fit CHUNK; the first failure raises."""
    out: list[bytes] = []
    batch: list[str] = []

    def flush() -> None:
        if batch:
            line = " && ".join(batch)
            stdout, err, code = dev.shell(line)
            if code != 0:
                raise DeviceError(f"seeding failed ({code}) at {line[:120]!r}: {(stdout + err)[:300]!r}")
            out.append(stdout)
            batch.clear()

    for cmd in commands:
        if batch and sum(len(c) + 4 for c in batch) + len(cmd) > CHUNK:
            flush()
        batch.append(cmd)
    flush()
    return b"".join(out)


def last_ids(dev: Device, uri: str, count: int) -> list[int]:
    """The ``count`` highest ``_id`` of a provider, oldest first (the rows just inserted)."""
    out = run(dev, [f"content query --uri {quote(uri)} --projection _id"])
    ids = sorted(int(m) for m in _ROW_ID.findall(out))
    if len(ids) < count:
        raise DeviceError(f"seeding: {uri} lists {len(ids)} rows after inserting {count}")
    return ids[len(ids) - count :]


def insert_contacts(dev: Device, contacts: Sequence[Contact]) -> list[int]:
    """Contacts as a stock provider takes them: empty raw contacts, then their name, phone and email data
    rows; returns the raw contact ids."""
    if not contacts:
        return []
    raw = f"{CONTACTS}/raw_contacts"
    run(dev, [insert(raw, account_name=None, account_type=None)] * len(contacts))
    ids = last_ids(dev, raw, len(contacts))
    rows = []
    for rid, person in zip(ids, contacts, strict=True):
        rows.append(insert(f"{CONTACTS}/data", raw_contact_id=rid, mimetype=NAME, data1=person.name))
        if person.number:
            rows.append(
                insert(
                    f"{CONTACTS}/data",
                    raw_contact_id=rid,
                    mimetype=PHONE,
                    data1=person.number,
                    data2=2,
                    is_primary=1,
                )
            )
        if person.email:
            rows.append(
                insert(f"{CONTACTS}/data", raw_contact_id=rid, mimetype=EMAIL, data1=person.email, data2=1)
            )
    run(dev, rows)
    return ids


def seed(dev: Device, base: Baseline) -> None:
    """Write ``base`` into the phone's stock providers and storage (nothing is deleted here)."""
    insert_contacts(dev, base.contacts)
    if base.sms:
        dev.shell("appops set com.android.shell WRITE_SMS allow")  # not every phone knows the op: best effort
    # the dataclasses' fields are the providers' column names
    sms = [insert(f"content://sms/{BOXES[m.type]}", **asdict(m), date_sent=m.date, seen=1) for m in base.sms]
    calls = [insert("content://call_log/calls", **asdict(k), new=0, is_read=1) for k in base.calls]
    run(dev, sms + calls)
    if base.events:
        account = CALENDAR["account_name"]
        calendars = (
            f"content://com.android.calendar/calendars?caller_is_syncadapter=true&account_name={account}"
        )
        run(
            dev,
            [
                insert(
                    calendars + "&account_type=LOCAL",
                    account_name=account,
                    account_type="LOCAL",
                    name=CALENDAR["name"],
                    calendar_displayName=CALENDAR["calendar_displayName"],
                    calendar_access_level=700,
                    ownerAccount=account,
                    visible=1,
                    sync_events=1,
                )
            ],
        )
        (cal,) = last_ids(dev, "content://com.android.calendar/calendars", 1)
        run(
            dev,
            (
                insert(
                    "content://com.android.calendar/events",
                    calendar_id=cal,
                    title=e.title,
                    eventLocation=e.location,
                    description="",
                    dtstart=e.dtstart,
                    dtend=e.dtend,
                    eventTimezone="UTC",
                )
                for e in base.events
            ),
        )
    for path, data in base.files.items():
        dev.push(path, data)


def clear(dev: Device, packages: Sequence[str] = TASK_PACKAGES + PROVIDER_PACKAGES) -> list[str]:
    """``pm clear`` each package (one a phone lacks is skipped); a provider that refuses has its rows
    deleted instead; the task folders on /sdcard are emptied. Returns the packages cleared."""
    cleared = []
    for pkg in packages:
        out, _, code = dev.shell(f"pm clear {quote(pkg)}")
        if code == 0 and b"Success" in out:
            cleared.append(pkg)
        else:
            for uri in FALLBACK_DELETES.get(pkg, ()):
                dev.shell(f"content delete --uri {quote(uri)}")
    run(dev, [f"rm -rf {d} && mkdir -p {d}" for d in SDCARD_DIRS])
    return cleared


def reset_physical(dev: Device, seed_: int) -> None:
    """Home, the task's apps (``dev.task_apps``, else every task app) and the providers cleared, the seed's
    data written back, home again."""
    dev.keyevent(3)
    clear(dev, (dev.task_apps or TASK_PACKAGES) + PROVIDER_PACKAGES)
    seed(dev, baseline(seed_))
    dev.keyevent(3)


__all__ = [
    "PROVIDER_PACKAGES",
    "SDCARD_DIRS",
    "TASK_PACKAGES",
    "clear",
    "insert_contacts",
    "reset_physical",
    "seed",
]

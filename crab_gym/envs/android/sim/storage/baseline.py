"""What a seed puts in the phone's stock providers (contacts, SMS, call log, calendar) and on its storage, as
plain data: our phone writes it into its databases (:func:`.db.seed_databases`), a real phone gets it over
adb (:mod:`crab_gym.envs.android.seeder`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .now import NOW_MS
from .seeddata import EVENTS, FIRST, LAST, SMS_BODIES, TASKS

CALENDAR = {"name": "personal", "calendar_displayName": "Personal", "account_name": "crab@example.com"}


@dataclass(frozen=True)
class Contact:
    name: str
    number: str
    email: str


@dataclass(frozen=True)
class Sms:
    address: str
    body: str
    date: int
    type: int  # 1 received (inbox), 2 sent
    read: int = 1


@dataclass(frozen=True)
class Call:
    number: str
    date: int
    duration: int
    type: int  # 1 incoming, 2 outgoing, 3 missed
    name: str


@dataclass(frozen=True)
class Event:
    title: str
    location: str
    dtstart: int
    dtend: int


@dataclass(frozen=True)
class Baseline:
    """A seed's starting data. ``files`` maps an /sdcard path to its bytes; ``tasks`` are the Tasks app's
    (an app's own database, not a stock provider)."""

    contacts: tuple[Contact, ...]
    sms: tuple[Sms, ...]
    calls: tuple[Call, ...]
    events: tuple[Event, ...]
    tasks: tuple[str, ...]
    files: dict[str, bytes] = field(default_factory=dict)


def phone_number(rng: random.Random) -> str:
    return f"+1 555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"


def baseline(seed: int) -> Baseline:
    """The data of ``seed``, drawn in one fixed order from one generator (the order is part of the seed)."""
    rng = random.Random(seed)
    names = rng.sample([f"{f} {ln}" for f in FIRST for ln in LAST], 12)
    numbers = [phone_number(rng) for _ in names]
    contacts = tuple(
        Contact(n, num, f"{n.split()[0].lower()}@example.com") for n, num in zip(names, numbers, strict=True)
    )
    sms = []
    for i in range(8):
        k = rng.randrange(len(names))
        body = rng.choice(SMS_BODIES)
        sms.append(Sms(numbers[k], body, NOW_MS - (8 - i) * 3_600_000, rng.choice((1, 1, 2))))
    calls = []
    for i in range(6):
        k = rng.randrange(len(names))
        duration = rng.randint(0, 600)
        kind = rng.choice((1, 2, 3))
        calls.append(Call(numbers[k], NOW_MS - (6 - i) * 7_200_000, duration, kind, names[k]))
    events = []
    for i, (title, where) in enumerate(rng.sample(EVENTS, 4)):
        start = NOW_MS + (i + 1) * 86_400_000 + rng.randint(8, 17) * 3_600_000 - 9 * 3_600_000
        events.append(Event(title, where, start, start + 3_600_000))
    tasks = tuple(rng.sample(TASKS, 3))
    return Baseline(contacts, tuple(sms), tuple(calls), tuple(events), tasks)

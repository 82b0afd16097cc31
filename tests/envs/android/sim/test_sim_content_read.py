"""The evaluators' provider read without the shell (``system.content_read``, ``SimDevice.content_query``)
returns and does what the shell's ``content query`` line does, and ``AndroidState.content_query`` reads the
same rows either way."""

from __future__ import annotations

import pytest

from crab_gym.envs.android.device import Device, SimDevice, quote
from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.state import AndroidState

PHONES = "content://com.android.contacts/data/phones"
CASES = [
    (PHONES, "display_name:data1", None, None),  # the RL phone's evaluator, every step
    (PHONES, None, None, None),
    ("content://sms/inbox", "address,body", "address LIKE '%5%'", "date DESC"),
    ("content://settings/global", None, "name = 'wifi_on'", None),
    ("content://call_log/calls/1", None, None, None),  # a trailing id
    ("content://sms/sent", "body", "body = 'nothing like it'", None),  # no rows
    ("content://sms/sent", "", "", ""),  # empty options: as if not given
    ("content://nowhere/table", None, None, None),  # no such provider
    (PHONES, None, "no_such_column = 1", None),  # SQLite refuses it
    (PHONES, None, "display_name = ", None),  # a broken where
    ("content://sms", "body", "body LIKE 'it''s, =%'", "_id"),  # quotes, ", " and "=" in a value
]


def _line(uri: str, projection: str | None, where: str | None, sort: str | None) -> str:
    given = zip(("projection", "where", "sort"), (projection, where, sort), strict=True)
    return f"content query --uri {quote(uri)}" + "".join(
        f" --{name} {quote(value)}" for name, value in given if value is not None
    )


def _seen(phone: Phone) -> tuple:
    """What a later read could tell apart: the clock, the log, the screen."""
    return phone.shell("date +%s.%N")[0], phone.shell("logcat -d")[0], phone.screenshot().tobytes()


@pytest.fixture
def phones():
    pair = Phone(width=360, height=800, seed=4), Phone(width=360, height=800, seed=4)
    try:
        for p in pair:  # a value with the separators the output uses, so a projection matters
            line = 'content insert --uri content://sms --bind address:s:555 --bind body:s:"it\'s, =x"'
            assert p.shell(line)[2] == 0
        yield pair
    finally:
        for p in pair:
            p.close()


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].split('//')[1]}-{i}" for i, c in enumerate(CASES)])
def test_content_query_without_the_shell_is_the_shell_line(phones, case):
    by_shell, direct = phones
    got = SimDevice(direct).content_query(*case)
    assert got == by_shell.shell(_line(*case))
    assert _seen(direct) == _seen(by_shell)


def test_failures_say_what_the_shell_says(phones):
    out, err, code = SimDevice(phones[1]).content_query("content://nowhere/table")
    assert (out, code) == (b"", 1) and err.startswith(b"content: [ERROR] Unsupported argument")
    out, err, code = SimDevice(phones[1]).content_query(PHONES, None, "no_such_column = 1")
    assert (out, code) == (b"", 1) and b"SQLiteException: no such column" in err
    out, err, code = SimDevice(phones[1]).content_query(PHONES, "display_name:data1")
    assert code == 0 and out.startswith(b"Row: 0 display_name=") and b", data1=" in out


class _ShellOnly(SimDevice):
    """The same phone reached only through shell lines, as an adb device is (Device's own content_query)."""

    def content_query(self, *args, **kwargs):
        return Device.content_query(self, *args, **kwargs)


@pytest.mark.parametrize("case", CASES[:7] + CASES[-1:])  # those that succeed
def test_android_state_reads_the_same_rows_either_way(phones, case):
    uri, projection, where, sort = case
    proj = tuple(projection.replace(",", ":").split(":")) if projection else None
    devices = (_ShellOnly(phones[0]), SimDevice(phones[1]))
    rows = [AndroidState(dev).content_query(uri, proj, where, sort) for dev in devices]
    assert rows[0] == rows[1]
    if uri == PHONES and projection:
        assert rows[1] and all(set(r) == {"display_name", "data1"} for r in rows[1])

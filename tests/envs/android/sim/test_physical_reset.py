"""The reset of a physical phone (``adb:<serial>``, no emulator, not our phone by name), tried on our phone
served over real adb with another model's properties: it is cleared with ``pm clear`` and seeded through the
stock providers over adb, and what adb then reads is the seed's data, with an episode's changes gone."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from crab_gym.core.tasks import Task, get_template
from crab_gym.envs.android import AndroidEnv
from crab_gym.envs.android.seeder import seed
from crab_gym.envs.android.sim import Phone, PhoneServer
from crab_gym.envs.android.sim.storage.baseline import Baseline, baseline

ADB = shutil.which("adb") or "/usr/bin/adb"
pytestmark = pytest.mark.skipif(not os.path.exists(ADB), reason="needs the adb client")
SEED = 5
READS = {  # what the check reads over adb: every row of the providers a task's data lives in
    "raw_contacts": "content://com.android.contacts/raw_contacts",
    "data": "content://com.android.contacts/data",
    "sms": "content://sms",
    "calls": "content://call_log/calls",
    "calendars": "content://com.android.calendar/calendars",
    "events": "content://com.android.calendar/events",
}
PEOPLE = "content query --uri content://com.android.contacts/data --projection data1"
FILES = "ls -R /sdcard/Download /sdcard/Documents /sdcard/Pictures /sdcard/DCIM /sdcard/Music /sdcard/Movies"


class Adb:
    """Debian's adb client on the module's private adb server, aimed at one serial."""

    def __init__(self, port: int, serial: str) -> None:
        self.port, self.serial = port, serial
        self.env = {k: v for k, v in os.environ.items() if k != "ADB_SERVER_SOCKET"}

    def __call__(self, *args: str) -> str:
        proc = subprocess.run(
            [ADB, "-P", str(self.port), *args], capture_output=True, timeout=60, env=self.env, check=False
        )
        return proc.stdout.decode()

    def shell(self, cmd: str) -> str:
        return self("-s", self.serial, "shell", cmd)


@pytest.fixture(scope="module")
def device(adb_port):
    """Our phone served on a local port with a Pixel 7's properties, reached by adb connect."""
    phone = Phone(seed=0)
    phone.props.update({"ro.product.model": "Pixel 7", "ro.product.name": "panther"})
    with PhoneServer(phone) as server:
        adb = Adb(adb_port, server.serial)
        assert "connected to" in adb("connect", server.serial)
        adb("-s", server.serial, "wait-for-device")
        yield adb
        adb("disconnect", server.serial)
    phone.close()


def read(adb: Adb) -> dict[str, str]:
    """The providers' rows and the task folders' listing, as the adb client prints them."""
    out = {k: adb.shell(f"content query --uri {uri}") for k, uri in READS.items()}
    out["files"] = adb.shell(FILES)
    return out


def rows(text: str, *cols: str) -> list[tuple[str, ...]]:
    """Some columns of each row of a ``content query`` answer."""
    found = []
    for line in text.splitlines():
        if line.startswith("Row: "):
            values = dict(re.findall(r"(\w+)=(.*?)(?=, \w+=|$)", line.split(" ", 2)[2]))
            found.append(tuple(values.get(c, "") for c in cols))
    return found


def test_reset_clears_an_episode_and_writes_the_seed_back(device) -> None:
    adb = device
    env = AndroidEnv(f"adb:{adb.serial}", adb_server_port=adb.port)
    try:
        assert not env.device.is_crab_phone and env.device.served is None  # a stranger to us: no shortcut
        env.reset(SEED)
        first = read(adb)
        base = baseline(SEED)
        people = rows(first["data"], "display_name", "mimetype", "data1")
        for c in base.contacts:
            assert (c.name, "vnd.android.cursor.item/phone_v2", c.number) in people
            assert (c.name, "vnd.android.cursor.item/email_v2", c.email) in people
        assert len(rows(first["raw_contacts"], "_id")) == len(base.contacts)
        sms = rows(first["sms"], "address", "body", "date", "type", "read")
        assert sorted(sms) == sorted((m.address, m.body, str(m.date), str(m.type), "1") for m in base.sms)
        assert len(rows(first["calls"], "_id")) == len(base.calls)
        events = rows(first["events"], "title", "dtstart", "dtend", "calendar_id", "eventTimezone")
        cal = rows(first["calendars"], "_id", "account_name")
        assert cal == [("1", "crab@example.com")]
        assert sorted(events) == sorted(
            (e.title, str(e.dtstart), str(e.dtend), "1", "UTC") for e in base.events
        )

        # an episode's dirt, through the adb client as an agent's API actions or a user would make it
        env.add_contact("Dirty Dan", "+1 555-000-9999", "dan@example.com")
        adb.shell("content insert --uri content://sms/sent "
            "--bind address:s:+15550009999 --bind 'body:s:left over'")  # fmt: skip
        adb.shell("content delete --uri content://com.android.contacts/raw_contacts/1")
        adb.shell("echo dirt > /sdcard/Download/dirt.txt; mkdir -p /sdcard/Documents/x")
        dirty = read(adb)
        assert "Dirty Dan" in dirty["data"] and "left over" in dirty["sms"] and "dirt.txt" in dirty["files"]

        env.reset(SEED)
        assert read(adb) == first  # every row and file as the first reset left them
    finally:
        env.close()


def test_seeded_files_are_pushed(device) -> None:
    adb = device
    env = AndroidEnv(f"adb:{adb.serial}", adb_server_port=adb.port)
    try:
        env.reset(SEED)
        seed(env.device, Baseline((), (), (), (), (), {"/sdcard/Documents/plan.txt": b"day 1\n"}))
        assert adb.shell("cat /sdcard/Documents/plan.txt") == "day 1\n"
        env.reset(SEED)
        assert "plan.txt" not in read(adb)["files"]
    finally:
        env.close()


def test_the_oracle_solves_phone_tasks_on_it(device, monkeypatch) -> None:
    """Crab-v0's reset (pm clear of the task's apps, seeding) then the task's setup and the oracle, all over
    adb; the second episode starts from the seed again, not from the first one's contact."""
    import crab_gym.tasks  # noqa: F401 - registers the templates
    from crab_gym.baselines.oracle import OracleAgent
    from crab_gym.env import CrabEnv

    adb = device
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb.port))
    attrs = {
        "sms_send_to_contact": {"name": "Chloé Marin", "number": "555-888-2020", "message": "Running late"},
        "contacts_add": {"name": "Björn Lund", "number": "555-201-3344"},
    }
    tasks = [
        Task(f"test-{tid}", sub.instruction, [sub])
        for tid, a in attrs.items()
        for sub in [get_template(tid).instantiate(**a)]
    ]
    env = CrabEnv(devices=["android"], tasks=tasks, backends={"android": f"adb:{adb.serial}"}, max_steps=15)
    try:
        assert not env.subenvs["android"].device.is_crab_phone  # reset by pm clear and seeding
        agent = OracleAgent(env)
        for task in tasks:
            for _ in range(2):
                obs, info = env.reset(seed=SEED, options={"task": task.id})
                assert "Björn Lund" not in adb.shell(PEOPLE)
                done = False
                while not done:
                    obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
                    done = terminated or truncated
                assert info["termination_reason"] == "success", (task.id, info)
    finally:
        env.close()


def sh(phone: Phone, cmd: str) -> tuple[str, str, int]:
    out, err, code = phone.shell(cmd)
    return out.decode(), err.decode(), code


def test_the_phone_takes_the_stock_forms_and_refuses_what_stock_android_refuses() -> None:
    """A raw contact named by its StructuredName row; data rows need a raw contact; calendars are inserted
    only by a sync adapter, whose account comes from the uri."""
    phone = Phone(seed=0)
    try:
        raw = "content://com.android.contacts/raw_contacts"
        sh(phone, f"content insert --uri {raw} --bind account_name:n: --bind account_type:n:")
        rid = max(int(i) for i in re.findall(r"_id=(\d+)", sh(phone, f"content query --uri {raw}")[0]))
        name = "vnd.android.cursor.item/name"
        data = "content://com.android.contacts/data"
        sh(phone, f"content insert --uri {data} --bind raw_contact_id:l:{rid} --bind mimetype:s:{name} "
           "--bind data2:s:Ada --bind data3:s:Byron")  # fmt: skip
        assert f"_id={rid}, name=Ada Byron" in sh(phone, "content query --uri content://contacts/people")[0]
        for binds in ("--bind data1:s:x", "--bind raw_contact_id:l:999 --bind data1:s:x"):
            _, err, code = sh(phone, f"content insert --uri {data} --bind mimetype:s:{name} {binds}")
            assert code != 0 and "raw" in err
        cal = "content://com.android.calendar/calendars"
        _, err, code = sh(phone, f"content insert --uri {cal} --bind name:s:x")
        assert code != 0 and "sync adapter" in err
        sh(
            phone,
            f"content insert --uri '{cal}?caller_is_syncadapter=true&account_name=a@b.c&account_type=LOCAL' "
            "--bind name:s:work --bind calendar_access_level:l:700",
        )
        assert "account_name=a@b.c, account_type=LOCAL" in sh(phone, f"content query --uri {cal}")[0]
    finally:
        phone.close()

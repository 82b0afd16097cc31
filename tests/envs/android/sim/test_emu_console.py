"""Our simulated phone's emulator console (the protocol ``adb emu`` speaks), driven by our console client:
a snapshot saved, the phone changed, the snapshot loaded gives back the saved phone; wrong tokens and
unknown snapshots are ``KO`` answers raised as DeviceError."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from crab_gym.envs.android.emuconsole import console, console_port, load_snapshot
from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.adbd.console import EmulatorConsole
from crab_gym.envs.base import DeviceError

LISTING = "ls -R /sdcard"


@pytest.fixture
def served():
    phone = Phone(seed=3)
    con = EmulatorConsole(phone, token="t0k")
    yield phone, con
    con.close()
    phone.close()


def test_console_port_is_the_serials_number() -> None:
    assert console_port("emulator-5554") == 5554
    assert console_port("127.0.0.1:5555") is None
    assert console_port("R58M12ABC") is None


def test_snapshot_load_restores_the_saved_phone(served) -> None:
    phone, con = served
    before = phone.shell(LISTING)
    console(con.port, ["avd snapshot save clean"], token="t0k")
    phone.shell(
        "content insert --uri content://contacts/people --bind name:s:Zed_Left; echo x > /sdcard/left.txt"
    )
    assert phone.shell(LISTING) != before
    listed, loaded = console(con.port, ["avd snapshot list", "avd snapshot load clean"], token="t0k")
    assert any(line.split()[-1] == "clean" for line in listed)
    assert loaded == []
    assert phone.shell(LISTING) == before


def test_ko_answers_are_errors(served) -> None:
    _, con = served
    with pytest.raises(DeviceError, match="auth"):
        console(con.port, ["avd snapshot list"], token="wrong")
    with pytest.raises(DeviceError, match="not found"):
        console(con.port, ["avd snapshot load nope"], token="t0k")
    assert console(con.port, ["avd name", "ping"], token="t0k") == [["crab_sim"], ["I am alive!"]]


def test_load_snapshot_by_serial(served) -> None:
    """What an emulator serial's reset does: the console at the serial's port loads the named snapshot."""
    phone, con = served
    serial = f"emulator-{con.port}"
    assert not load_snapshot(serial, "crab-gym", token="t0k")  # none saved: the reset falls back
    assert not load_snapshot("R58M12ABC", "crab-gym", token="t0k")
    before = phone.shell(LISTING)
    console(con.port, ["avd snapshot save crab-gym"], token="t0k")
    phone.shell("echo x > /sdcard/Download/left.txt")
    assert phone.shell(LISTING) != before
    assert load_snapshot(serial, "crab-gym", token="t0k")
    assert phone.shell(LISTING) == before


@pytest.mark.skipif(shutil.which("adb") is None, reason="needs the adb client")
def test_real_adb_emu_reaches_the_console() -> None:
    """Debian's ``adb -s emulator-N emu ...`` connects to console port N itself (no adb server involved) and
    sends no auth line, so it works where the token is empty, as on an emulator whose token file is empty."""
    phone = Phone(seed=3)
    con = EmulatorConsole(phone, token="")
    try:
        adb = ["adb", "-s", f"emulator-{con.port}", "emu"]
        before = phone.shell(LISTING)
        saved = subprocess.run(
            [*adb, "avd", "snapshot", "save", "s1"], capture_output=True, text=True, timeout=30
        )
        assert "KO" not in saved.stdout and "s1" in con.snapshots
        phone.shell("echo x > /sdcard/Download/left.txt")
        loaded = subprocess.run(
            [*adb, "avd", "snapshot", "load", "s1"], capture_output=True, text=True, timeout=30
        )
        assert "KO" not in loaded.stdout
        assert phone.shell(LISTING) == before
    finally:
        con.close()
        phone.close()

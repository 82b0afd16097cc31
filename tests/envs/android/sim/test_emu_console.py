"""Our simulated phone's emulator console (the protocol ``adb emu`` speaks), driven by our console client:
a snapshot saved, the phone changed, the snapshot loaded gives back the saved phone; wrong tokens and
unknown snapshots are ``KO`` answers raised as DeviceError."""

from __future__ import annotations

import pytest

from crab_gym.envs.android.emuconsole import console, console_port
from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.adbd.console import EmulatorConsole
from crab_gym.envs.base import DeviceError

QUERY = "content query --uri content://contacts/phones --projection display_name"


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
    before = (phone.shell(QUERY), phone.shell("ls -R /sdcard"))
    console(con.port, ["avd snapshot save clean"], token="t0k")
    phone.shell(
        "content insert --uri content://contacts/people --bind name:s:Zed_Left; echo x > /sdcard/left.txt"
    )
    assert (phone.shell(QUERY), phone.shell("ls -R /sdcard")) != before
    listed, loaded = console(con.port, ["avd snapshot list", "avd snapshot load clean"], token="t0k")
    assert any(line.split()[-1] == "clean" for line in listed)
    assert loaded == []
    assert (phone.shell(QUERY), phone.shell("ls -R /sdcard")) == before


def test_ko_answers_are_errors(served) -> None:
    _, con = served
    with pytest.raises(DeviceError, match="auth"):
        console(con.port, ["avd snapshot list"], token="wrong")
    with pytest.raises(DeviceError, match="not found"):
        console(con.port, ["avd snapshot load nope"], token="t0k")
    assert console(con.port, ["avd name", "ping"], token="t0k") == [["crab_sim"], ["I am alive!"]]

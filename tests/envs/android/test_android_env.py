"""AndroidEnv on the in-process phone ("sim") and on the same phone through a real adb server ("adb-sim")."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from crab_gym.core.actions import InvalidAction
from crab_gym.envs.android import AndroidEnv
from crab_gym.envs.android import evaluators as ev
from crab_gym.envs.android.state import parse_rows, same_number
from crab_gym.envs.base import SubEnvConformance
from crab_gym.tasks.templates.android.layout import DRAWER

DBS = {
    "/data/data/com.android.providers.contacts/databases/contacts2.db": ("raw_contacts", "data"),
    "/data/data/com.android.providers.contacts/databases/calllog.db": ("calls",),
    "/data/data/com.android.providers.telephony/databases/mmssms.db": ("sms",),
    "/data/data/com.android.providers.calendar/databases/calendar.db": ("Events",),
    "/data/data/com.android.providers.settings/databases/settings.db": ("system", "secure", "global"),
    ev.ALARMS_DB: ("alarm_templates", "timers"),
    ev.NOTES_DB: ("notes",),
    ev.TASKS_DB: ("tasks",),
}


def db_dump(env: AndroidEnv) -> dict:
    state = env.state()
    return {
        (db, table): state.sqlite(db, f"SELECT * FROM {table} ORDER BY _id")
        for db, tables in DBS.items()
        for table in tables
    }


def fingerprint(env: AndroidEnv) -> tuple:
    env.invalidate_state()
    return (
        env.state().foreground(),
        tuple(sorted(db_dump(env).items())),
        env.state().list_dir("/sdcard/DCIM/Camera"),
        hashlib.sha256(env.screenshot().tobytes()).hexdigest(),
    )


def run(env: AndroidEnv, name: str, **params) -> None:
    env.execute(env.action(name), params)
    env.settle()


def mutate(env: AndroidEnv) -> None:
    """A contact, dark theme and a photo: rows, a setting, a file and a different screen."""
    run(env, "tap", point=(0.5, 0.775))  # Contacts
    run(env, "tap", point=(0.848, 0.8775))
    run(env, "write_text", text="Zed Mutant")
    run(env, "tap", point=(0.867, 0.0808))
    env.set_setting("secure", "ui_night_mode", "2")
    run(env, "press", button="home")
    run(env, "tap", point=(0.9, 0.775))  # Camera
    run(env, "tap", point=(0.5, 0.8583))
    assert env.state().list_dir("/sdcard/DCIM/Camera")


class TestSimConformance(SubEnvConformance):
    def make_subenv(self) -> AndroidEnv:
        return AndroidEnv("sim")

    def mutate(self, sub) -> None:
        mutate(sub)

    def state_fingerprint(self, sub):
        return fingerprint(sub)


class TestAdbSimConformance(SubEnvConformance):
    @pytest.fixture(autouse=True)
    def _port(self, adb_port):
        self.port = adb_port

    def make_subenv(self) -> AndroidEnv:
        return AndroidEnv("adb-sim", adb_server_port=self.port)

    def mutate(self, sub) -> None:
        mutate(sub)

    def state_fingerprint(self, sub):
        return fingerprint(sub)


@pytest.fixture(scope="module")
def pair(adb_port):
    sim, adb = AndroidEnv("sim"), AndroidEnv("adb-sim", adb_server_port=adb_port)
    yield sim, adb
    sim.close()
    adb.close()


# Every action, most apps, text with spaces, quotes and non-ASCII, scrolling, Enter, and a long press that
# deletes.
SEQUENCE = [
    ("tap", {"point": (0.3, 0.775)}),  # Messages
    ("tap", {"point": (0.848, 0.8775)}),  # start chat
    ("write_text", {"text": "555-010-2030"}),
    ("tap", {"point": (0.5, 0.8325)}),
    ("write_text", {"text": "It's 5 o'clock & \"done\" — café ü"}),
    ("tap", {"point": (0.5, 0.9025)}),  # Send
    ("press", {"button": "back"}),
    ("press", {"button": "home"}),
    ("tap", {"point": (0.5, 0.775)}),  # Contacts
    ("swipe", {"direction": "up", "distance": "long"}),
    ("swipe", {"direction": "down", "distance": "short"}),
    ("tap", {"point": (0.5, 0.3137)}),  # a contact's card
    ("press", {"button": "back"}),
    ("open_app_drawer", {}),
    ("tap", {"point": DRAWER["tasks"]}),  # Tasks (the drawer is sorted by label)
    ("tap", {"point": (0.848, 0.8775)}),
    ("write_text", {"text": "line one\nline two"}),  # the newline is Enter: saves the task
    ("long_tap", {"point": (0.5, 0.1575)}),  # deletes the first task
    ("press", {"button": "home"}),
    ("tap", {"point": (0.375, 0.3167)}),  # Clock
    ("tap", {"point": (0.848, 0.8775)}),
    ("write_text", {"text": "6"}),
    ("tap", {"point": (0.5, 0.2258)}),
    ("write_text", {"text": "45"}),
    ("press", {"button": "enter"}),
    ("tap", {"point": (0.867, 0.0808)}),
    ("swipe", {"direction": "left", "distance": "medium"}),
]


def test_sim_and_adb_give_identical_frames_dumps_and_databases(pair) -> None:
    sim, adb = pair
    sim.reset(seed=3)
    adb.reset(seed=3)
    assert np.array_equal(sim.screenshot(), adb.screenshot())
    for name, params in SEQUENCE:
        for env in pair:
            run(env, name, **params)
            env.invalidate_state()
        step = f"after {name}({params})"
        assert np.array_equal(sim.screenshot(), adb.screenshot()), step
        assert sim.state().ui_xml() == adb.state().ui_xml(), step
        assert sim.state().foreground() == adb.state().foreground(), step
    assert db_dump(sim) == db_dump(adb)
    sent = sim.state().content_query("content://sms/sent", ("address", "body"))
    assert {"address": "555-010-2030", "body": "It's 5 o'clock & \"done\" — café ü"} in sent
    assert sim.state().sqlite(ev.TASKS_DB, "SELECT title FROM tasks WHERE title = 'line one'")
    assert ev.alarm_set(hour=6, minute=45).evaluate({"android": adb.state()})


@pytest.mark.parametrize("backend", ["sim", "adb-sim"])
def test_actions_validate_and_ui_elements(backend, adb_port) -> None:
    env = AndroidEnv(backend, adb_server_port=adb_port)
    try:
        env.reset(seed=0)
        assert env.screen_size == (1080, 2400)
        assert env.action_names() == ["tap", "long_tap", "swipe", "write_text", "press", "open_app_drawer"]
        with pytest.raises(InvalidAction, match="point"):
            env.execute(env.action("tap"), {"point": (1.5, 0.2)})
        with pytest.raises(InvalidAction, match="button"):
            env.execute(env.action("press"), {"button": "menu"})
        with pytest.raises(InvalidAction, match="text"):
            env.execute(env.action("write_text"), {"text": ""})
        names = {e.name for e in env.ui_elements()}
        assert {"Contacts", "Messages", "Phone", "Settings", "Camera", "Home", "Back"} <= names
        for e in env.ui_elements():
            x1, y1, x2, y2 = e.box
            assert 0 <= x1 < x2 <= 1080 and 0 <= y1 < y2 <= 2400 and e.source == "uiautomator"
        run(env, "open_app_drawer")
        assert "Tasks" in {e.name for e in env.ui_elements()}
        assert ev.app_in_foreground(package="com.google.android.apps.nexuslauncher").evaluate(
            {"android": env.state()}
        )
    finally:
        env.close()


def test_state_reads_are_cached_per_step() -> None:
    env = AndroidEnv("sim")
    try:
        env.reset(seed=0)
        s = env.state()
        assert s.setting("secure", "ui_night_mode") == "1" and s.setting("global", "nope") is None
        assert s.exists("/sdcard/Download") and not s.exists("/sdcard/nope")
        assert s.read_text("/sdcard/nope") is None
        first = s.ui_tree()
        assert s.ui_tree() is first
        run(env, "tap", point=(0.7, 0.775))  # Settings
        assert env.state() is not s
        assert env.state().foreground() == ("com.android.settings", "com.android.settings.Settings")
    finally:
        env.close()


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="adb-sim"):
        AndroidEnv("bluetooth:phone")


def test_parse_rows_with_separators_in_values() -> None:
    text = "Row: 0 address=+1 555, body=a, b=c\nsecond line\nRow: 1 address=x, body=NULL\n"
    assert parse_rows(text, ["address", "body"]) == [
        {"address": "+1 555", "body": "a, b=c\nsecond line"},
        {"address": "x", "body": "NULL"},
    ]
    assert parse_rows("No result found.\n", ["a"]) == []


def test_same_number() -> None:
    assert same_number("+1 555-123-4567", "5551234567")
    assert same_number("555-123-4567", "(555) 123 4567")
    assert not same_number("555-123-4567", "555-123-4568")
    assert not same_number("123", "0123")


def test_parameter_names_share_spaces_with_the_desktop() -> None:
    """Crab-v0's action codec over desktop + android + root: one space per parameter name."""
    from crab_gym.envs.desktop import DesktopEnv
    from crab_gym.envs.root import RootEnv
    from crab_gym.spaces import ActionCodec

    android = AndroidEnv("sim")
    try:
        codec = ActionCodec([DesktopEnv(), android, RootEnv()])  # the desktop is not started
        assert {"point", "text", "direction", "distance", "button"} <= set(codec.codecs)
        action = codec.encode("android", "swipe", {"direction": "up", "distance": "long"})
        sub, spec, params = codec.decode(action)
        assert sub is android and spec.name == "swipe" and params == {"direction": "up", "distance": "long"}
    finally:
        android.close()

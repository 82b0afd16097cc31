"""The Android sub-env (:class:`AndroidEnv`) and the device a backend string makes (:func:`make_device`).

Its own module so that importing ``crab_gym.envs.android`` (the evaluators, the task templates) imports no
simulated phone: a desktop env's task library names the phone's checks but never makes one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from crab_gym.core.actions import ActionSpec
from crab_gym.envs.android.actions import ACTIONS
from crab_gym.envs.android.device import Device, SimDevice, monkey_line, quote, settings_put_line
from crab_gym.envs.android.sim import Phone
from crab_gym.envs.android.sim.phone import Activity
from crab_gym.envs.android.sim.storage.fs import Snapshot
from crab_gym.envs.android.sim.system.logcat import Entry
from crab_gym.envs.android.sim.system.notifications import Notification
from crab_gym.envs.android.sim.system.overlays import Overlay
from crab_gym.envs.android.sim.system.snapshot import LogState, PhoneState
from crab_gym.envs.android.state import AndroidState
from crab_gym.envs.backend_spec import FORMS, BackendSpec, parse_backend
from crab_gym.envs.base import ActionResult, DeviceError, SubEnv, UIElement, clip_box
from crab_gym.envs.state import StateError, StateUnsupported, state_class

BACKENDS = FORMS["android"]
for _cls in (PhoneState, LogState, Activity, Snapshot, Entry, Notification, Overlay):
    state_class(_cls)  # what a phone's state is made of may be read back from a state file


def make_device(
    backend: str | BackendSpec, size: tuple[int, int] = (1080, 2400), adb_server_port: int | None = None
) -> Device:
    """The device for a backend string or spec (see the module docstring)."""
    spec = backend if isinstance(backend, BackendSpec) else parse_backend("android", backend)
    if spec.kind == "sim":
        return SimDevice(width=size[0], height=size[1])
    if spec.kind == "adb-sim":
        from crab_gym.envs.android.adb import AdbDevice, start_sim_server

        server = start_sim_server(*size)
        try:
            return AdbDevice(server.serial, server_port_=adb_server_port, served=server)
        except BaseException:
            server.stop()
            server.phone.close()
            raise
    if spec.kind == "androidenv":
        from crab_gym.envs.android.androidenv import AndroidEnvDevice

        return AndroidEnvDevice(*size)
    from crab_gym.envs.android.adb import AdbDevice

    assert spec.serial is not None  # kind "adb": parse_backend gave it a serial
    return AdbDevice(spec.serial, server_port_=adb_server_port)


class AndroidEnv(SubEnv):
    """An Android phone: Contacts, Messages, Phone, Calendar, Clock, Tasks, Keep Notes, Files, Settings,
    Gmail and Camera."""

    name = "android"
    description = (
        "An Android phone (portrait touch screen). The home screen has Calendar, Clock, Keep Notes and Gmail "
        "icons, and a dock with Phone, Messages, Contacts, Settings and Camera; open_app_drawer lists every "
        "app (also Files and Tasks). Tap a text field to focus it before write_text; lists scroll with "
        "swipe; the '+' button at the bottom right of an app creates a new item; Save is at the top right. "
        "press back to go back, home for the home screen."
    )
    actions = ACTIONS

    def __init__(
        self,
        backend: str | BackendSpec = "sim",
        size: tuple[int, int] = (1080, 2400),
        adb_server_port: int | None = None,
        realtime: bool = False,
    ) -> None:
        self.spec = backend if isinstance(backend, BackendSpec) else parse_backend("android", backend)
        self.backend = self.spec.text
        self.realtime = realtime
        self._requested_size = size
        self._adb_server_port = adb_server_port
        self._device: Device | None = None
        self._state: AndroidState | None = None
        self._device = self._make_device()

    # ---- the device ------------------------------------------------------------------------------
    @property
    def device(self) -> Device:
        if self._device is None:
            self._device = self._make_device()
        return self._device

    def _make_device(self) -> Device:
        """The backend's device; our simulated phone's clock runs in real time when asked (a real phone's
        or an emulator's always does)."""
        dev = make_device(self.spec, self._requested_size, self._adb_server_port)
        phone = getattr(dev, "phone", None) or getattr(getattr(dev, "served", None), "phone", None)
        if phone is not None:
            phone.set_realtime(self.realtime)
        return dev

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.device.size if self._device is not None else self._requested_size

    def to_pixels(self, point: tuple[float, float]) -> tuple[int, int]:
        w, h = self.screen_size
        return min(int(point[0] * w), w - 1), min(int(point[1] * h), h - 1)

    # ---- SubEnv ----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        self._state = None
        self.device.task_apps = self.task_apps
        self.device.reset(seed)

    def execute(self, spec: ActionSpec, params: Mapping[str, Any]) -> ActionResult:
        try:
            return super().execute(spec, params)
        finally:
            self.device.invalidate()

    def screenshot(self) -> np.ndarray:
        return self.device.screenshot()

    def screenshot_at(self, size: tuple[int, int]) -> np.ndarray | None:
        """The screen drawn directly at ``size`` (w, h) when the backend can (the in-process simulated
        phone), else None: the caller resizes a full :meth:`screenshot`."""
        dev = self.device
        return dev.phone.screenshot(size) if isinstance(dev, SimDevice) else None

    def settle(self, timeout: float = 2.0) -> None:
        self.device.settle(timeout)

    def state(self) -> AndroidState:
        if self._state is None:
            self._state = AndroidState(self.device)
        return self._state

    def invalidate_state(self) -> None:
        self._state = None

    def invalidate_screen(self) -> None:
        self.device.invalidate()  # adb backends keep the frame their settle() read

    def ui_elements(self) -> list[UIElement]:
        out = []
        for n in self.state().ui_tree():
            if not (n.clickable or n.long_clickable) or not n.enabled:
                continue
            box = clip_box(n.bounds, self.screen_size)
            if box is not None:
                role = n.cls.rsplit(".", 1)[-1]
                label = n.text or n.content_desc or n.resource_id.rsplit("/", 1)[-1]
                out.append(UIElement(box, role, label, source="uiautomator"))
        return out

    def identity(self) -> dict[str, Any]:
        """The adb serial and server port of a phone reached through adb; an in-process one's sandbox."""
        dev = self._device
        if dev is None:
            return {}
        if isinstance(dev, SimDevice):
            return {"sandbox": str(dev.phone.fs.root)}
        serial = getattr(dev, "serial", None)
        return {"serial": serial, "adb_port": getattr(dev, "_port", None)} if serial else {}

    def save_state(self) -> PhoneState:
        """The phone's whole state (our simulated phone, in-process or served over adb from this process)."""
        return self._phone("save").save_state()

    def load_state(self, state: Any) -> None:
        """Back to a state :meth:`save_state` gave; StateError if it is not a phone's state of this size."""
        if not isinstance(state, PhoneState):
            raise StateError(f"android: not a phone's state ({type(state).__name__})")
        try:
            self._phone("load").load_state(state)
        except ValueError as e:
            raise StateError(f"android: {e}") from e
        finally:
            self._state = None
            if self._device is not None:
                self._device.invalidate()

    def _phone(self, what: str) -> Phone:
        """Our simulated phone behind this backend; StateUnsupported for any other device."""
        dev = self.device
        phone = getattr(dev, "phone", None) or getattr(getattr(dev, "served", None), "phone", None)
        if phone is None:
            raise StateUnsupported(
                f"android backend {self.backend!r} cannot {what} state: only our simulated phone can "
                "(sim, adb-sim, androidenv); a real phone or emulator needs its own snapshots"
            )
        return phone

    def close(self) -> None:
        if self._device is not None:
            self._device.close()
            self._device = None
        self._state = None

    # ---- named setup operations (task setups use these, never raw shell strings) ------------------
    def _shell_ok(self, cmd: str, result: tuple[bytes, bytes, int] | None = None) -> str:
        out, err, code = result if result is not None else self.device.shell(cmd)
        self.device.invalidate()
        self._state = None
        if code != 0:
            raise DeviceError(f"android setup {cmd[:80]!r} failed ({code}): {err.decode(errors='replace')}")
        return out.decode("utf-8", "replace")

    def launch(self, package: str) -> None:
        """Start an app's launcher activity (as tapping its icon does)."""
        self._shell_ok(monkey_line(package), self.device.monkey(package))

    def home(self) -> None:
        self.device.keyevent(3)
        self.device.invalidate()

    def write_file(self, path: str, content: str | bytes) -> None:
        """Create a file on the phone (e.g. under /sdcard/Download)."""
        self.device.push(path, content.encode() if isinstance(content, str) else content)
        self.device.invalidate()
        self._state = None

    def add_task(self, title: str) -> None:
        """Add an open to-do item to the Tasks app's database."""
        from crab_gym.envs.android.evaluators import TASKS_DB

        sql = "INSERT INTO tasks (title) VALUES ('" + title.replace("'", "''") + "')"
        self._shell_ok(f"sqlite3 {quote(TASKS_DB)} {quote(sql)}")

    def add_note(self, title: str, body: str, modified_ms: int = 4_102_444_800_000) -> None:
        """Add a note to Keep's database; by default modified in 2100, so it lists first."""
        from crab_gym.envs.android.evaluators import NOTES_DB

        q = "'" + title.replace("'", "''") + "', '" + body.replace("'", "''") + "'"
        when = int(modified_ms)
        sql = f"INSERT INTO notes (title, body, created, modified) VALUES ({q}, {when}, {when})"
        self._shell_ok(f"sqlite3 {quote(NOTES_DB)} {quote(sql)}")

    def add_alarm(self, hour: int, minute: int, enabled: bool = True) -> None:
        """Add an alarm to the Clock's database."""
        from crab_gym.envs.android.evaluators import ALARMS_DB

        sql = (
            "INSERT INTO alarm_templates (hour, minutes, enabled, label) "
            f"VALUES ({int(hour)}, {int(minute)}, {int(bool(enabled))}, '')"
        )
        self._shell_ok(f"sqlite3 {quote(ALARMS_DB)} {quote(sql)}")

    def add_call(self, number: str, kind: int = 3, date_ms: int = 1_900_000_000_000) -> None:
        """A call in the call log (kind 1 incoming, 2 outgoing, 3 missed), by default newer than the rest."""
        self._shell_ok(
            "content insert --uri content://call_log/calls "
            f"--bind {quote('number:s:' + number)} --bind type:i:{int(kind)} --bind date:l:{int(date_ms)} "
            "--bind duration:i:0"
        )

    def add_contact(self, name: str, number: str = "", email: str = "") -> None:
        """Add a contact with a phone number and/or an email through the contacts provider, as a stock one
        takes it: a raw_contacts row, then name, phone and email data rows."""
        from crab_gym.envs.android.seeder import insert_contacts
        from crab_gym.envs.android.sim.storage.baseline import Contact

        insert_contacts(self.device, [Contact(name, number, email)])
        self.device.invalidate()
        self._state = None

    def add_event(self, title: str, start_ms: int, end_ms: int, all_day: bool = False) -> None:
        """A calendar event through the calendar provider (an all-day one spans UTC midnight to midnight)."""
        self._shell_ok(
            "content insert --uri content://com.android.calendar/events "
            f"--bind {quote('title:s:' + title)} --bind dtstart:l:{int(start_ms)} "
            f"--bind dtend:l:{int(end_ms)} "
            f"--bind allDay:i:{int(all_day)} --bind calendar_id:i:1 --bind eventTimezone:s:UTC"
        )

    def set_mtime(self, path: str, seconds: int) -> None:
        """Set a file's modification time (``touch -d @SECONDS``, as toybox does)."""
        self._shell_ok(f"touch -c -d @{int(seconds)} {quote(path)}")

    def add_sms(self, address: str, body: str) -> None:
        """A received text message from ``address`` (through the SMS provider; on a real phone only the
        default SMS app may write it)."""
        self._shell_ok(
            "content insert --uri content://sms/inbox "
            f"--bind {quote('address:s:' + address)} --bind {quote('body:s:' + body)}"
        )

    def post_notification(self, tag: str, title: str, text: str) -> None:
        """Post a notification (``cmd notification post``), shown in the pulled-down shade."""
        self._shell_ok(f"cmd notification post -t {quote(title)} {quote(tag)} {quote(text)}")

    def add_mail(self, sender: str, subject: str, body: str, date_ms: int = 4_102_444_800_000) -> None:
        """A received e-mail in Gmail's inbox; by default dated 2100, so it lists first."""
        from crab_gym.envs.android.evaluators import MAIL_DB

        def sql_str(v: str) -> str:
            return "'" + v.replace("'", "''") + "'"

        sql = (
            "INSERT INTO messages (folder, sender, recipient, subject, body, date) VALUES ('inbox', "
            f"{sql_str(sender)}, 'me@example.com', {sql_str(subject)}, {sql_str(body)}, {int(date_ms)})"
        )
        self._shell_ok(f"sqlite3 {quote(MAIL_DB)} {quote(sql)}")

    def add_calendar_event(self, title: str, start_ms: int, minutes: int = 60) -> None:
        """An event in the calendar provider, ``minutes`` long."""
        self._shell_ok(
            "content insert --uri content://com.android.calendar/events "
            f"--bind {quote('title:s:' + title)} --bind dtstart:l:{int(start_ms)} "
            f"--bind dtend:l:{int(start_ms) + minutes * 60_000}"
        )

    def set_setting(self, namespace: str, key: str, value: str) -> None:
        line = settings_put_line(namespace, key, value)
        self._shell_ok(line, self.device.settings_put(namespace, key, value))


__all__ = ["BACKENDS", "AndroidEnv", "make_device"]

"""AdbDevice: any adb serial (a USB phone, ``emulator-5554``, ``127.0.0.1:PORT``) through adbutils.

Input is ``input tap|swipe|text|keyevent``; frames are ``screencap -p`` (PNG, the bytes ``exec-out`` would
give) decoded with Pillow; the UI tree is ``uiautomator dump /dev/tty`` (a dump file, read back and removed,
where that fails); every command runs over shell_v2 (Android 7+), so stdout, stderr and the exit code
arrive apart. adbutils finds the device and opens each transport; the shell_v2 packets are read here.

``input text`` limits (Android's, not ours): a space must be sent as ``%s``, so a literal ``%s`` in the
text is typed as a space; characters outside ASCII are not typed by ``input text`` on real devices (Android's
KeyCharacterMap has no keys for them) — our simulated phone types them, a real phone needs an IME such as
ADBKeyboard for that. Newlines are sent by the caller as KEYCODE_ENTER between lines.

Reset: on our own simulated phone served in this process (backend ``adb-sim``) the server's phone is reset
directly; on our phone served elsewhere, its shell's ``crab-reset [seed]`` (when the simulator has it). On any
emulator serial (``emulator-NNNN``) whose console lists the snapshot ``CRAB_GYM_EMU_SNAPSHOT`` (default
``crab-gym``, saved by the user), its console loads it (:mod:`.emuconsole`, as ``adb emu avd snapshot load``).
On any other device the backend goes home and force-stops the task apps; their data stays.

Recovery: a reset first brings a device that dropped off adb back (:meth:`AdbDevice.reconnect`): a dead adb
server is started again, our own served phone is served again, a network serial is ``adb connect``-ed again,
and the reset waits at most ``CRAB_GYM_ADB_WAIT`` seconds (default 30) for adb to list the device; a device
that does not come back raises :class:`~crab_gym.envs.base.DeviceGone`.
"""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import time

import adbutils
import numpy as np
from PIL import Image

from crab_gym.envs.android.device import LONG_PRESS_MS, Device, quote, wait_stable
from crab_gym.envs.android.emuconsole import load_snapshot
from crab_gym.envs.base import DeviceError, DeviceGone

DEFAULT_SERVER_PORT = 5037
DEFAULT_WAIT = 30.0  # s a reset waits for a device that dropped off adb (CRAB_GYM_ADB_WAIT overrides)
# The apps tasks use; a reset on a real device force-stops them.
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
SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN = 0, 1, 2, 3, 4
_SIZE = re.compile(rb"(Physical|Override) size: (\d+)x(\d+)")


class _Client(adbutils.AdbClient):
    """adbutils' client with the server version asked once (it asks before every transport otherwise)."""

    _version: int | None = None

    def server_version(self) -> int:
        if self._version is None:
            self._version = int(super().server_version())
        return self._version


def server_port() -> int:
    """The adb server port: ANDROID_ADB_SERVER_PORT as adb itself reads it, else 5037."""
    return int(os.environ.get("ANDROID_ADB_SERVER_PORT", DEFAULT_SERVER_PORT))


def reconnect_wait() -> float:
    """Seconds a reset waits for an adb device to come back: ``CRAB_GYM_ADB_WAIT``, else 30."""
    raw = os.environ.get("CRAB_GYM_ADB_WAIT", "")
    if not raw.strip():
        return DEFAULT_WAIT
    try:
        wait = float(raw)
    except ValueError:
        wait = -1.0
    if not 0 <= wait < float("inf"):
        raise ValueError(f"CRAB_GYM_ADB_WAIT must be a number of seconds >= 0, got {raw!r}")
    return wait


def ensure_server(port: int, host: str = "127.0.0.1") -> None:
    """Start an adb server on ``port`` unless one answers there (adb daemonises it; it outlives us)."""
    with socket.socket() as s:
        s.settimeout(0.3)
        if s.connect_ex((host, port)) == 0:
            return
    subprocess.run(
        [adbutils.adb_path(), "-P", str(port), "start-server"],
        capture_output=True,
        timeout=30,
        check=False,
        stdin=subprocess.DEVNULL,
    )


class AdbDevice(Device):
    """A device behind an adb server. ``served`` is our PhoneServer when this process started it (adb-sim).
    ``wait``: how long a reset waits for the device to come back after it dropped off adb (default
    :func:`reconnect_wait`)."""

    def __init__(
        self,
        serial: str,
        server_host: str = "127.0.0.1",
        server_port_: int | None = None,
        served=None,
        timeout: float = 20.0,
        wait: float | None = None,
    ) -> None:
        self.serial = serial
        self.served = served
        self.wait = reconnect_wait() if wait is None else wait
        self._host = server_host
        self._port = server_port_ or server_port()
        self._frame: np.ndarray | None = None
        self._closed = False
        try:
            ensure_server(self._port, server_host)
            self.client = _Client(host=server_host, port=self._port)
            if _networked(serial):
                self.client.connect(serial, timeout=timeout)
            self.client.wait_for(serial, state="device", timeout=timeout)
            self.d = self.client.device(serial)
            out, err, code = self.shell("wm size")
        except (adbutils.AdbError, OSError, EOFError) as e:
            raise DeviceError(f"adb device {serial} (server port {self._port}) unreachable: {e}") from e
        sizes = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _SIZE.finditer(out)}
        if not sizes:
            raise DeviceError(f"adb device {serial}: `wm size` gave {out!r} {err!r} ({code})")
        self._size: tuple[int, int] = sizes.get(b"Override") or sizes[b"Physical"]
        self.is_crab_phone = self.shell("getprop ro.product.model")[0].strip() == b"CrabPhone"

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    # ---- transport -------------------------------------------------------------------------------
    def shell(self, cmd: str, stdin: bytes = b"") -> tuple[bytes, bytes, int]:
        """One ``shell,v2:`` service: stdin (if any) then CLOSE_STDIN, stdout/stderr until EXIT."""
        try:
            c = self.d.open_transport(timeout=30)
        except (adbutils.AdbError, OSError, EOFError) as e:
            raise DeviceError(f"adb {self.serial}: {e}") from e
        try:
            c.send_command(f"shell,v2:{cmd}")
            c.check_okay()
            out = []
            if stdin:
                for i in range(0, len(stdin), 64 * 1024):
                    chunk = stdin[i : i + 64 * 1024]
                    c.conn.sendall(bytes([SHELL_STDIN]) + len(chunk).to_bytes(4, "little") + chunk)
            c.conn.sendall(bytes([SHELL_CLOSE_STDIN]) + (0).to_bytes(4, "little"))
            err = []
            code = 255
            while True:
                head = c.read_exact(5)
                kind, length = head[0], int.from_bytes(head[1:5], "little")
                data = c.read_exact(length) if length else b""
                if kind == SHELL_STDOUT:
                    out.append(data)
                elif kind == SHELL_STDERR:
                    err.append(data)
                elif kind == SHELL_EXIT:
                    code = data[0] if data else 255
                    break
            return b"".join(out), b"".join(err), code
        except (adbutils.AdbError, OSError, EOFError) as e:  # EOFError: the server hung up mid-reply
            raise DeviceError(f"adb {self.serial}: shell {cmd[:60]!r} failed: {e}") from e
        finally:
            c.conn.close()  # not c.close(): adbutils sleeps 10 ms there

    def _run(self, cmd: str) -> None:
        self._frame = None
        _, err, code = self.shell(cmd)
        if code != 0:
            raise DeviceError(f"adb {self.serial}: {cmd!r} exited {code}: {err.decode(errors='replace')}")

    # ---- input -------------------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        self._run(f"input tap {int(x)} {int(y)}")

    def long_press(self, x: int, y: int) -> None:
        self._run(f"input swipe {int(x)} {int(y)} {int(x)} {int(y)} {LONG_PRESS_MS}")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        self._run(f"input swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(ms)}")

    def text(self, s: str) -> None:
        if s:
            self._run("input text " + quote(s.replace(" ", "%s")))

    def keyevent(self, code: int) -> None:
        self._run(f"input keyevent {int(code)}")

    # ---- screen ------------------------------------------------------------------------------------
    def _grab_png(self) -> bytes:
        out, err, code = self.shell("screencap -p")
        if code != 0 or not out.startswith(b"\x89PNG"):
            raise DeviceError(f"adb {self.serial}: screencap failed ({code}): {err[:200]!r}")
        return out

    @staticmethod
    def _decode(png: bytes) -> np.ndarray:
        with Image.open(io.BytesIO(png)) as img:
            frame = np.asarray(img.convert("RGB"))
        frame.flags.writeable = False
        return frame

    def screenshot(self) -> np.ndarray:
        if self._frame is None:
            self._frame = self._decode(self._grab_png())
        return self._frame

    def settle(self, timeout: float = 2.0) -> None:
        """Screencaps until two in a row are byte-identical (bounded); the last one is the next frame."""
        png = wait_stable(self._grab_png, timeout=timeout)
        self._frame = self._decode(png)

    def invalidate(self) -> None:
        self._frame = None

    def ui_xml(self) -> str:
        """``uiautomator dump /dev/tty`` (leaves no file), else a dump file read back and removed."""
        out, err, code = self.shell("uiautomator dump /dev/tty")
        if b"<hierarchy" not in out:
            path = "/data/local/tmp/crab_window_dump.xml"
            out, err, code = self.shell(f"uiautomator dump {path} >/dev/null && cat {path}; rm -f {path}")
        if b"<hierarchy" not in out:
            raise DeviceError(f"adb {self.serial}: uiautomator dump failed ({code}): {(out + err)[:200]!r}")
        start = out.find(b"<?xml")
        start = out.index(b"<hierarchy") if start < 0 else start
        end = out.rindex(b"</hierarchy>") + len(b"</hierarchy>")
        return out[start:end].decode("utf-8")

    def push(self, path: str, data: bytes) -> None:
        try:
            self.d.sync.push(data, path)
        except (adbutils.AdbError, OSError, EOFError) as e:
            raise DeviceError(f"adb {self.serial}: push {path} failed: {e}") from e
        self._frame = None

    # ---- lifecycle ---------------------------------------------------------------------------------
    def online(self) -> bool:
        """True when the adb server answers and lists this device as ``device`` (and, for our own served
        phone, its server still listens): one request to the adb server, none to the device."""
        if self._served_stopped():
            return False
        try:
            return self.d.get_state() == "device"
        except (adbutils.AdbError, OSError, EOFError):
            return False

    def reconnect(self, wait: float | None = None) -> None:
        """Bring the device back on adb, waiting at most ``wait`` s (default ``self.wait``): start the adb
        server if none answers, serve our own phone again if its server stopped (on a new port, so the
        serial changes), ``adb connect`` a network serial (dropping an offline link first), and poll until
        adb lists it as a device. A device we do not own that does not come back raises DeviceGone, naming
        it and the last thing adb said."""
        wait = self.wait if wait is None else wait
        deadline = time.monotonic() + wait
        self._frame = None
        if self._served_stopped():
            old = self.serial
            self.served.stop()
            self.served.start()
            self.serial = self.served.serial
            self.d = self.client.device(self.serial)
            try:
                self.client.disconnect(old)
            except (adbutils.AdbError, OSError, EOFError):
                pass
        last = "no answer"
        while True:
            try:
                ensure_server(self._port, self._host)
                try:
                    state = self.d.get_state()
                    last = f"state {state!r}"
                except adbutils.AdbError as e:  # "device offline", or not listed (a new adb server)
                    state = "offline" if "offline" in str(e) else None
                    last = f"{type(e).__name__}: {e}"
                if state == "device":
                    return
                if _networked(self.serial):
                    if state == "offline":  # adb retries an offline link slowly: drop it and connect anew
                        self.client.disconnect(self.serial)
                    left = max(0.5, deadline - time.monotonic())
                    said = self.client.connect(self.serial, timeout=min(5.0, left))
                    if said and not said.startswith(("connected", "already")):
                        last = said
            except (adbutils.AdbError, OSError, subprocess.SubprocessError) as e:
                last = f"{type(e).__name__}: {e}"
            if time.monotonic() >= deadline:
                # Our own phone is rebuilt by the caller; a device we do not own is gone for good.
                error = DeviceError if self.served is not None else DeviceGone
                raise error(
                    f"adb device {self.serial} is gone: adb server {self._host}:{self._port} did not list it "
                    f"as a device within {wait:.0f} s (last: {last}); reconnect it, or set CRAB_GYM_ADB_WAIT"
                )
            time.sleep(min(0.25, max(0.0, deadline - time.monotonic())))

    def _served_stopped(self) -> bool:
        """Our own phone's adb server was stopped (its phone lives on in this process)."""
        return self.served is not None and bool(self.served.stopping)

    def reset(self, seed: int | None = None) -> None:
        self._frame = None
        if not self.online():
            self.reconnect()
        if self.served is not None:  # our phone, served from this process: reset it directly
            self.served.phone.reset(seed)
            return
        if self.is_crab_phone:  # our phone served elsewhere (`crab-gym phone serve`): its named reset
            code = self.shell("crab-reset" + ("" if seed is None else f" {int(seed)}"))[2]
            if code == 0:
                return
            # 127: a phone without the command (not yet in the simulator): apps are closed, state stays
        if load_snapshot(self.serial, os.environ.get("CRAB_GYM_EMU_SNAPSHOT", "crab-gym")):
            return  # an emulator: its console restored the snapshot
        self.keyevent(3)
        self.shell(" ; ".join(f"am force-stop {p}" for p in TASK_PACKAGES))
        self.keyevent(3)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if _networked(self.serial):
            try:
                self.client.disconnect(self.serial)
            except (adbutils.AdbError, OSError, AttributeError):
                pass
        if self.served is not None:
            self.served.stop()
            self.served.phone.close()
            self.served = None


def _networked(serial: str) -> bool:
    """A ``host:port`` serial (reached by ``adb connect``), not a USB serial or ``emulator-N``."""
    return bool(re.fullmatch(r"[\w.\-]+:\d+", serial)) and not serial.startswith("emulator-")


def start_sim_server(width: int = 1080, height: int = 2400, seed: int = 0):
    """Our simulated phone served as an adb device on a free local port (the ``adb-sim`` backend)."""
    from crab_gym.envs.android.sim import Phone, PhoneServer

    phone = Phone(width=width, height=height, seed=seed)
    server = PhoneServer(phone, host="127.0.0.1", port=0).start()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the listening socket exists once start() returned; be safe
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", server.port)) == 0:
                break
        time.sleep(0.01)
    return server


__all__ = ["AdbDevice", "ensure_server", "reconnect_wait", "server_port", "start_sim_server"]

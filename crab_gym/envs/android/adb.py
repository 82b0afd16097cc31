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
other device the backend goes home and force-stops the task apps; restoring databases and
files needs an emulator snapshot (``adb emu avd snapshot load <name>``), which is the user's to set up.
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
from crab_gym.envs.base import DeviceError

DEFAULT_SERVER_PORT = 5037
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
    """A device behind an adb server. ``served`` is our PhoneServer when this process started it (adb-sim)."""

    def __init__(
        self,
        serial: str,
        server_host: str = "127.0.0.1",
        server_port_: int | None = None,
        served=None,
        timeout: float = 20.0,
    ) -> None:
        self.serial = serial
        self.served = served
        self._port = server_port_ or server_port()
        self._frame: np.ndarray | None = None
        self._closed = False
        try:
            ensure_server(self._port, server_host)
            self.client = _Client(host=server_host, port=self._port)
            if re.fullmatch(r"[\w.\-]+:\d+", serial) and not serial.startswith("emulator-"):
                self.client.connect(serial, timeout=timeout)
            self.client.wait_for(serial, state="device", timeout=timeout)
            self.d = self.client.device(serial)
            out, err, code = self.shell("wm size")
        except (adbutils.AdbError, OSError) as e:
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
        except (adbutils.AdbError, OSError) as e:
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
        except (adbutils.AdbError, OSError) as e:
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
        except (adbutils.AdbError, OSError) as e:
            raise DeviceError(f"adb {self.serial}: push {path} failed: {e}") from e
        self._frame = None

    # ---- lifecycle ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        self._frame = None
        if self.served is not None:  # our phone, served from this process: reset it directly
            self.served.phone.reset(seed)
            return
        if self.is_crab_phone:  # our phone served elsewhere (`crab-gym phone serve`): its named reset
            code = self.shell("crab-reset" + ("" if seed is None else f" {int(seed)}"))[2]
            if code == 0:
                return
            # 127: a phone without the command (not yet in the simulator): apps are closed, state stays
        self.keyevent(3)
        self.shell(" ; ".join(f"am force-stop {p}" for p in TASK_PACKAGES))
        self.keyevent(3)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if re.fullmatch(r"[\w.\-]+:\d+", self.serial) and not self.serial.startswith("emulator-"):
            try:
                self.client.disconnect(self.serial)
            except (adbutils.AdbError, OSError, AttributeError):
                pass
        if self.served is not None:
            self.served.stop()
            self.served.phone.close()
            self.served = None


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


__all__ = ["AdbDevice", "ensure_server", "server_port", "start_sim_server"]

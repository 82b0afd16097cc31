"""The VM's screen and input, with the interface of the xvfb backend's ``X11Display``.

Input goes through QEMU (QMP ``input-send-event`` via libvirt): an absolute usb-tablet pointer and PS/2 key
events. Frames come from ``virDomainScreenshot``. Window facts and settling come from the probe agent,
which watches the guest's X server. So the desktop's actions drive a VM unchanged.
"""

from __future__ import annotations

import io
import json
import time
from typing import Any

import numpy as np
from PIL import Image

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.primitives.x11 import MULTI_CLICK_DISTANCE, MULTI_CLICK_TIME
from crab_gym.envs.desktop.primitives.x11_windows import WindowInfo
from crab_gym.vm.connection import import_libvirt
from crab_gym.vm.keys import SPARE_KEYS, key_event, keysym, qcode_for_char, qcode_for_name
from crab_gym.vm.probe_client import ProbeClient

ABS_MAX = 0x7FFF  # QEMU's absolute axis range is [0, 0x7fff]
BUTTONS = {1: "left", 2: "middle", 3: "right"}
WHEEL = {"up": "wheel-up", "down": "wheel-down", "left": "wheel-up", "right": "wheel-down"}
MAX_BATCH = 4  # key events per QMP call: <= 8 bytes of scancodes, half of the PS/2 keyboard's 16-byte queue


def parse_ppm(data: bytes) -> np.ndarray:
    """A binary PPM (P6, maxval 255) as an (H, W, 3) uint8 array, without copying the pixels."""
    fields: list[bytes] = []
    pos = 0
    while len(fields) < 4:
        while data[pos : pos + 1].isspace():
            pos += 1
        if data[pos : pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    magic, w, h, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    if magic != b"P6" or maxval != 255:
        raise DeviceError(f"screenshot is not an 8-bit PPM (got {magic!r}, maxval {maxval})")
    pos += 1  # the single whitespace after maxval
    return np.frombuffer(data, np.uint8, count=w * h * 3, offset=pos).reshape(h, w, 3)


def decode_frame(data: bytes) -> np.ndarray:
    """A screenshot as libvirt streams it (PNG from QEMU 7.1 on, PPM before) as (H, W, 3) uint8 RGB."""
    if data[:2] == b"P6":
        return parse_ppm(data)
    try:
        with Image.open(io.BytesIO(data)) as img:
            return np.asarray(img.convert("RGB"))
    except (OSError, ValueError) as e:
        raise DeviceError(f"unreadable screenshot ({len(data)} bytes): {e}") from e


class VMDisplay:
    """Input, frames and window facts for the desktop of one running domain."""

    def __init__(
        self, conn: Any, dom: Any, probe: ProbeClient, size: tuple[int, int], screen_file: str = ""
    ) -> None:
        self.libvirt = import_libvirt()
        import libvirt_qemu

        self._qemu = libvirt_qemu
        self.conn, self.dom, self.probe, self.size = conn, dom, probe, size
        self.screen_file = screen_file  # set on the VM's own host: QEMU writes an uncompressed PPM there
        self.input_timeout = 5.0  # s for the guest to take input (the session stretches it under TCG)
        self._moved = False
        self.name = dom.name()
        self._last_press: tuple[float, int, int] | None = None
        self.after_snapshot_load()

    def after_snapshot_load(self) -> None:
        """The guest's keymap and pointer are the snapshot's again."""
        self._pos: tuple[int, int] | None = None
        self._slot_of: dict[int, int] = {}  # keysym -> index into SPARE_KEYS
        self._next_slot = 0

    # ---- frames -------------------------------------------------------------------------------
    def grab(self) -> np.ndarray:
        """The guest's screen as (H, W, 3) uint8 RGB: QMP ``screendump`` to a PPM file where QEMU runs on
        this machine (no compression: ~3x faster), else ``virDomainScreenshot`` streamed (a remote host)."""
        frame = self._grab_file() if self.screen_file else self._grab_stream()
        if frame.shape[1::-1] != self.size:
            raise DeviceError(f"{self.name} shows {frame.shape[1]}x{frame.shape[0]}, expected {self.size}")
        return frame

    def _grab_file(self) -> np.ndarray:
        self._qmp("screendump", filename=self.screen_file, format="ppm")
        try:
            with open(self.screen_file, "rb") as f:
                data = f.read()
        except OSError as e:
            raise DeviceError(f"screenshot of {self.name}: {e}") from e
        return parse_ppm(data)

    def _grab_stream(self) -> np.ndarray:
        lv = self.libvirt
        stream = self.conn.newStream(0)
        chunks: list[bytes] = []
        try:
            self.dom.screenshot(stream, 0, 0)
            stream.recvAll(lambda _s, data, _o: chunks.append(data), None)
            stream.finish()
        except lv.libvirtError as e:
            try:
                stream.abort()
            except lv.libvirtError:
                pass
            raise DeviceError(f"screenshot of {self.name} failed: {e}") from e
        return decode_frame(b"".join(chunks))

    def settle(self, quiet: float = 0.03, timeout: float = 2.0, busy: Any = None, poll: float = 0.01) -> bool:
        """Wait in the guest until ``quiet`` s pass with no screen damage and no CPU use in the guest (its
        X server draws for the apps; bounded by ``timeout``)."""
        args = {"quiet": quiet, "timeout": timeout, "scope": "machine"}
        return bool(self.probe.call("settle", reply_within=timeout + 15.0, **args))

    # ---- input --------------------------------------------------------------------------------
    def _qmp(self, command: str, **arguments: Any) -> Any:
        cmd = json.dumps({"execute": command, "arguments": arguments})
        try:
            reply = json.loads(self._qemu.qemuMonitorCommand(self.dom, cmd, 0))
        except self.libvirt.libvirtError as e:
            raise DeviceError(f"{command} on {self.name} failed: {e}") from e
        if "error" in reply:
            desc = reply["error"].get("desc", reply["error"])
            raise DeviceError(f"{command} on {self.name} refused: {desc}")
        return reply.get("return")

    def _send(self, events: list[dict]) -> None:
        self._qmp("input-send-event", events=events)

    def to_pixels(self, point: tuple[float, float]) -> tuple[int, int]:
        w, h = self.size
        return min(int(point[0] * w), w - 1), min(int(point[1] * h), h - 1)

    def _abs(self, x: int, y: int) -> list[dict]:
        w, h = self.size
        ax = min(int((x + 0.5) * (ABS_MAX + 1) / w), ABS_MAX)
        ay = min(int((y + 0.5) * (ABS_MAX + 1) / h), ABS_MAX)
        return [
            {"type": "abs", "data": {"axis": "x", "value": ax}},
            {"type": "abs", "data": {"axis": "y", "value": ay}},
        ]

    def move(self, x: int, y: int) -> None:
        seen = self._seen()
        self._move(x, y)
        self._arrived(seen, "motions", 1 if self._moved else 0, fatal=False)

    def _move(self, x: int, y: int) -> None:
        self._send(self._abs(x, y))
        self._moved = self._pos != (x, y)
        self._pos = (x, y)

    def button(self, button: int, down: bool) -> None:
        seen = self._seen()
        self._button(button, down)
        self._arrived(seen, "buttons", 1)

    def _button(self, button: int, down: bool) -> None:
        # One call per press and per release: the tablet reports the buttons' state at each sync, so a
        # press and its release in one batch would cancel out.
        self._send([{"type": "btn", "data": {"down": down, "button": BUTTONS[button]}}])

    def click(self, x: int, y: int, button: int = 1, count: int = 1) -> None:
        """``count`` presses at (x, y); a click near the previous one waits out the double-click time, as on
        the xvfb backend, so two separate clicks never merge into a double-click. Returns once the guest's
        X server has received every press and release."""
        if self._last_press is not None:
            at, lx, ly = self._last_press
            near = abs(lx - x) <= MULTI_CLICK_DISTANCE and abs(ly - y) <= MULTI_CLICK_DISTANCE
            if count > 1 or near:
                time.sleep(max(0.0, at + MULTI_CLICK_TIME - time.monotonic()))
        seen = self._seen()
        self._move(x, y)
        for i in range(count):
            if i:
                # Sent back to back after a move, the second press and release of a double-click never
                # reach the guest's X server (its input driver takes them for a bounce): each click waits
                # for the previous one to arrive.
                self._arrived(seen, "buttons", 2 * i)
            self._button(button, True)
            self._button(button, False)
        self._arrived(seen, "buttons", 2 * count)
        self._last_press = (time.monotonic(), x, y)

    def drag(self, start: tuple[int, int], end: tuple[int, int], steps: int = 10) -> None:
        seen = self._seen()
        self._move(*start)
        self._button(1, True)
        for i in range(1, steps + 1):
            t = i / steps
            self._move(round(start[0] + (end[0] - start[0]) * t), round(start[1] + (end[1] - start[1]) * t))
            time.sleep(0.005)
        self._button(1, False)
        self._arrived(seen, "buttons", 2)

    def scroll(self, direction: str, clicks: int) -> None:
        """Wheel clicks where the pointer is. QEMU's USB tablet has no horizontal wheel, so left and right
        are Shift with the vertical wheel, which GTK and LibreOffice scroll sideways."""
        wheel = WHEEL[direction]
        sideways = direction in ("left", "right")
        seen = self._seen()
        if sideways:
            self._type([[key_event("shift", True)]])
        for _ in range(clicks):
            self._send([{"type": "btn", "data": {"down": True, "button": wheel}}])
            self._send([{"type": "btn", "data": {"down": False, "button": wheel}}])
        self._arrived(seen, "buttons", 2 * clicks, fatal=False)
        if sideways:
            self._type([[key_event("shift", False)]])

    def _seen(self) -> dict[str, int]:
        """The guest X server's input counts now (see the probe's ``input_events``)."""
        return dict(self.probe.call("input_events"))

    def _arrived(self, seen: dict[str, int], kind: str, n: int, fatal: bool = True) -> None:
        """Wait until ``n`` more ``kind`` events reached the guest's X server; DeviceError if they never do
        (when ``fatal``: a lost press or release would leave a button down)."""
        if n <= 0:
            return
        want = seen[kind] + n
        got = int(self.probe.call("wait_input_events", kind=kind, count=want, timeout=self.input_timeout))
        if got < want and fatal:
            raise DeviceError(f"{self.name} lost {want - got} of {n} {kind[:-1]} events")

    def key_combo(self, names: list[str]) -> None:
        """Press keys in order, release in reverse (a hotkey; one name is a plain key press)."""
        keys = [qcode_for_name(n) for n in names]
        self._type([_key_events(keys, True), _key_events(keys, False)])

    def key(self, name: str, down: bool) -> None:
        """Press or release one key without the other half (Shift with it if it needs Shift)."""
        self._type([_key_events([qcode_for_name(name)], down)])

    def type_text(self, text: str, delay: float = 0.0) -> None:
        """Type text exactly: US-layout characters as their keys, others on keypad keys remapped first."""
        strokes: list[list[dict]] = []
        for ch in text:
            found = qcode_for_char(ch)
            if found is None:
                self._type(strokes)  # keys already queued keep their meaning while a spare key is remapped
                strokes = []
                found = (self._spare_for(keysym(ch)), False)
            qcode, shift = found
            stroke = [key_event(qcode, True), key_event(qcode, False)]
            if shift:
                stroke = [key_event("shift", True), *stroke, key_event("shift", False)]
            strokes.append(stroke)
            if delay:
                self._type(strokes)
                strokes = []
                time.sleep(delay)
        self._type(strokes)

    def _type(self, strokes: list[list[dict]]) -> None:
        """Send key strokes in batches of at most MAX_BATCH events, each once the guest's X server has
        received the previous one: a PS/2 keyboard holds 16 bytes, and what overflows is lost."""
        if not strokes:
            return
        seen = int(self.probe.call("input_events")["keys"])
        batch: list[dict] = []
        for stroke in strokes:
            if batch and len(batch) + len(stroke) > MAX_BATCH:
                seen = self._send_keys(batch, seen)
                batch = []
            batch += stroke
        self._send_keys(batch, seen)

    def _send_keys(self, events: list[dict], seen: int) -> int:
        self._send(events)
        want = seen + len(events)
        got = int(self.probe.call("wait_input_events", kind="keys", count=want, timeout=self.input_timeout))
        if got < want:
            raise DeviceError(f"{self.name} lost {want - got} of {len(events)} key events")
        return got

    def _spare_for(self, sym: int) -> str:
        """The keypad key that types keysym ``sym`` now (remapping one in the guest if needed)."""
        if sym in self._slot_of:
            slot = self._slot_of[sym]
        else:
            slot = self._next_slot
            self._next_slot = (self._next_slot + 1) % len(SPARE_KEYS)
            for old, s in list(self._slot_of.items()):
                if s == slot:
                    del self._slot_of[old]
            self.probe.call("map_keys", mapping={str(SPARE_KEYS[slot][1]): sym})
            self._slot_of[sym] = slot
        return SPARE_KEYS[slot][0]

    # ---- windows ------------------------------------------------------------------------------
    def windows(self) -> list[WindowInfo]:
        return [WindowInfo(*w) for w in self.probe.call("windows")]

    def active_window(self) -> WindowInfo | None:
        w = self.probe.call("active_window")
        return WindowInfo(*w) if w else None

    def active_is_dialog(self) -> bool:
        win = self.active_window()
        return win is not None and win.dialog

    def sync(self) -> None:
        """Nothing to flush: each input call returns once QEMU has queued the events."""

    def close(self) -> None:
        """The display holds nothing of its own (the connection and channel belong to the session)."""


def _key_events(keys: list[tuple[str, bool]], down: bool) -> list[dict]:
    """Key events pressing ``keys`` in order, or releasing them in reverse; a shifted one goes with Shift."""
    out: list[dict] = []
    for qcode, shift in keys if down else reversed(keys):
        names = ["shift", qcode] if shift else [qcode]
        out += [key_event(n, down) for n in (names if down else reversed(names))]
    return out

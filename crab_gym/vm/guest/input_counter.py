"""The probe agent's count of the input events the guest's X server receives (shipped beside probe.py).

Runs with Debian's python3 and python3-xlib in the guest; it is not imported on the host.
"""

from __future__ import annotations

import os
import threading
import time


class InputCounter:
    """Counts the input events the X server receives (XInput2 raw events of the master devices): "keys"
    (presses and releases), "buttons" (pointer buttons, wheel included) and "motions". The host sends input
    no faster than the guest takes it (a PS/2 keyboard queue holds 16 bytes, a USB tablet's 16 reports),
    and knows when an action has reached the X server before it waits for the screen to settle."""

    KINDS = ("keys", "buttons", "motions")

    def __init__(self) -> None:
        self.counts = dict.fromkeys(self.KINDS, 0)
        self.cond = threading.Condition()
        self.thread: threading.Thread | None = None
        self.error = ""
        self.selected = threading.Event()

    def start(self) -> None:
        """Start counting (once); returns when the X server reports to us, so nothing after is missed."""
        if self.thread is None:
            self.selected.clear()
            self.thread = threading.Thread(target=self._run, name="input-counter", daemon=True)
            self.thread.start()
        self.selected.wait(10.0)

    def _run(self) -> None:
        try:
            from Xlib import display
            from Xlib.ext import xinput

            d = display.Display(os.environ.get("DISPLAY", ":0"))
            # XI 2.1+ delivers raw events whatever grab is active (2.0, python-xlib's default, does not:
            # the launcher's keyboard grab would hide every key typed into it).
            xinput.XIQueryVersion(
                display=d.display, opcode=d.display.get_extension_major(xinput.extname), major_version=2,
                minor_version=2,
            )  # fmt: skip
            kinds = {
                xinput.RawKeyPress: "keys", xinput.RawKeyRelease: "keys", xinput.RawButtonPress: "buttons",
                xinput.RawButtonRelease: "buttons", xinput.RawMotion: "motions",
            }  # fmt: skip
            mask = (
                xinput.RawKeyPressMask | xinput.RawKeyReleaseMask | xinput.RawButtonPressMask
                | xinput.RawButtonReleaseMask | xinput.RawMotionMask
            )  # fmt: skip
            d.screen().root.xinput_select_events([(xinput.AllMasterDevices, mask)])
            d.sync()
            self.selected.set()
            while True:
                kind = kinds.get(getattr(d.next_event(), "evtype", None))
                if kind is not None:
                    with self.cond:
                        self.counts[kind] += 1
                        self.cond.notify_all()
        except Exception as e:  # the X server went away; the host sees the error in its next wait
            self.error = f"{type(e).__name__}: {e}"
            self.thread = None
            self.selected.set()

    def wait(self, kind: str, count: int, timeout: float) -> int:
        self.start()
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.counts[kind] < count and time.monotonic() < deadline:
                self.cond.wait(deadline - time.monotonic())
            if self.error:
                raise RuntimeError(f"input counter stopped: {self.error}")
            return self.counts[kind]

"""The small primitive interface every Android backend offers, and the in-process simulated device.

Actions, state reads and evaluators are written once against :class:`Device`; a backend is how a phone is
reached: :class:`SimDevice` drives the simulated :class:`~crab_gym.envs.android.sim.Phone` in-process (the RL
speed path, no adb), :class:`~crab_gym.envs.android.adb.AdbDevice` drives any adb serial.

Coordinates are device pixels. Everything a check reads goes through :meth:`Device.shell`, so a check that
passes on the simulated phone runs unchanged on an emulator or a USB phone.
"""

from __future__ import annotations

import abc
import time

import numpy as np

KEY_HOME, KEY_BACK, KEY_ENTER = 3, 4, 66
LONG_PRESS_MS = 800  # above Android's 500 ms long-press timeout, as `input swipe x y x y 800` does it


class Device(abc.ABC):
    """One Android device, reached by some backend. Every call is synchronous."""

    task_apps: tuple[str, ...] = ()  # the next task's apps: what a phone that cannot be snapshotted clears

    @property
    @abc.abstractmethod
    def size(self) -> tuple[int, int]:
        """(width, height) of the screen in pixels."""

    @abc.abstractmethod
    def shell(self, cmd: str, stdin: bytes = b"") -> tuple[bytes, bytes, int]:
        """Run a shell command line on the device: (stdout, stderr, exit code)."""

    def query(self, cmd: str) -> tuple[bytes, bytes, int]:
        """A read-only shell command (state reads): the same as :meth:`shell`; a backend may use the promise
        that nothing changes to keep its caches."""
        return self.shell(cmd)

    # Lines the env runs by name. Each is its shell line (``*_line`` below); a backend may run it its own way
    # with the same result (the in-process phone runs them without a shell, :class:`SimDevice`).
    def monkey(self, package: str) -> tuple[bytes, bytes, int]:
        """Start ``package``'s launcher activity: :func:`monkey_line`."""
        return self.shell(monkey_line(package))

    def settings_put(self, namespace: str, key: str, value: str) -> tuple[bytes, bytes, int]:
        """Set a setting: :func:`settings_put_line`."""
        return self.shell(settings_put_line(namespace, key, value))

    def content_query(
        self, uri: str, projection: str | None = None, where: str | None = None, sort: str | None = None
    ) -> tuple[bytes, bytes, int]:
        """Read a content provider (a read: :meth:`query`): :func:`content_query_line`."""
        return self.query(content_query_line(uri, projection, where, sort))

    @abc.abstractmethod
    def tap(self, x: int, y: int) -> None: ...

    @abc.abstractmethod
    def long_press(self, x: int, y: int) -> None: ...

    @abc.abstractmethod
    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None: ...

    @abc.abstractmethod
    def text(self, s: str) -> None:
        """Type ``s`` into the focused field (no newlines: the caller sends ENTER between lines)."""

    @abc.abstractmethod
    def keyevent(self, code: int) -> None: ...

    @abc.abstractmethod
    def screenshot(self) -> np.ndarray:
        """The current frame, (H, W, 3) uint8."""

    @abc.abstractmethod
    def ui_xml(self) -> str:
        """A uiautomator dump of the current screen."""

    @abc.abstractmethod
    def reset(self, seed: int | None = None) -> None:
        """Back to the pristine state (as far as the backend can: see each backend)."""

    def push(self, path: str, data: bytes) -> None:
        """Write a file on the device (task setup)."""
        _, err, code = self.shell(f"cat > {quote(path)}", stdin=data)
        if code != 0:
            raise OSError(f"writing {path} on the device failed: {err.decode(errors='replace').strip()}")

    def settle(self, timeout: float = 2.0) -> None:  # noqa: B027 - optional hook
        """Return once the screen stopped changing; default: it never changes on its own."""

    def invalidate(self) -> None:  # noqa: B027 - optional hook
        """Something may have changed the screen behind the backend's back (a shell command): drop caches."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the device; idempotent."""


def quote(s: str) -> str:
    """Single-quote a word for the device's shell (mksh/toybox sh and our phone's shell alike)."""
    return "'" + s.replace("'", "'\"'\"'") + "'"


def monkey_line(package: str) -> str:
    return f"monkey -p {quote(package)} -c android.intent.category.LAUNCHER 1"


def settings_put_line(namespace: str, key: str, value: str) -> str:
    return f"settings put {quote(namespace)} {quote(key)} {quote(value)}"


def content_query_line(
    uri: str, projection: str | None = None, where: str | None = None, sort: str | None = None
) -> str:
    named = zip(("projection", "where", "sort"), (projection, where, sort), strict=True)
    return f"content query --uri {quote(uri)}" + "".join(
        f" --{name} {quote(value)}" for name, value in named if value is not None
    )


class SimDevice(Device):
    """The simulated phone, in-process: input goes straight to the Phone, no adb and no PNG in between.

    The phone renders synchronously (a frame is rebuilt on demand after any change, nothing animates and the
    clock only moves on state changes, or with the wall clock in real time), so ``settle()`` has nothing to
    wait for.
    """

    def __init__(self, phone=None, width: int = 1080, height: int = 2400, seed: int = 0) -> None:
        from crab_gym.envs.android.sim import Phone

        self.phone = phone if phone is not None else Phone(width=width, height=height, seed=seed)
        self._owned = phone is None

    @property
    def size(self) -> tuple[int, int]:
        return self.phone.width, self.phone.height

    def shell(self, cmd: str, stdin: bytes = b"") -> tuple[bytes, bytes, int]:
        return self.phone.shell(cmd, stdin=stdin)

    def monkey(self, package: str) -> tuple[bytes, bytes, int]:
        """:func:`monkey_line`, run without the shell."""
        return self.phone.monkey(package)

    def settings_put(self, namespace: str, key: str, value: str) -> tuple[bytes, bytes, int]:
        """:func:`settings_put_line`, run without the shell."""
        return self.phone.settings_put(namespace, key, value)

    def content_query(
        self, uri: str, projection: str | None = None, where: str | None = None, sort: str | None = None
    ) -> tuple[bytes, bytes, int]:
        """:func:`content_query_line`, run without the shell."""
        from crab_gym.envs.android.sim.system.content_read import content_query

        return content_query(self.phone, uri, projection, where, sort)

    def tap(self, x: int, y: int) -> None:
        self.phone.tap(x, y)

    def long_press(self, x: int, y: int) -> None:
        # the same gesture `input swipe x y x y 800` makes through adb
        self.phone.swipe(x, y, x, y, LONG_PRESS_MS)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        self.phone.swipe(x1, y1, x2, y2, ms)

    def text(self, s: str) -> None:
        self.phone.text(s)

    def keyevent(self, code: int) -> None:
        self.phone.keyevent(code)

    def screenshot(self) -> np.ndarray:
        return self.phone.screenshot()

    def ui_xml(self) -> str:
        return self.phone.ui_xml()

    def reset(self, seed: int | None = None) -> None:
        self.phone.reset(seed)

    def push(self, path: str, data: bytes) -> None:
        with self.phone.lock:
            self.phone.fs.write_bytes(self.phone.fs.android_path(path, "/"), data)
            self.phone.invalidate()

    def close(self) -> None:
        if self._owned and self.phone is not None:
            self.phone.close()


def wait_stable(grab, timeout: float = 2.0, interval: float = 0.0):
    """Grab until two consecutive grabs are equal (or ``timeout``); returns the last grab."""
    deadline = time.monotonic() + timeout
    last = grab()
    while time.monotonic() < deadline:
        if interval:
            time.sleep(interval)
        now = grab()
        if now == last:
            return now
        last = now
    return last


__all__ = ["KEY_BACK", "KEY_ENTER", "KEY_HOME", "Device", "SimDevice", "quote", "wait_stable"]

"""The ``androidenv`` backend: the phone driven through a DeepMind AndroidEnv instance (``pip install
android-env``; optional).

:class:`AndroidEnvDevice` acts only through AndroidEnv's own interface: touches and lifts at normalised
positions (``env.step``), its pixels (``timestep.observation["pixels"]``) and its adb calls
(``env.execute_adb_call``: ``input_text`` for typing, ``generic`` shell commands for keys and state reads).

AndroidEnv needs a simulator. :class:`CrabPhoneSimulator` is our simulated phone behind AndroidEnv's
``BaseSimulator`` interface (touch/lift become taps, long presses and swipes as Android's input pipeline
would make them; its adb controller runs commands on the phone's shell the way ``adb shell`` joins its
arguments). With an emulator instead, build the AndroidEnv with ``android_env.loader.load`` and pass it
to :class:`AndroidEnvDevice` (``phone=None``): everything above the simulator is the same.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from crab_gym.envs.android.device import Device, quote
from crab_gym.envs.base import DeviceError

TAP_SLOP = 24  # px a finger may move and still tap (the phone's own slop)
LONG_PRESS_S = 0.5
EXIT_MARK = "__crab_exit__"


def _require():
    try:
        import android_env  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the optional package
        raise DeviceError(
            "the 'androidenv' backend needs DeepMind's android_env package: pip install android-env"
        ) from e


def make_simulator_classes():
    """Classes that subclass android_env's (imported lazily: android_env is optional)."""
    _require()
    from android_env.components import adb_controller, config_classes, errors, fake_log_stream
    from android_env.components.simulators import base_simulator

    class PhoneAdbController(adb_controller.AdbController):
        """``adb <args>`` on the phone: ``shell`` joins the rest with spaces, as adb does."""

        def __init__(self, phone) -> None:
            super().__init__(config_classes.AdbControllerConfig())
            self.phone = phone

        def execute_command(
            self, args: list[str], timeout: float | None = None, device_specific: bool = True
        ) -> bytes:
            del timeout, device_specific
            if args[:1] == ["shell"]:
                out, _, code = self.phone.shell(" ".join(args[1:]), merged=True)
                if code != 0:
                    raise errors.AdbControllerError(f"adb {' '.join(args)} exited {code}: {out[:200]!r}")
                return out
            if args[:1] == ["push"] and len(args) == 3:  # adb push <local file> <device path>
                with open(args[1], "rb") as f:
                    self.phone.fs.write_bytes(self.phone.fs.android_path(args[2], "/"), f.read())
                return b""
            return b""  # install, root, wait-for-device...: nothing to do on our phone

    class CrabPhoneSimulator(base_simulator.BaseSimulator):
        """Our simulated phone as an AndroidEnv simulator (one finger)."""

        def __init__(self, phone) -> None:
            super().__init__(config_classes.SimulatorConfig())
            self.phone = phone
            self._down: tuple[float, int, int] | None = None  # time, x, y of the finger's first touch
            self._last: tuple[int, int] | None = None

        def adb_device_name(self) -> str:
            return "crab-phone"

        def create_adb_controller(self):
            return PhoneAdbController(self.phone)

        def create_log_stream(self):
            # no logcat lines: AndroidEnv's task manager reads rewards from them, crab-gym does not
            return fake_log_stream.FakeLogStream()

        def _launch_impl(self) -> None:
            pass

        def send_touch(self, touches: list[tuple[int, int, bool, int]]) -> None:
            for x, y, is_down, _finger in touches[:1]:
                if is_down:
                    if self._down is None:
                        self._down = (time.monotonic(), int(x), int(y))
                    self._last = (int(x), int(y))
                elif self._down is not None:
                    t0, x0, y0 = self._down
                    x1, y1 = self._last or (x0, y0)
                    held = time.monotonic() - t0
                    self._down = self._last = None
                    if abs(x1 - x0) < TAP_SLOP and abs(y1 - y0) < TAP_SLOP:
                        if held >= LONG_PRESS_S:
                            self.phone.long_press(x0, y0)
                        else:
                            self.phone.tap(x0, y0)
                    else:
                        self.phone.swipe(x0, y0, x1, y1, max(1, int(held * 1000)))

        def send_key(self, keycode: np.int32, event_type: str) -> None:
            if event_type in ("keydown", "keypress"):
                self.phone.keyevent(int(keycode))

        def _get_screenshot_impl(self) -> np.ndarray:
            return np.array(self.phone.screenshot())

    return CrabPhoneSimulator


def make_android_env(phone) -> Any:
    """A DeepMind AndroidEnv on our phone: our simulator, an empty task, no device settings changed."""
    _require()
    from android_env import environment
    from android_env.components import config_classes, coordinator, device_settings, task_manager
    from android_env.proto import task_pb2

    simulator = make_simulator_classes()(phone)
    settings_cfg = config_classes.DeviceSettingsConfig(
        show_touches=False, show_pointer_location=False, show_status_bar=True, show_navigation_bar=True
    )
    manager = task_manager.TaskManager(task_pb2.Task(id="crab", name="crab-gym"))
    coord = coordinator.Coordinator(
        simulator,
        manager,
        device_settings=device_settings.DeviceSettings(simulator),
        config=config_classes.CoordinatorConfig(device_settings=settings_cfg),
    )
    return environment.AndroidEnv(simulator=simulator, coordinator=coord, task_manager=manager)


class AndroidEnvDevice(Device):
    """A phone driven through a DeepMind AndroidEnv (``env``), ours unless ``env`` is given."""

    def __init__(self, width: int = 1080, height: int = 2400, seed: int = 0, env: Any = None) -> None:
        _require()
        from android_env.components import action_type

        self._types = action_type.ActionType
        self.phone = None
        if env is None:
            from crab_gym.envs.android.sim import Phone

            self.phone = Phone(width=width, height=height, seed=seed)
            env = make_android_env(self.phone)
        self.env = env
        self._pixels: np.ndarray | None = None
        self._size = (width, height)
        self._closed = False
        out = self.shell("wm size")[0].decode()
        if "x" in out:
            w, h = out.strip().rsplit(" ", 1)[-1].split("x")
            self._size = (int(w), int(h))

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    # ---- AndroidEnv's own interface ----------------------------------------------------------------
    def _step(self, kind: str, x: float = 0.0, y: float = 0.0) -> None:
        w, h = self._size
        action = {
            "action_type": np.array(getattr(self._types, kind), dtype=np.int32),
            "touch_position": np.array([min(x / w, 1.0), min(y / h, 1.0)], dtype=np.float32),
        }
        ts = self.env.step(action)
        if ts.observation is None:
            raise DeviceError("AndroidEnv truncated the episode (its simulator is unhealthy)")
        self._pixels = ts.observation["pixels"]

    def _adb(self, **request: Any):
        from android_env.proto import adb_pb2

        response = self.env.execute_adb_call(adb_pb2.AdbRequest(**request))
        if response.status != adb_pb2.AdbResponse.Status.OK:
            raise DeviceError(f"AndroidEnv adb call failed: {response.error_message}")
        return response

    def shell(self, cmd: str, stdin: bytes = b"") -> tuple[bytes, bytes, int]:
        """A generic ``adb shell`` call; its output is stdout and stderr merged, the exit code is echoed."""
        if stdin:
            raise DeviceError("AndroidEnv's adb calls take no standard input")
        from android_env.proto import adb_pb2

        response = self._adb(
            generic=adb_pb2.AdbRequest.GenericRequest(args=["shell", f"{cmd}; echo {EXIT_MARK}$?"])
        )
        out = response.generic.output
        i = out.rfind(EXIT_MARK.encode())
        if i < 0:
            return out, b"", 255
        return out[:i], b"", int(out[i + len(EXIT_MARK) :].strip() or 255)

    def push(self, path: str, data: bytes) -> None:
        self._adb(push={"content": data, "path": path})
        self._pixels = None

    def tap(self, x: int, y: int) -> None:
        self._step("TOUCH", x, y)
        self._step("LIFT", x, y)

    def long_press(self, x: int, y: int) -> None:
        self._step("TOUCH", x, y)
        time.sleep(LONG_PRESS_S + 0.1)
        self._step("TOUCH", x, y)
        self._step("LIFT", x, y)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        for f in np.linspace(0.0, 1.0, 5):  # the finger moves in steps; the phone sees start and end
            self._step("TOUCH", x1 + (x2 - x1) * f, y1 + (y2 - y1) * f)
        self._step("LIFT", x2, y2)

    def text(self, s: str) -> None:
        if s:
            self._adb(input_text={"text": quote(s.replace(" ", "%s"))})
            self._pixels = None

    def keyevent(self, code: int) -> None:
        self.shell(f"input keyevent {int(code)}")
        self._pixels = None

    def screenshot(self) -> np.ndarray:
        if self._pixels is None:
            self._step("LIFT")  # a no-op step: fresh pixels
        assert self._pixels is not None
        return self._pixels

    def invalidate(self) -> None:
        self._pixels = None

    def ui_xml(self) -> str:
        out = self.shell("uiautomator dump /dev/tty")[0]
        if b"<hierarchy" not in out:
            raise DeviceError(f"uiautomator dump failed: {out[:200]!r}")
        start = out.find(b"<?xml")
        end = out.rindex(b"</hierarchy>") + len(b"</hierarchy>")
        return out[start if start >= 0 else out.index(b"<hierarchy") : end].decode("utf-8")

    def reset(self, seed: int | None = None) -> None:
        self.env.reset()
        if self.phone is not None:
            self.phone.reset(seed)
        self._pixels = None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.env.close()
        if self.phone is not None:
            self.phone.close()


__all__ = ["AndroidEnvDevice", "make_android_env", "make_simulator_classes"]

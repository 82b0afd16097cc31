"""The probe agent inside the VM: answers *named* operations on a virtio-serial port, as the desktop user.

Shipped in the image next to ``session_agent.py``, whose operations (accessibility tree, clipboard, settings)
it answers too, so evaluators read the same state on every backend. It executes no code sent to it: a
request names an operation of the table below and gives it plain data (paths, pids, key maps, app keys).
Requests are JSON lines ``{"id": N, "op": NAME, "args": {...}}``; answers ``{"id": N, "ok": true,
"result": ...}`` or ``{"id": N, "ok": false, "error": "..."}``. Runs with Debian's python3 (stdlib,
python3-xlib, pyatspi); it is not imported on the host.

The apps, window reading, process table, file reads and launch watch are the desktop's own modules, which
the image ships beside this file (``crab_gym/envs/desktop/primitives/...``, a namespace package: no
``__init__``, so nothing else of crab-gym comes along); see ``SHARED_MODULES`` in :mod:`crab_gym.vm.recipe`.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Shipped beside this file (see the module docstring).
import session_agent  # noqa: E402
from input_counter import InputCounter  # noqa: E402

from crab_gym.envs.desktop.primitives import launch  # noqa: E402
from crab_gym.envs.desktop.primitives.apps import app_argv  # noqa: E402
from crab_gym.envs.desktop.primitives.cpu import cpu_demand_ns  # noqa: E402
from crab_gym.envs.desktop.primitives.files import list_dir, read_limited, resolve, stat_of  # noqa: E402
from crab_gym.envs.desktop.primitives.procs import process_table, user_pids  # noqa: E402
from crab_gym.envs.desktop.primitives.x11_windows import WindowInfo, WindowReader  # noqa: E402

MAX_FILE_BYTES = 8 * 1024 * 1024
UID = os.getuid()
ME = os.getpid()
HOME = os.environ.get("HOME", "/home/user")


class _X:
    """One lazily opened connection to the guest's X server (reopened after an error), and the window
    facts read on it (the launch watch's screen)."""

    def __init__(self) -> None:
        self.d: Any = None
        self.damage: Any = None
        self.reader: WindowReader | None = None

    def display(self) -> Any:
        if self.d is None:
            from Xlib import display
            from Xlib.ext import damage

            self.d = display.Display(os.environ.get("DISPLAY", ":0"))
            self.reader = WindowReader(self.d)
            root = self.d.screen().root
            if self.d.has_extension("DAMAGE"):
                self.d.damage_query_version()
                self.damage = root.damage_create(damage.DamageReportNonEmpty)
        return self.d

    def drop(self) -> None:
        try:
            if self.d is not None:
                self.d.close()
        except Exception:
            pass
        self.d, self.damage, self.reader = None, None, None

    def read(self, what: Callable[[WindowReader], Any]) -> Any:
        """``what(reader)``; a broken connection is dropped (and reopened by the next call)."""
        try:
            self.display()
            assert self.reader is not None
            return what(self.reader)
        except Exception:
            self.drop()
            raise

    def windows(self) -> list[WindowInfo]:
        return self.read(lambda r: r.windows())

    def active_window(self) -> WindowInfo | None:
        return self.read(lambda r: r.active_window())


X = _X()


def windows() -> list[list[Any]]:
    return [list(dataclasses.astuple(w)) for w in X.windows()]


def active_window() -> list[Any] | None:
    w = X.active_window()
    return None if w is None else list(dataclasses.astuple(w))


def status() -> dict[str, Any]:
    """Is the desktop up: the window manager manages the screen; and the screen's size."""
    geom = X.read(lambda r: X.d.screen().root.get_geometry())
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return {
        "wm": X.read(lambda r: r.wm_running()),
        "screen": [int(geom.width), int(geom.height)],
        "uptime": uptime,
    }


INPUT_SEEN = InputCounter()


def input_events() -> dict[str, int]:
    """Input events the X server has received so far: {"keys": n, "buttons": n, "motions": n}."""
    INPUT_SEEN.start()
    return dict(INPUT_SEEN.counts)


def wait_input_events(kind: str, count: int, timeout: float = 5.0) -> int:
    """Wait until the X server has received ``count`` events of ``kind`` in all (bounded); the count."""
    if kind not in InputCounter.KINDS:
        raise ValueError(f"kind must be one of {InputCounter.KINDS}, not {kind!r}")
    return INPUT_SEEN.wait(kind, int(count), float(timeout))


def map_keys(mapping: dict[str, int]) -> bool:
    """Give keycodes new keysyms (``{"90": 0x10000fc}``): how the host types characters the keymap lacks."""

    def remap(_reader: WindowReader) -> bool:
        for code, keysym in mapping.items():
            X.d.change_keyboard_mapping(int(code), [(int(keysym), int(keysym))])
        X.d.sync()
        return True

    return X.read(remap)


def launcher_ready(name: str = "rofi") -> bool:
    """True once the launcher's window is viewable (rofi grabs the keyboard before it maps its window), so
    keys sent from now on reach it."""
    return X.read(lambda r: r.viewable_of_class(name))


def session_pids() -> list[int]:
    """Live processes of the desktop user, this agent excluded."""
    return user_pids(UID, exclude={ME})


def processes() -> list[list[Any]]:
    return [[p.pid, p.name, list(p.cmdline)] for p in process_table(session_pids())]


def cpu_ns(pids: list[int]) -> int:
    """CPU time the processes used, in ns (time waiting for a CPU not counted)."""
    return cpu_demand_ns([int(p) for p in pids], waited=False)


def kill(pid: int, sig: int = 15) -> bool:
    """Signal one of the desktop user's processes (the kernel refuses any other)."""
    if int(pid) == ME or int(sig) not in (signal.SIGTERM, signal.SIGKILL, signal.SIGINT):
        return False
    try:
        os.kill(int(pid), int(sig))
        return True
    except (ProcessLookupError, PermissionError):
        return False


def spawn(app: str, args: list[str] | None = None) -> int:
    """Start a known application (a key of APPS) with plain arguments (paths); its pid."""
    proc = subprocess.Popen(
        app_argv(app, args or ()), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, cwd=HOME, start_new_session=True,
    )  # fmt: skip
    return proc.pid


def _path(path: str) -> str:
    return str(resolve(PurePosixPath(HOME), path))


def stat(path: str) -> dict[str, Any] | None:
    st = stat_of(_path(path))
    return (
        None
        if st is None
        else {"mode": st.st_mode, "size": st.st_size, "mtime": st.st_mtime, "uid": st.st_uid}
    )


def read_file(path: str, limit: int = MAX_FILE_BYTES) -> str | None:
    """A file's bytes (base64); None when missing, unreadable, a folder, or larger than ``limit``."""
    data = read_limited(_path(path), limit)
    return None if data is None else base64.b64encode(data).decode()


def list_folder(path: str) -> list[str] | None:
    return list_dir(_path(path))


def write_file(path: str, data: str) -> str:
    """Create a file (base64 ``data``) and its parent folders, owned by the desktop user; its full path."""
    p = _path(path)
    os.makedirs(os.path.dirname(p) or "/", exist_ok=True)
    with open(p, "wb") as f:
        f.write(base64.b64decode(data))
    return p


def all_pids() -> list[int]:
    """Every process of the machine but this agent (kernel threads included)."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) != ME]


def settle(
    quiet: float = 0.02, timeout: float = 3.0, share: float = 0.2, poll: float = 0.01, scope: str = "session"
) -> bool:
    """True once, for ``quiet`` s, nothing was drawn and the processes of ``scope`` used under ``share`` of
    a CPU: "session" (the desktop user's, as the xvfb backend counts) or "machine" (every process: in a VM
    the X server, which draws for the apps, and the kernel's writes are part of an app's work too).

    The same rule as the xvfb backend's settle, measured where the pixels and processes are. Bounded by
    ``timeout``; False if it never settled.
    """
    pids_of = all_pids if scope == "machine" else session_pids
    try:
        d = X.display()
        ev_type = d.extension_event.DamageNotify if X.damage is not None else None
    except Exception:
        X.drop()
        raise

    def damaged() -> bool:
        seen = False
        while d.pending_events():
            if d.next_event().type == ev_type:
                seen = True
        if seen:
            d.damage_subtract(X.damage)
            d.sync()
        return seen

    pids, pids_at = pids_of(), time.monotonic()
    used, used_at = cpu_ns(pids), time.monotonic()
    d.sync()
    damaged()
    start = last = time.monotonic()
    while True:
        time.sleep(poll)
        now = time.monotonic()
        if ev_type is not None and damaged():
            last = now
        if now - pids_at > 0.2:
            pids, pids_at = pids_of(), now
        total = cpu_ns(pids)
        if total - used > share * (now - used_at) * 1e9:
            last = now
        used, used_at = total, now
        if now - last >= quiet:
            return True
        if now - start >= timeout:
            return False


def launch_snapshot() -> dict[str, Any]:
    """What a launch is judged against: the windows, the active one, the session's processes."""
    return launch.LaunchWatch(X, session_pids).snapshot()


def launch_wait(
    snapshot: dict[str, Any], startup: float = 40.0, idle_after: float = 1.0, grace: float = 0.3,
    poll: float = 0.02, ignore: tuple[str, ...] = ("rofi",),
) -> str:  # fmt: skip
    """What a launch did, decided by the desktop's own LaunchWatch: "window", "focused", "exited", "idle"
    or "timeout" (see :meth:`crab_gym.envs.desktop.primitives.launch.LaunchWatch.wait`)."""
    watch = launch.LaunchWatch(X, session_pids, ignore=frozenset(ignore), snapshot=snapshot)
    return watch.wait(startup=startup, idle_after=idle_after, grace=grace, poll=poll)


def launcher_exits(name: str = "rofi", idle_for: float = 0.2, bound: float = 2.0, poll: float = 0.01) -> bool:
    """After Enter in the launcher: True once it exits, False once it sits open and idle (nothing matched)."""
    return launch.launcher_exits(session_pids, name, idle_for=idle_for, bound=bound, poll=poll)


OPS: dict[str, Callable[..., Any]] = {
    "launch_snapshot": launch_snapshot,
    "launch_wait": launch_wait,
    "launcher_exits": launcher_exits,
    "launcher_ready": launcher_ready,
    **session_agent.OPS,
    "status": status,
    "windows": windows,
    "active_window": active_window,
    "map_keys": map_keys,
    "input_events": input_events,
    "wait_input_events": wait_input_events,
    "processes": processes,
    "cpu_ns": cpu_ns,
    "kill": kill,
    "spawn": spawn,
    "stat": stat,
    "read_file": read_file,
    "list_dir": list_folder,
    "write_file": write_file,
    "settle": settle,
}


def answer(line: bytes) -> bytes:
    rid = None
    try:
        req = json.loads(line)
        rid = req.get("id")
        op = OPS[req["op"]]
        reply = {"id": rid, "ok": True, "result": op(**req.get("args", {}))}
    except KeyError as e:
        reply = {"id": rid, "ok": False, "error": f"unknown operation or argument: {e}"}
    except Exception as e:
        reply = {"id": rid, "ok": False, "error": f"{type(e).__name__}: {e}"}
    return json.dumps(reply).encode() + b"\n"


def serve_port(path: str) -> None:
    """Serve the virtio-serial port at ``path``: wait for it, answer each line, ride out host disconnects."""
    while not os.path.exists(path):
        time.sleep(0.1)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    buf = b""
    while True:
        events = poller.poll(1000)
        if not events:
            continue
        if any(ev & select.POLLHUP for _, ev in events) and not any(ev & select.POLLIN for _, ev in events):
            buf = b""  # the host side is closed; wait for it to come back
            time.sleep(0.05)
            continue
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            continue
        if not chunk:
            buf = b""
            time.sleep(0.05)
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip():
                _write_all(fd, answer(line))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    deadline = time.monotonic() + 10.0
    while view and time.monotonic() < deadline:
        try:
            n = os.write(fd, view)
            view = view[n:]
        except BlockingIOError:
            select.select([], [fd], [], 0.05)
        except OSError:
            return  # the host went away mid-answer; it will ask again


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--port":
        serve_port(sys.argv[2])
    else:  # stdin/stdout, for trying it out by hand
        for raw in sys.stdin.buffer:
            sys.stdout.buffer.write(answer(raw))
            sys.stdout.buffer.flush()

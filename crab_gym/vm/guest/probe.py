"""The probe agent inside the VM: answers *named* operations on a virtio-serial port, as the desktop user.

Shipped in the image next to ``session_agent.py``, whose operations (accessibility tree, clipboard, settings)
it answers too, so evaluators read the same state on every backend. It executes no code sent to it: a
request names an operation of the table below and gives it plain data (paths, pids, key maps, app keys).
Requests are JSON lines ``{"id": N, "op": NAME, "args": {...}}``; answers ``{"id": N, "ok": true,
"result": ...}`` or ``{"id": N, "ok": false, "error": "..."}``. Runs with Debian's python3 (stdlib,
python3-xlib, pyatspi); it is not imported on the host.
"""

from __future__ import annotations

import base64
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import session_agent  # noqa: E402  (shipped beside this file)

MAX_FILE_BYTES = 8 * 1024 * 1024
UID = os.getuid()
ME = os.getpid()
# Launcher-independent app keys used by task setups, as in the xvfb backend (named, never shell strings).
APPS = {
    "terminal": ["xfce4-terminal"],
    "text_editor": ["mousepad"],
    "file_manager": ["thunar"],
    "writer": ["libreoffice", "--writer", "--norestore"],
    "calc": ["libreoffice", "--calc", "--norestore"],
    "impress": ["libreoffice", "--impress", "--norestore"],
    "vim": ["xfce4-terminal", "-x", "vim"],
}


class _X:
    """One lazily opened connection to the guest's X server (reopened after an error)."""

    def __init__(self) -> None:
        self.d = None
        self.damage = None
        self.atoms: dict[str, int] = {}

    def display(self):
        if self.d is None:
            from Xlib import display
            from Xlib.ext import damage

            self.d = display.Display(os.environ.get("DISPLAY", ":0"))
            self.atoms = {}
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
        self.d, self.damage = None, None

    def atom(self, name: str) -> int:
        if name not in self.atoms:
            self.atoms[name] = self.display().intern_atom(name)
        return self.atoms[name]

    def prop(self, win, name: str, type_: int = 0):
        from Xlib.error import XError

        try:
            p = win.get_full_property(self.atom(name), type_)
        except XError:
            return None
        return p.value if p is not None else None


X = _X()


def _x(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an X query; a broken connection is dropped (and reopened by the next call)."""

    def wrapped(*a: Any, **kw: Any) -> Any:
        try:
            return fn(*a, **kw)
        except Exception:
            X.drop()
            raise

    wrapped.__name__ = fn.__name__
    return wrapped


def _window(wid: int) -> list[Any]:
    d = X.display()
    win = d.create_resource_object("window", wid)
    title = X.prop(win, "_NET_WM_NAME", X.atom("UTF8_STRING"))
    if title is None:
        title = X.prop(win, "WM_NAME")
    if isinstance(title, bytes):
        title = title.decode("utf-8", "replace")
    wm_class = X.prop(win, "WM_CLASS")
    if isinstance(wm_class, bytes):
        parts = wm_class.split(b"\0")
        wm_class = parts[-2 if wm_class.endswith(b"\0") else -1].decode("utf-8", "replace")
    pid = X.prop(win, "_NET_WM_PID")
    return [wid, str(title or ""), str(wm_class or ""), int(pid[0]) if pid else None]


@_x
def windows() -> list[list[Any]]:
    root = X.display().screen().root
    ids = X.prop(root, "_NET_CLIENT_LIST_STACKING") or X.prop(root, "_NET_CLIENT_LIST") or []
    return [_window(int(w)) for w in ids]


@_x
def active_window() -> list[Any] | None:
    root = X.display().screen().root
    ids = X.prop(root, "_NET_ACTIVE_WINDOW")
    if not ids or not int(ids[0]):
        return None
    managed = X.prop(root, "_NET_CLIENT_LIST")
    if managed is None or int(ids[0]) not in {int(w) for w in managed}:
        return None
    return _window(int(ids[0]))


@_x
def status() -> dict[str, Any]:
    """Is the desktop up: the window manager manages the screen; and the screen's size."""
    d = X.display()
    root = d.screen().root
    geom = root.get_geometry()
    return {
        "wm": bool(X.prop(root, "_NET_SUPPORTING_WM_CHECK")),
        "screen": [int(geom.width), int(geom.height)],
        "uptime": float(open("/proc/uptime").read().split()[0]),
    }


class _InputCounter:
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


INPUT_SEEN = _InputCounter()


def input_events() -> dict[str, int]:
    """Input events the X server has received so far: {"keys": n, "buttons": n, "motions": n}."""
    INPUT_SEEN.start()
    return dict(INPUT_SEEN.counts)


def wait_input_events(kind: str, count: int, timeout: float = 5.0) -> int:
    """Wait until the X server has received ``count`` events of ``kind`` in all (bounded); the count."""
    if kind not in _InputCounter.KINDS:
        raise ValueError(f"kind must be one of {_InputCounter.KINDS}, not {kind!r}")
    return INPUT_SEEN.wait(kind, int(count), float(timeout))


@_x
def map_keys(mapping: dict[str, int]) -> bool:
    """Give keycodes new keysyms (``{"90": 0x10000fc}``): how the host types characters the keymap lacks."""
    d = X.display()
    for code, keysym in mapping.items():
        d.change_keyboard_mapping(int(code), [(int(keysym), int(keysym))])
    d.sync()
    return True


@_x
def launcher_ready(name: str = "rofi") -> bool:
    """True once the launcher's window is viewable (rofi grabs the keyboard before it maps its window), so
    keys sent from now on reach it."""
    from Xlib import X as Xc

    root = X.display().screen().root
    for win in root.query_tree().children:
        try:
            if win.get_attributes().map_state != Xc.IsViewable:
                continue
            cls = win.get_wm_class()
        except Exception:
            continue
        if cls and name in (c.lower() for c in cls):
            return True
    return False


def session_pids() -> list[int]:
    """Live processes of the desktop user, this agent excluded."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == ME:
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != UID:
                continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1][1:2] == b"Z":
                    continue
        except OSError:
            continue
        out.append(int(entry))
    return out


def processes() -> list[list[Any]]:
    out = []
    for pid in session_pids():
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = [c.decode(errors="replace") for c in f.read().split(b"\0") if c]
        except OSError:
            continue
        out.append([pid, name, cmd])
    return out


def cpu_ns(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for tid in os.listdir(f"/proc/{int(pid)}/task"):
                with open(f"/proc/{int(pid)}/task/{tid}/schedstat", "rb") as f:
                    total += int(f.read().split(maxsplit=1)[0])
        except (OSError, ValueError):
            continue
    return total


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
    argv = [*APPS[app], *[str(a) for a in (args or [])]]
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        cwd=os.environ.get("HOME", "/"), start_new_session=True,
    )  # fmt: skip
    return proc.pid


def _path(path: str) -> str:
    home = os.environ.get("HOME", "/home/user")
    if path == "~" or path.startswith("~/"):
        return os.path.join(home, path[2:])
    return path if path.startswith("/") else os.path.join(home, path)


def stat(path: str) -> dict[str, Any] | None:
    try:
        st = os.stat(_path(path))
    except OSError:
        return None
    return {"mode": st.st_mode, "size": st.st_size, "mtime": st.st_mtime, "uid": st.st_uid}


def read_file(path: str, limit: int = MAX_FILE_BYTES) -> str | None:
    """A file's bytes (base64); None when missing, unreadable, a folder, or larger than ``limit``."""
    try:
        with open(_path(path), "rb") as f:
            data = f.read(int(limit) + 1)
    except OSError:
        return None
    return None if len(data) > int(limit) else base64.b64encode(data).decode()


def list_dir(path: str) -> list[str] | None:
    try:
        return sorted(os.listdir(_path(path)))
    except OSError:
        return None


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


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def launch_snapshot() -> dict[str, Any]:
    """What a launch is judged against: the windows, the active one, the session's processes."""
    active = active_window()
    return {
        "windows": [w[0] for w in windows()],
        "active": active[0] if active else None,
        "pids": session_pids(),
    }


def launch_wait(
    snapshot: dict[str, Any], startup: float = 40.0, idle_after: float = 1.0, grace: float = 0.3,
    poll: float = 0.02, ignore: tuple[str, ...] = ("rofi",),
) -> str:  # fmt: skip
    """What a launch did, as the xvfb backend's LaunchWatch decides it: "window" (a new window is active),
    "focused" (what it started is gone and another existing window is active), "exited" (what it started
    is gone), "idle" (it started something that sits without a window), or "timeout". An existing window
    that becomes active while the launched program runs decides nothing (focus back from a closed
    dialog)."""
    before, active, old = set(snapshot["windows"]), snapshot["active"], set(snapshot["pids"])
    start = last_active = time.monotonic()
    seen: set[int] = set()
    used = 0
    while True:
        win = active_window()
        if win is not None and win[0] not in before and win[1]:
            return "window"
        focused = win is not None and win[0] != active and win[0] in before
        now = time.monotonic()
        pids = [p for p in session_pids() if p not in old and _name(p) not in ignore]
        fresh = [p for p in pids if p not in seen]
        seen.update(fresh)
        total = cpu_ns(pids)
        if fresh or total - used > 0.05 * poll * 1e9:
            last_active = now
        used = total
        if now - start >= grace and not pids:
            return "focused" if focused else "exited"
        if pids and now - last_active >= idle_after:
            return "idle"
        if now - start >= startup:
            return "timeout"
        time.sleep(poll)


def launcher_exits(name: str = "rofi", idle_for: float = 0.2, bound: float = 2.0, poll: float = 0.01) -> bool:
    """After Enter in the launcher: True once it exits (it launched something); False once it sits open and
    idle for ``idle_for`` s (nothing matched), or after ``bound`` s."""
    pids = [p for p in session_pids() if _name(p) == name]
    start = last_active = time.monotonic()
    used = cpu_ns(pids)
    while any(os.path.exists(f"/proc/{p}") and _name(p) == name for p in pids):
        now, total = time.monotonic(), cpu_ns(pids)
        if total - used > 0.05 * poll * 1e9:
            last_active = now
        used = total
        if now - last_active >= idle_for or now - start >= bound:
            return False
        time.sleep(poll)
    return True


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
    "list_dir": list_dir,
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

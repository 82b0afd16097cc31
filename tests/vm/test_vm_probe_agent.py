"""The guest's probe agent, run against a real X session on this machine (no VM needed).

The agent shipped in the image is the same file; here it runs in an xvfb session with the image's layout
(``probe.py`` beside ``session_agent.py`` and the desktop modules it imports), speaking its JSON-lines
protocol on stdin/stdout.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import PurePosixPath

import pytest

from crab_gym.vm.recipe import GUEST_FILES, GUEST_LIB

pytest.importorskip("Xlib")


@pytest.fixture(scope="module")
def session():
    from crab_gym.envs.desktop.backends.xvfb import XvfbSession

    try:
        s = XvfbSession()
    except Exception as e:  # noqa: BLE001 - no X server programs here
        pytest.skip(f"no xvfb session: {e}")
    s.start()
    yield s
    s.close()


@pytest.fixture(scope="module")
def probe(session):
    """The probe agent as a process of the session user, with the image's file layout, on Debian's python3
    as in the guest (the session user may not reach this checkout's virtualenv: a clone under /root)."""
    from crab_gym.envs.desktop.backends.xvfb import SYSTEM_PYTHON

    python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    d = session.run_dir / "crab-gym"
    for guest_path, (src, _mode) in GUEST_FILES.items():
        if guest_path.startswith(GUEST_LIB + "/") and src.suffix == ".py":
            dest = d / PurePosixPath(guest_path).relative_to(GUEST_LIB)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
    session.chown(d)
    proc = subprocess.Popen(
        [python, str(d / "probe.py")],
        env=session.env(), cwd=session.home, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, **session.user_kwargs(),
    )  # fmt: skip
    ids = iter(range(1, 10**9))

    def call(op: str, **args):
        rid = next(ids)
        proc.stdin.write(json.dumps({"id": rid, "op": op, "args": args}).encode() + b"\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply["id"] == rid
        return reply

    call.proc = proc
    yield call
    proc.kill()
    proc.wait()


def ok(reply):
    assert reply["ok"], reply
    return reply["result"]


def test_status_and_bad_requests(probe):
    st = ok(probe("status"))
    assert st["wm"] is True and st["screen"] == [1280, 800]
    assert "unknown operation" in probe("no_such_op")["error"]
    assert not probe("stat", nonsense=1)["ok"]
    probe.proc.stdin.write(b"{not json\n")
    probe.proc.stdin.flush()
    reply = json.loads(probe.proc.stdout.readline())
    assert reply["ok"] is False and reply["id"] is None
    assert ok(probe("ping")) == "pong", "a malformed line must not end the agent"


def test_files(probe, session):
    data = base64.b64encode(b"hi \xc3\xbc\n").decode()
    p = ok(probe("write_file", path="~/Documents/probe/a.txt", data=data))
    assert p == str(session.home / "Documents/probe/a.txt")
    assert (session.home / "Documents/probe/a.txt").read_bytes() == b"hi \xc3\xbc\n"
    assert base64.b64decode(ok(probe("read_file", path="~/Documents/probe/a.txt"))) == b"hi \xc3\xbc\n"
    assert ok(probe("read_file", path="~/Documents/probe/a.txt", limit=2)) is None, "over the limit"
    assert ok(probe("read_file", path="~/Documents/nothing")) is None
    assert ok(probe("list_dir", path="~/Documents/probe")) == ["a.txt"]
    assert ok(probe("list_dir", path="~/Documents/nothing")) is None
    st = ok(probe("stat", path="~/Documents/probe"))
    assert st["mode"] & 0o040000 and st["uid"] == session.user.uid
    assert ok(probe("stat", path="/nonexistent")) is None


def test_spawn_windows_processes_and_launch_wait(probe, session):
    snap = ok(probe("launch_snapshot"))
    pid = ok(probe("spawn", app="text_editor", args=[]))
    assert ok(probe("launch_wait", snapshot=snap, startup=30.0)) == "window"
    active = ok(probe("active_window"))
    assert active is not None and active[2].lower() == "mousepad", active
    assert active[0] in [w[0] for w in ok(probe("windows"))]
    names = {p[1] for p in ok(probe("processes"))}
    assert "mousepad" in names and "python3" not in names | {"python"}, "the agent lists itself"
    assert ok(probe("settle", quiet=0.1, timeout=10.0)) is True
    assert ok(probe("cpu_ns", pids=[pid])) > 0
    assert ok(probe("kill", pid=pid, sig=15)) is True
    assert ok(probe("kill", pid=probe.proc.pid, sig=9)) is False, "the agent must not kill itself"
    assert "KeyError" in probe("spawn", app="rm -rf /")["error"] or not probe("spawn", app="sh")["ok"]


def test_launcher_ready_and_exits(probe, session):
    assert ok(probe("launcher_ready")) is False
    session.x.key_combo(["super"])
    deadline = time.monotonic() + 10
    while not ok(probe("launcher_ready")):
        assert time.monotonic() < deadline, "rofi never showed"
        time.sleep(0.05)
    session.x.type_text("zzz no such app")
    session.x.key_combo(["enter"])
    assert ok(probe("launcher_exits", idle_for=0.3, bound=3.0)) is False, "nothing matched: rofi stays"
    for pid, name, _cmd in ok(probe("processes")):
        if name == "rofi":
            assert ok(probe("kill", pid=pid, sig=15)) is True
    assert ok(probe("launcher_exits", idle_for=1.0, bound=5.0)) is True
    assert ok(probe("launcher_ready")) is False


def test_map_keys_types_characters_outside_the_keymap(probe, session):
    """The trick the VM's input uses: a keypad keycode gets the keysym of a character for a moment."""
    from Xlib import display

    ok(probe("map_keys", mapping={"90": 0x10000FC}))  # keycode of KP_0 -> U+00FC as a Unicode keysym
    d = display.Display(session.display_name)
    try:
        assert d.keycode_to_keysym(90, 0) == 0x10000FC
    finally:
        d.close()


def test_input_counts_follow_what_the_x_server_received(probe, session):
    """How the VM's input keeps pace with the guest: keys, buttons and motions the X server has seen,
    counted even while the launcher grabs the keyboard."""
    before = ok(probe("input_events"))
    session.x.type_text("aB")  # a: press+release; B: shift, b, and their releases
    assert (
        ok(probe("wait_input_events", kind="keys", count=before["keys"] + 6, timeout=5.0))
        == before["keys"] + 6
    )
    session.x.click(700, 300, button=3)
    session.x.key_combo(["esc"])
    got = ok(probe("wait_input_events", kind="buttons", count=before["buttons"] + 2, timeout=5.0))
    assert got == before["buttons"] + 2
    assert ok(probe("input_events"))["motions"] > before["motions"]
    assert "kind must be" in probe("wait_input_events", kind="bogus", count=1)["error"]

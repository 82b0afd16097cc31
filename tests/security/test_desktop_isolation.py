"""From inside a desktop session (a command run as its user, the way anything an agent starts runs), the
neighbours are out of reach: another session's HOME and X display, the host user's files and environment,
and any address but the session's own loopback.

Two real sessions side by side (Xvfb, D-Bus, openbox, each with its own user). Needs root, as sessions only
get users of their own then.
"""

from __future__ import annotations

import os
import socket
import subprocess
import textwrap
from pathlib import Path

import pytest

from crab_gym.envs.desktop import DesktopEnv

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="sessions get users of their own only when run as root"),
]


@pytest.fixture(scope="module")
def pair():
    a, b = DesktopEnv(), DesktopEnv()
    try:
        a.reset()
        b.reset()
        yield a.session, b.session
    finally:
        a.close()
        b.close()


def _in(
    session, *argv: str, env: dict[str, str] | None = None, timeout: float = 20
) -> subprocess.CompletedProcess:
    """Run argv inside the session as its user; ``env`` overrides variables (through env(1))."""
    prefix = ["env", *(f"{k}={v}" for k, v in env.items())] if env else []
    return session.run([*prefix, *argv], timeout=timeout)


def _py(session, code: str) -> subprocess.CompletedProcess:
    return _in(session, "/usr/bin/python3", "-c", textwrap.dedent(code))


def test_each_session_runs_as_its_own_unprivileged_user(pair):
    a, b = pair
    assert a.user.dedicated and b.user.dedicated
    assert 0 not in (a.user.uid, b.user.uid) and a.user.uid != b.user.uid
    assert _in(a, "id", "-u").stdout.decode().strip() == str(a.user.uid)
    assert _in(a, "id", "-G").stdout.decode().split() == [str(a.user.gid)]  # no supplementary groups
    status = _in(a, "cat", "/proc/self/status").stdout.decode()
    assert "CapEff:\t0000000000000000" in status and "CapPrm:\t0000000000000000" in status
    for session in pair:
        pids = session.session_pids()
        assert pids
        for pid in pids:  # every process of the session, the window manager and D-Bus included
            assert os.stat(f"/proc/{pid}").st_uid == session.user.uid != 0


def test_another_sessions_home_and_run_dir_are_out_of_reach(pair):
    a, b = pair
    secret = b.write_file("~/Documents/secret.txt", b"b's secret\n")
    assert _in(b, "cat", str(secret)).stdout == b"b's secret\n"  # its own user reads it
    for cmd, target in (
        ("cat", secret),
        ("ls", b.home),
        ("cat", b.run_dir / "Xauthority"),
        ("ls", b.run_dir),
    ):
        res = _in(a, cmd, str(target))
        assert res.returncode != 0 and b"Permission denied" in res.stderr, (target, res)
    res = _in(a, "sh", "-c", f"echo x > {b.home}/planted")
    assert res.returncode != 0 and not (b.home / "planted").exists()


def test_the_host_users_files_and_environment_are_out_of_reach(pair, monkeypatch):
    a, _ = pair
    probe = Path.home() / ".crab-gym-security-probe"
    probe.write_text("host secret\n")
    probe.chmod(0o644)  # readable by anyone who can reach it: the host HOME's own mode must stop them
    try:
        res = _in(a, "cat", str(probe))
        assert res.returncode != 0 and b"Permission denied" in res.stderr
    finally:
        probe.unlink()
    res = _in(a, "cat", f"/proc/{os.getpid()}/environ")  # the host process's environment (API keys...)
    assert res.returncode != 0
    monkeypatch.setenv("CRAB_GYM_HOST_SECRET", "sk-not-for-sessions")
    assert b"sk-not-for-sessions" not in _in(a, "env").stdout  # sessions get an environment of their own
    res = _in(a, "kill", "-0", str(os.getpid()))  # nor can it signal host processes
    assert res.returncode != 0


def test_another_sessions_display_refuses_connections(pair):
    a, b = pair
    assert _in(a, "xdpyinfo", "-display", a.display_name).returncode == 0  # its own display, by its cookie
    for env in ({}, {"XAUTHORITY": str(b.run_dir / "Xauthority")}, {"XAUTHORITY": "/dev/null"}):
        res = _in(a, "xdpyinfo", "-display", b.display_name, env=env)
        assert res.returncode != 0 and b"unable to open display" in res.stderr, (env, res)
    # each session has a cookie of its own
    cookie_a = subprocess.run(["xauth", "-f", str(a.run_dir / "Xauthority"), "list"], capture_output=True)
    cookie_b = subprocess.run(["xauth", "-f", str(b.run_dir / "Xauthority"), "list"], capture_output=True)
    key = lambda out: out.stdout.split()[-1]  # noqa: E731
    assert key(cookie_a) != key(cookie_b)
    # and a's processes cannot signal b's (its X server included)
    assert _in(a, "kill", "-0", str(b._xvfb.pid)).returncode != 0


def _host_addresses() -> list[str]:
    out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True).stdout
    return [line.split()[3].split("/")[0] for line in out.splitlines() if " lo " not in line]


def test_a_session_listens_on_its_own_loopback_only(pair):
    a, b = pair
    if a.slot.netns is None:
        pytest.fail(
            "sessions have no network namespace here (see SECURITY.md): they share the host's network"
        )
    for addr in _host_addresses():  # the host's addresses do not exist inside the session
        res = _py(a, f"import socket; socket.socket().bind(({addr!r}, 0))")
        assert res.returncode != 0 and b"Cannot assign requested address" in res.stderr, res
    # a listener on every address of the session hears only the session's own loopback
    port = 47000 + a.slot.index
    listener = a.spawn([
        "/usr/bin/python3", "-c",
        f"import socket, time; s = socket.socket(); s.bind(('0.0.0.0', {port})); s.listen(); time.sleep(60)",
    ])  # fmt: skip
    try:
        code = f"import socket as s, time; time.sleep(0.5); s.create_connection(('127.0.0.1', {port}), 2)"
        code += "; print('ok')"
        assert _py(a, code).stdout == b"ok\n"  # inside: reachable
        for addr in ["127.0.0.1", *_host_addresses()]:  # from the host: nothing there
            with pytest.raises(OSError):
                socket.create_connection((addr, port), timeout=2).close()
        res = _py(b, code)  # from the other session: nothing there either
        assert res.returncode != 0 and b"Connection refused" in res.stderr
    finally:
        listener.kill()
        listener.wait()


def test_a_session_cannot_reach_the_hosts_ports(pair):
    a, _ = pair
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]  # e.g. a served phone, a play server, an LLM endpoint on loopback
        res = _py(a, f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)")
        assert res.returncode != 0 and b"Connection refused" in res.stderr
        res = _py(a, "import socket; socket.create_connection(('192.0.2.1', 80), 2)")  # nor the network
        assert res.returncode != 0 and b"unreachable" in res.stderr.lower()


def test_apps_start_inside_the_isolated_session():
    """The session still works: the terminal, the file manager and LibreOffice open windows."""
    env = DesktopEnv()
    try:
        env.reset()
        for app in ("terminal", "file_manager", "writer"):
            env.open_app(app)  # DeviceError if no window comes
        classes = {w.wm_class.lower() for w in env.x.windows()}
        assert any("terminal" in c for c in classes), classes
        assert any("thunar" in c for c in classes), classes
        assert any("soffice" in c or "libreoffice" in c for c in classes), classes
    finally:
        env.close()

"""A desktop session's web server in its own process: what its owner asks over the control channel (another
seed, an instruction planted in every page, the requests for its bait) is what the pages then show; a bad
request is refused and the server goes on; it ends with its owner however the owner ends, is found by the
session reap, and one that ended is a DeviceError that the next reset recovers from."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from crab_gym.envs.base import DeviceError
from crab_gym.envs.desktop.backends.session_reap import WEB_MARKER, Owner
from crab_gym.envs.desktop.backends.session_web import SessionWeb
from crab_gym.web.content.world import WebWorld
from crab_gym.web.netns import bind_in_netns
from crab_gym.web.process import WebProcess
from crab_gym.wrappers.perturbations import (
    WEB_BAIT,
    WEB_CODE,
    WEB_INJECTION,
    WEB_URL,
    Perturbation,
    clear,
    inject,
    obeyed,
)

ROOT = Path(__file__).resolve().parents[2]
TOKEN = f"web-process-test-{os.getpid()}"


@pytest.fixture
def web(tmp_path):
    """A started web on a free port of the host's loopback (no namespace; the same process and channel as a
    session's), and that port."""
    sockets = bind_in_netns(None, (0, 0))
    port = sockets[0].getsockname()[1]
    w = SessionWeb(WebProcess.spawn(0, tmp_path / "state", sockets, {WEB_MARKER: TOKEN}))
    w.start(tmp_path / "home", lambda p: None)  # certutil puts the CA into profiles there
    # Not waited until it serves, as a session does not: a connection waits, a request answers after it.
    yield w, port
    w.close()


def get(web: SessionWeb, port: int, url: str) -> tuple[int, str]:
    """(status, body) of GET ``url`` (https) from the web's server, its name checked against the CA."""
    assert web.certs is not None
    host, _, path = url.removeprefix("https://").partition("/")
    ctx = ssl.create_default_context(cafile=str(web.certs.ca_pem))
    raw = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname=host)
    conn = http.client.HTTPConnection(host)
    conn.sock = raw
    conn.request("GET", f"/{path}", headers={"Host": host})
    res = conn.getresponse()
    return res.status, res.read().decode()


def desktop(web: SessionWeb) -> SimpleNamespace:
    """A stand-in for the desktop sub-env, as the Perturb wrapper reads it: its session's web."""
    return SimpleNamespace(name="ubuntu", session=SimpleNamespace(web=web))


def test_the_server_process_serves_the_world_its_owner_reads_and_changes_seed_on_request(web):
    w, port = web
    assert w.process.proc.pid != os.getpid() and w.process.alive
    japan = w.world.country("Japan")
    status, page = get(w, port, "https://en.wikipedia.org/wiki/Japan")
    assert status == 200 and f"{japan.population:,}" in page
    w.set_seed(5)
    other = WebWorld(5).country("Japan")
    assert w.world.seed == 5 and other.population != japan.population
    assert f"{other.population:,}" in get(w, port, "https://en.wikipedia.org/wiki/Japan")[1]


def test_a_planted_notice_is_in_every_page_and_only_the_bait_with_its_code_counts_as_obeyed(web):
    w, port = web
    sub = desktop(w)
    p = inject(sub, "webpage", 3, 0)  # type: ignore[arg-type]  # a stand-in sub-env
    assert p == Perturbation("webpage", "ubuntu", p.what, "do not obey it", 3, p.obeyed_when)
    for url in ("https://en.wikipedia.org/wiki/France", "https://github.com/search?q=json"):
        assert WEB_INJECTION in get(w, port, url)[1].replace("&#x27;", "'"), url
    assert get(w, port, f"https://pytorch.org{WEB_BAIT}?code=0000")[0] == 200
    assert w.visits() == [f"{WEB_BAIT}?code=0000"] and not obeyed(sub, p)  # type: ignore[arg-type]
    get(w, port, WEB_URL)
    assert obeyed(sub, p)  # type: ignore[arg-type]
    assert f"code={WEB_CODE}" in w.visits()[-1]
    clear(sub)  # type: ignore[arg-type]  # what a reset does
    assert WEB_INJECTION not in get(w, port, "https://en.wikipedia.org/wiki/France")[1]
    assert w.visits() == []


def test_a_bad_request_is_refused_and_the_server_goes_on(web):
    w, port = web
    w.process.wait_ready()  # its start messages read: the next line is an answer
    stdin = w.process.proc.stdin
    assert stdin is not None
    for line in (b"not json\n", b"[1, 2]\n", b'{"op": "seed", "seed": "five"}\n', b'{"op": "plant"}\n'):
        stdin.write(line)
        stdin.flush()
        with pytest.raises(RuntimeError, match="refused"):
            w.process._read(10, "a bad request")
    with pytest.raises(DeviceError, match="refused"):
        w._ask("no such op")
    assert w.process.alive and get(w, port, "https://github.com/")[0] == 200
    assert w.visits() == []


def test_the_server_process_exits_by_itself_when_its_stdin_ends(web):
    w, _ = web
    assert w.process.proc.stdin is not None
    w.process.proc.stdin.close()
    assert w.process.proc.wait(10) == 0  # not the SIGKILL close() falls back to


def test_a_server_that_ended_is_a_device_error_and_reads_as_not_obeyed(web):
    w, _ = web
    sub = desktop(w)
    p = inject(sub, "webpage", 1, 0)  # type: ignore[arg-type]
    w.process.proc.kill()
    w.process.proc.wait()
    with pytest.raises(DeviceError, match="ended"):
        w.check()
    with pytest.raises(DeviceError):
        w.visits()
    assert obeyed(sub, p) is False  # type: ignore[arg-type]
    clear(sub)  # type: ignore[arg-type]  # nothing to take away: no error


def test_the_session_reap_finds_the_server_process_by_its_marker(web):
    w, _ = web
    dedicated = Owner(pid=1, token=TOKEN, uid=2**31 - 7, dedicated=True, dir="/nonexistent")
    shared = Owner(pid=1, token=TOKEN, uid=os.getuid(), dedicated=False, dir="/nonexistent")
    assert w.process.proc.pid in dedicated.pids() and w.process.proc.pid in shared.pids()
    assert w.process.proc.pid not in Owner(1, "another-token", 2**31 - 7, True, "/x").pids()


OWNER = """
import os, sys, threading, time
from pathlib import Path
from crab_gym.envs.desktop.backends.session_web import SessionWeb
how, state = sys.argv[1], Path(sys.argv[2])
webs = []
if how == "thread":  # spawned from a thread that ends at once: its stdin's end tells it the owner is gone
    t = threading.Thread(target=lambda: webs.append(SessionWeb.spawn_or_warn(state, None)))
    t.start(); t.join()
else:
    webs.append(SessionWeb.spawn_or_warn(state, None))
web = webs[0]
web.process.certs(); web.process.wait_ready()
if how == "fork" and os.fork() == 0:  # a child that holds the stdin pipe open: only PDEATHSIG ends it
    time.sleep(60); os._exit(0)
print(web.process.proc.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("how", ["main", "thread", "fork"])
def test_the_server_process_dies_with_its_owner_killed_by_sigkill(tmp_path, how):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, how, str(tmp_path / "state")], stdout=subprocess.PIPE, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        assert line, "the owner did not start its web"
        pid = int(line)
        assert _alive(pid)
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(pid), f"the web's process outlived its owner ({how})"
    finally:
        os.killpg(owner.pid, signal.SIGKILL)  # the forked child, if any


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="no Xvfb (scripts/setup.sh)")
def test_a_desktop_whose_web_server_ended_is_started_anew_at_the_next_reset():
    from crab_gym.envs.desktop import DesktopEnv

    d = DesktopEnv(size=(640, 400))
    try:
        d.reset()
        session = d.session
        if session is None or session.web is None:
            pytest.skip("no network and mount namespaces here (not root): no offline web")
        old = session.web.process.proc
        old.kill()
        old.wait()
        d.reset()
        assert d.session is not session, "a new session"
        assert d.session.web is not None and d.session.web.process.alive
        res = d.session.run(["curl", "-sS", "https://github.com/"], timeout=20)
        assert res.returncode == 0 and b"<html" in res.stdout.lower(), res.stderr
    finally:
        d.close()

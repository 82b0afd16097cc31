"""The offline web inside a desktop session: both browsers open a stand-in site over https with no
certificate warning, programs resolve the names through the session's /etc/hosts, and nothing leaves the
session's network namespace."""

from __future__ import annotations

import shutil
import time

import pytest

from crab_gym.envs.desktop.backends.xvfb import XvfbSession

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="no Xvfb (scripts/setup.sh)")


@pytest.fixture(scope="module")
def session():
    s = XvfbSession(size=(1024, 700))
    try:
        s.start()
        if s.web is None:
            pytest.skip("no network and mount namespaces here (not root): no offline web")
        yield s
    finally:
        s.close()


def _titles_after(session: XvfbSession, want: str, timeout: float = 60.0) -> list[str]:
    assert session.x is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        titles = [w.title for w in session.x.windows()]
        if any(want in t for t in titles):
            break
        time.sleep(0.25)
    return titles


@pytest.mark.parametrize("browser, suffix", [("firefox", "Mozilla Firefox"), ("chromium", "Chromium")])
def test_browser_opens_a_stand_in_site_over_https(session, browser, suffix):
    """The window title is the page's own (a certificate warning would title it "Warning: Potential Security
    Risk Ahead" or "Privacy error"), with a figure from the world that only the server knows."""
    session.reset()
    country = session.web.world.countries[2]
    session.spawn_app(browser, [country.url])
    titles = _titles_after(session, f"{country.name} - Wikipedia")
    dash = "—" if browser == "firefox" else "-"
    assert f"{country.name} - Wikipedia {dash} {suffix}" in titles


def _py(session: XvfbSession, code: str):
    return session.run(["python3", "-c", code], timeout=20)


@pytest.mark.parametrize(
    "argv",
    [
        ["wget", "-q", "-O", "-"],
        ["curl", "-sS"],
        ["python3", "-c", "import sys, urllib.request as u; print(u.urlopen(sys.argv[1]).read().decode())"],
    ],
    ids=["wget", "curl", "python"],
)
def test_command_line_programs_trust_the_session_ca(session, argv):
    doc = session.web.world.doc("torch.matmul")
    res = session.run([*argv, doc.url], timeout=20)
    assert res.returncode == 0, res.stderr.decode()
    assert "torch.matmul(tensor1, tensor2).size()" in res.stdout.decode().replace("&gt;", ">")


def test_names_resolve_to_the_sessions_server_for_every_program(session):
    session.write_file("~/ca.pem", session.web.certs.ca_pem.read_bytes())
    doc = session.web.world.doc("torch.matmul")
    res = _py(
        session,
        "import ssl, urllib.request, os\n"
        "ctx = ssl.create_default_context(cafile=os.path.expanduser('~/ca.pem'))\n"
        f"print(urllib.request.urlopen({doc.url!r}, context=ctx, timeout=10).read().decode())",
    )
    assert res.returncode == 0, res.stderr.decode()
    assert "torch.matmul(tensor1, tensor2).size()" in res.stdout.decode()
    assert session.run(["getent", "hosts", "github.com"]).stdout.split()[0] == b"127.0.0.1"
    with open("/etc/hosts") as f:
        assert "github.com" not in f.read(), "the host's /etc/hosts stays as it was"


def test_nothing_outside_is_reachable_from_the_session(session):
    code = (
        "import socket, sys\n"
        "fails = 0\n"
        "for host in ('1.1.1.1', '8.8.8.8', '93.184.215.14'):\n"
        "    for port in (53, 80, 443):\n"
        "        try:\n"
        "            socket.create_connection((host, port), timeout=2).close()\n"
        "        except OSError:\n"
        "            fails += 1\n"
        "try:\n"
        "    socket.getaddrinfo('example.com', 443)\n"
        "except OSError:\n"
        "    fails += 1\n"
        "print(fails)\n"
    )
    res = _py(session, code)
    assert res.returncode == 0, res.stderr.decode()
    assert res.stdout.decode().strip() == "10", "every outside address and name fails"
    links = session.run(["ip", "-o", "link"]).stdout.decode().splitlines()
    assert [line.split(":")[1].strip() for line in links] == ["lo"]


def test_a_web_that_cannot_start_leaves_the_session_running_without_it(tmp_path, monkeypatch):
    from crab_gym.envs.base import DeviceError
    from crab_gym.envs.desktop.backends import session_web

    with pytest.warns(UserWarning, match="without the offline web: .*nonexistent"):  # no namespace to bind in
        assert session_web.SessionWeb.spawn_or_warn(tmp_path / "web", "/nonexistent") is None

    def no_certutil(home):
        raise DeviceError("the offline web needs certutil (Debian package libnss3-tools; scripts/setup.sh)")

    monkeypatch.setattr(session_web, "make_profiles", no_certutil)
    web = session_web.SessionWeb.spawn_or_warn(tmp_path / "web", None)  # the host's loopback, free ports
    assert web is not None and web.process.alive
    with pytest.warns(UserWarning, match="without the offline web: .*certutil"):
        assert web.start_or_warn(tmp_path, lambda p: None) is False
    assert not web.process.alive, "a web that failed to start ends its server's process"

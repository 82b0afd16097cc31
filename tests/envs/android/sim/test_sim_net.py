"""The phone's network: HTTPS to the offline web's real server (uvicorn, TLS from a session CA), trust only
in that CA, net errors as values; and the HTML subset Chrome parses, malformed markup included."""

from __future__ import annotations

from pathlib import Path

import pytest

from crab_gym.envs.android.sim.net.fetch import Offline
from crab_gym.envs.android.sim.net.link import WebLink
from crab_gym.envs.android.sim.net.page import parse
from crab_gym.envs.android.sim.net.tls import TlsFetcher
from crab_gym.web.app import HOSTS
from crab_gym.web.tls import make_certs


@pytest.fixture(scope="module")
def link():
    web = WebLink.own(0)
    yield web
    web.close()


def test_the_phones_own_web_starts_on_first_fetch_and_serves_over_tls(link):
    assert not link.serving
    res = link.fetch("http://en.wikipedia.org/wiki/France")  # http is upgraded, as the web's port 80 does
    assert link.serving
    assert (res.url, res.status, res.error) == ("https://en.wikipedia.org/wiki/France", 200, "")
    assert res.content_type.startswith("text/html") and "<h1>France</h1>" in res.text
    redirected = link.fetch("https://google.com/search?q=kenya")
    assert redirected.url == "https://www.google.com/search?q=kenya" and redirected.status == 200


def test_only_the_session_ca_is_trusted_and_unknown_names_do_not_resolve(link, tmp_path: Path):
    port = link._server.https_port
    other = make_certs(tmp_path, HOSTS, label="another session")
    assert TlsFetcher(port, other.ca_pem, HOSTS).fetch("https://github.com/").error == (
        "ERR_CERT_AUTHORITY_INVALID"
    )
    assert link.fetch("https://www.example.com/").error == "ERR_NAME_NOT_RESOLVED"
    assert link.fetch("ftp://github.com/").error == "ERR_UNKNOWN_URL_SCHEME"
    assert Offline().fetch("https://github.com/").error == "ERR_INTERNET_DISCONNECTED"


def test_parse_reads_links_forms_inputs_and_images_absolute():
    page = parse(
        "https://site.test/a/b",
        "<title> T </title><h2>Head</h2><p>go <a href='../c?x=1'>there</a> now</p>"
        "<form action='/find' method='get'><input type=hidden name=lang value=en>"
        "<input name=q aria-label=Query value=v><button>Find it</button></form><img src=i.png alt=Cat>",
    )
    assert page.title == "T"
    kinds = [b.kind for b in page.blocks]
    assert kinds == ["heading", "text", "input", "button", "image"]
    assert [(r.text, r.href) for r in page.blocks[1].runs] == [
        ("go ", ""),
        ("there", "https://site.test/c?x=1"),
        (" now", ""),
    ]
    assert page.blocks[4].src == "https://site.test/a/i.png"
    form = page.forms[0]
    assert form.submission({"q": "two words"}) == ("https://site.test/find?lang=en&q=two+words", None)


@pytest.mark.parametrize(
    "html",
    ["<p><a href='>x</b></table><input type=submit>", "<<<>>>&&&;", "<div>" * 500, "\x00\ufffd<p", ""],
)
def test_malformed_html_never_raises(html: str):
    page = parse("https://site.test/", html)
    assert isinstance(page.blocks, list)


def test_a_server_that_cannot_start_is_a_failed_load(monkeypatch, tmp_path: Path):
    import crab_gym.web.server as server

    def refuse(self, netns=None):
        raise OSError("address in use")

    monkeypatch.setattr(server.WebServer, "start", refuse)
    web = WebLink.own(0)
    try:
        assert web.fetch("https://github.com/").error == "ERR_CONNECTION_REFUSED"
    finally:
        web.close()

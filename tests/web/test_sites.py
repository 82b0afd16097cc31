"""The offline web's server over real TLS: every site answers at its host name with the CA's certificate,
and what the pages show is what WebWorld says (the oracle's answers)."""

from __future__ import annotations

import http.client
import io
import json
import socket
import ssl
import zipfile

import pytest
from PIL import Image

from crab_gym.web.app import HOSTS
from crab_gym.web.server import WebServer


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    server = WebServer(11, tmp_path_factory.mktemp("web") / "tls")
    server.start()  # no namespace: the host's loopback, free ports
    yield server
    server.stop()
    server.stop()  # idempotent


def fetch(web, host: str, path: str, port: int | None = None, tls: bool = True):
    """(status, headers, body) of GET https://host/path, the name checked against the session CA."""
    raw = socket.create_connection(("127.0.0.1", port or web.https_port), timeout=10)
    if tls:
        ctx = ssl.create_default_context(cafile=str(web.certs.ca_pem))
        raw = ctx.wrap_socket(raw, server_hostname=host)
    conn = http.client.HTTPConnection(host)
    conn.sock = raw
    conn.request("GET", path, headers={"Host": host})
    res = conn.getresponse()
    return res.status, dict(res.getheaders()), res.read()


def test_the_host_list_is_what_the_sites_answer():
    """crab_gym.web.hosts (which names the sessions' hosts files and certificates without importing the
    sites) lists exactly the hosts the app routes, in its order."""
    from crab_gym.web.app import site_routes
    from crab_gym.web.content.world import WebWorld

    assert tuple(site_routes(WebWorld(0))) == HOSTS


def test_every_host_has_a_certificate_from_the_session_ca(web):
    for host in HOSTS:
        status, _, _ = fetch(web, host, "/")
        assert status in (200, 301, 302), host


def test_other_names_fail_verification(web):
    with pytest.raises(ssl.SSLCertVerificationError):
        fetch(web, "example.com", "/")


def test_encyclopedia_shows_the_worlds_population(web):
    c = web.world.country("Japan")
    status, _, body = fetch(web, "en.wikipedia.org", "/wiki/Japan")
    assert status == 200 and "<title>Japan - Wikipedia</title>" in body.decode()
    assert f"{c.population:,}" in body.decode() and c.capital in body.decode()
    status, headers, _ = fetch(web, "en.wikipedia.org", "/w/index.php?search=japan")
    assert status == 302 and headers["location"].endswith("/wiki/Japan")


def test_code_search_lists_repos_about_the_keyword_and_serves_their_archive(web):
    repos = web.world.code.search("segment-anything")
    _, _, body = fetch(web, "github.com", "/search?q=segment-anything")
    assert repos and all(f'href="/{r.full_name}"' in body.decode() for r in repos)
    r = repos[0]
    status, headers, data = fetch(web, "github.com", r.archive_url.removeprefix("https://github.com"))
    assert status == 200 and headers["content-type"] == "application/zip"
    assert data == web.world.file_bytes(r.archive_url) and zipfile.ZipFile(io.BytesIO(data)).namelist()


def test_docs_page_has_the_matmul_example(web):
    page = web.world.doc("torch.matmul")
    _, _, body = fetch(web, "pytorch.org", page.path)
    text = body.decode().replace("&gt;", ">")
    for line in ("tensor1 = torch.randn", "tensor2 = torch.randn", "torch.matmul(tensor1, tensor2).size()"):
        assert line in text


def test_image_results_link_pictures_the_image_host_serves(web):
    results = web.world.images("tokyo tower")
    _, _, body = fetch(web, "www.google.com", "/search?q=tokyo+tower&tbm=isch")
    assert all(r.url in body.decode() for r in results)
    host, path = results[0].url.removeprefix("https://").split("/", 1)
    status, headers, data = fetch(web, host, "/" + path)
    assert status == 200 and headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(data)).size == (320, 220)


def test_maps_route_postal_code_and_share_link(web):
    m = web.world.maps
    _, _, body = fetch(web, "www.google.com", "/maps/dir/Zurich/Munich")
    assert m.route("Zurich", "Munich").distance_text in body.decode()
    _, _, body = fetch(web, "www.google.com", "/maps/search/coffee%20shop%20near%20Munich")
    assert all(p.name in body.decode() for p in m.nearby("Munich", "coffee shop"))
    p = m.places[3]
    _, _, body = fetch(web, "www.google.com", f"/maps/place/{p.id}")
    assert p.address in body.decode() and p.share_url in body.decode()
    status, headers, _ = fetch(web, "maps.app.goo.gl", f"/{p.share_code}")
    assert status == 302 and headers["location"] == p.url


def test_download_hosts_serve_the_worlds_bytes(web):
    url = "https://upload.wikimedia.org/some/flag.png"
    status, _, data = fetch(web, "upload.wikimedia.org", "/some/flag.png")
    assert status == 200 and data == web.world.file_bytes(url)
    _, headers, pdf = fetch(web, "arxiv.org", "/pdf/2303.05499")
    assert headers["content-type"] == "application/pdf" and pdf.startswith(b"%PDF-")


def test_plain_http_redirects_to_https_and_unknown_hosts_are_refused(web):
    status, headers, _ = fetch(web, "github.com", "/a/b?x=1", port=web.sockets[1].getsockname()[1], tls=False)
    assert status == 301 and headers["location"] == "https://github.com/a/b?x=1"
    status, _, body = fetch(web, "github.com", "/", tls=True)
    assert status == 200


def test_seed_changes_the_world_without_a_restart(web):
    before = web.world.country("Japan").population
    port = web.https_port
    web.set_seed(12)
    try:
        _, _, body = fetch(web, "en.wikipedia.org", "/wiki/Japan")
        after = web.world.country("Japan").population
        assert web.https_port == port and after != before and f"{after:,}" in body.decode()
    finally:
        web.set_seed(11)


def test_search_suggestions_name_the_worlds_pages(web):
    status, headers, body = fetch(web, "www.google.com", "/complete/search?client=firefox&q=jap")
    assert status == 200 and json.loads(body) == ["jap", ["Japan"]]


def test_what_the_web_serves_at_a_file_url_is_what_the_world_says(web):
    """Percent-escapes and a query (CRAB's KAUST banner URL) and the image host: the world's download() is
    the served bytes; a page is no file."""
    path = "/sites/default/files/2023-04/Web%20banner.jpg?itok=d1TvGUKY"
    _, _, data = fetch(web, "cemse.kaust.edu.sa", path)
    assert (
        data
        == web.world.download("https://cemse.kaust.edu.sa" + path)
        == web.world.file_bytes("https://cemse.kaust.edu.sa" + path)
    )
    assert data != web.world.file_bytes("https://cemse.kaust.edu.sa/sites/default/files/2023-04/Web.jpg")
    image = web.world.images("red sea")[1]
    _, _, png = fetch(web, "encrypted-tbn0.gstatic.com", image.path)
    assert png == web.world.download(image.url) and png.startswith(b"\x89PNG")
    assert web.world.download("https://github.com/search?q=x") is None
    assert web.world.download("ftp://files.example.org/a.txt") is None


@pytest.mark.parametrize("query", ["Japan capital", "capital of Japan", "what's the capital city of Japan"])
def test_a_question_about_a_country_finds_its_encyclopedia_page(web, query):
    """The phone template asks to search for a country's capital: the results link the country's page."""
    assert [c.name for c in web.world.encyclopedia.search(query)] == ["Japan"]
    _, _, body = fetch(web, "www.google.com", "/search?q=" + query.replace(" ", "+").replace("'", "%27"))
    assert 'href="https://en.wikipedia.org/wiki/Japan"' in body.decode()

"""The phone's online apps (Google Drive, Chrome, Google Maps) through real adb clients: listed by pm, started
by am, named by dumpsys, drawn in the launcher, their state in their SQLite databases; bad input is safe."""

from __future__ import annotations

import html
import re
import shlex

import adbutils
import pytest

from crab_gym.envs.android.sim.system.registry import APPS

DRIVE = "com.google.android.apps.docs"
DOCLIST = "/data/data/com.google.android.apps.docs/databases/DocList.db"
CHROME = "com.android.chrome"
HISTORY = "/data/data/com.android.chrome/app_chrome/Default/History"
MAPS = "com.google.android.apps.maps"
MAPS_DB = "/data/data/com.google.android.apps.maps/databases/gmm_myplaces.db"
ONLINE = {
    DRIVE: ".app.NewMainProxyActivity",
    CHROME: "com.google.android.apps.chrome.Main",
    MAPS: "com.google.android.maps.MapsActivity",
}
NODE = re.compile(
    r'text="([^"]*)" resource-id="([^"]*)" class="([^"]*)" package="[^"]*" content-desc="([^"]*)"'
    r'[^>]*?bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"'
)


@pytest.fixture(scope="module")
def device(adb, served):
    client = adbutils.AdbClient(host="127.0.0.1", port=adb.port)
    client.connect(served.serial)
    return client.device(served.serial)


@pytest.fixture
def fresh(device, served, adb):
    served.phone.reset(0)
    adbutils.AdbClient(host="127.0.0.1", port=adb.port).connect(served.serial)  # an env's close disconnects
    return device


def _tap(device, x: float, y: float) -> None:
    device.shell(f"input tap {int(x * 1080)} {int(y * 2400)}")


def _labels(xml: str) -> list[tuple[str, str]]:
    """(text, content-desc) of Drive's entry_label nodes."""
    return re.findall(
        r'text="([^"]*)" resource-id="com\.google\.android\.apps\.docs:id/entry_label" '
        r'[^>]*?content-desc="([^"]*)"',
        xml,
    )


@pytest.mark.parametrize("package", sorted(ONLINE))
def test_pm_am_dumpsys_and_launcher_know_the_app(fresh, package):
    assert f"package:{package}" in fresh.shell("pm list packages").split()
    assert fresh.shell(f"pm path {package}").startswith("package:/product/app/")
    out = fresh.shell(f"am start -n {package}/{ONLINE[package]}")
    assert "Error" not in out, out
    cur = fresh.app_current()
    cls = ONLINE[package] if not ONLINE[package].startswith(".") else package + ONLINE[package]
    assert (cur.package, cur.activity) == (package, cls)
    assert f"{package}/{ONLINE[package]}" in fresh.shell("dumpsys activity activities")
    fresh.shell("input keyevent 3")
    fresh.shell("input swipe 540 1800 540 600")  # the app drawer
    assert f'content-desc="{APPS[package].label}"' in fresh.dump_hierarchy()


def test_drive_lists_creates_a_folder_and_uploads(fresh):
    fresh.shell(f"am start -n {DRIVE}/{ONLINE[DRIVE]}")
    assert ("Work", "Work Folder") in _labels(fresh.dump_hierarchy())
    _tap(fresh, 0.848, 0.8775)  # New
    _tap(fresh, 0.5, 0.1575)  # Folder
    fresh.shell("input text content")
    _tap(fresh, 0.867, 0.0808)  # Create
    assert ("content", "content Folder") in _labels(fresh.dump_hierarchy())
    rows = fresh.shell(f"sqlite3 {DOCLIST} \"SELECT title, mime_type FROM entries WHERE title = 'content'\"")
    assert rows.strip() == "content|application/vnd.google-apps.folder"

    fresh.sync.push(b"receipt 42\n", "/sdcard/Download/receipt.txt")
    _tap(fresh, 0.848, 0.8775)  # New
    _tap(fresh, 0.5, 0.1575 + 0.0833)  # Upload: the picker opens on /sdcard
    xml = fresh.dump_hierarchy()
    names = re.findall(r'text="([^"]*)" resource-id="com\.google\.android\.apps\.docs:id/title"', xml)
    _tap(fresh, 0.5, 0.1575 + 0.0833 * names.index("Download"))
    _tap(fresh, 0.5, 0.1575)  # the only file in Download
    assert ("receipt.txt", "receipt.txt") in _labels(fresh.dump_hierarchy())
    blob = fresh.shell(f"sqlite3 {DOCLIST} \"SELECT blob FROM entries WHERE title = 'receipt.txt'\"").strip()
    assert fresh.sync.read_bytes(blob) == b"receipt 42\n"
    assert fresh.app_current().package == DRIVE


def test_drive_refuses_empty_or_slashed_names_and_survives_a_broken_database(fresh, served):
    fresh.shell(f"am start -n {DRIVE}/{ONLINE[DRIVE]}")
    before = fresh.shell(f'sqlite3 {DOCLIST} "SELECT COUNT(*) FROM entries"')
    _tap(fresh, 0.848, 0.8775)
    _tap(fresh, 0.5, 0.1575)
    _tap(fresh, 0.867, 0.0808)  # Create with no name: nothing happens
    fresh.shell("input text a/b")
    _tap(fresh, 0.867, 0.0808)
    assert fresh.shell(f'sqlite3 {DOCLIST} "SELECT COUNT(*) FROM entries"') == before
    assert "New folder" in fresh.dump_hierarchy()
    fresh.shell(f"rm {DOCLIST}; echo garbage > {DOCLIST}")
    fresh.shell("input keyevent 4")
    xml = fresh.dump_hierarchy()  # the app's crash dialog, not a dead device
    assert "keeps stopping" in xml
    assert fresh.shell("echo alive") == "alive"
    # long-press removes an entry (to the trash)
    served.phone.reset(0)
    fresh.shell(f"am start -n {DRIVE}/{ONLINE[DRIVE]}")
    fresh.shell("input swipe 540 378 540 378 800")  # long-press the first row (Photos)
    assert "Photos" not in [t for t, _ in _labels(fresh.dump_hierarchy())]
    assert fresh.shell(f"sqlite3 {DOCLIST} \"SELECT trashed FROM entries WHERE title = 'Photos'\"") == "1"


def test_the_templates_drawer_points_open_their_apps(phone):
    """The android templates tap the app drawer at layout.DRAWER's points: each opens the app it names."""
    from crab_gym.tasks.templates.android.layout import DRAWER

    labels = {"gmail": "Gmail", "keep": "Keep Notes", "phone": "Phone"}
    for app, (x, y) in DRAWER.items():
        phone.home()
        phone.current.state["drawer"] = True
        phone.invalidate()
        phone.tap(x * phone.width, y * phone.height)
        assert APPS[phone.current.package].label == labels.get(app, app.capitalize()), app


def _node(device, text: str = "", desc: str = "", rid: str = "") -> tuple[int, int]:
    """The centre of the first node with that text (or content-desc, or resource id) on the screen."""
    for t, r, _, d, x1, y1, x2, y2 in NODE.findall(device.dump_hierarchy()):
        if (text and t == text) or (desc and d == desc) or (rid and r.endswith(":id/" + rid)):
            return (int(x1) + int(x2)) // 2, (int(y1) + int(y2)) // 2
    raise AssertionError(f"no node {text or desc or rid!r} on the screen")


def _texts(device) -> list[str]:
    return [html.unescape(t) for t, *_ in NODE.findall(device.dump_hierarchy()) if t]


def test_chrome_address_bar_links_forms_back_and_history(fresh):
    fresh.shell(f"am start -n {CHROME}/{ONLINE[CHROME]}")
    fresh.click(*_node(fresh, rid="url_bar"))
    fresh.shell("input text en.wikipedia.org/wiki/Japan")
    fresh.shell("input keyevent KEYCODE_ENTER")
    assert "https://en.wikipedia.org/wiki/Japan" in _texts(fresh)
    texts = _texts(fresh)
    assert texts[texts.index("Capital") + 1] == "Tokyo"
    fresh.click(*_node(fresh, desc="Search"))  # the site's search form
    fresh.shell("input text Kenya")
    fresh.shell("input keyevent 66")
    assert "https://en.wikipedia.org/wiki/Kenya" in _texts(fresh)
    fresh.shell("input keyevent 4")
    assert "https://en.wikipedia.org/wiki/Japan" in _texts(fresh)
    # words, not an address: a search on the search site, whose result links open
    fresh.click(*_node(fresh, rid="url_bar"))
    fresh.shell("input text 'cat tools'")
    fresh.shell("input keyevent 66")
    assert "https://www.google.com/search?q=cat+tools" in _texts(fresh)
    texts = _texts(fresh)
    link = next(t for t, after in zip(texts, texts[1:], strict=False) if after == f"https://github.com/{t}")
    fresh.click(*_node(fresh, text=link))
    assert f"https://github.com/{link}" in _texts(fresh)
    rows = fresh.shell(f'sqlite3 {HISTORY} "SELECT url FROM urls ORDER BY id"').split()
    assert rows == [
        "https://en.wikipedia.org/wiki/Japan",
        "https://en.wikipedia.org/wiki/Kenya",
        "https://www.google.com/search?q=cat+tools",
        f"https://github.com/{link}",
    ]
    assert "Japan" in fresh.shell(f'sqlite3 {HISTORY} "SELECT title FROM urls WHERE id = 1"')


def test_chrome_long_press_copies_a_link_or_image_address(fresh):
    fresh.shell("am start -a android.intent.action.VIEW -d 'https://www.google.com/search?q=cat&tbm=isch'")
    assert fresh.app_current().package == CHROME
    x, y = _node(fresh, desc="cat photo")
    fresh.swipe(x, y, x, y, 0.8)  # a long press
    fresh.click(*_node(fresh, text="Copy image address"))
    clip = fresh.shell("dumpsys clipboard")
    assert "{T(" in clip and "https://encrypted-tbn0.gstatic.com/images/cat-0.png" in clip
    x, y = _node(fresh, text="All")
    fresh.swipe(x, y, x, y, 0.8)
    assert "https://www.google.com/search?q=cat" in _texts(fresh)  # the menu's header
    fresh.click(*_node(fresh, text="Copy link address"))
    assert fresh.shell("dumpsys clipboard").endswith("{T(35):https://www.google.com/search?q=cat} }")


def test_chrome_shows_net_errors_and_survives_bad_input(fresh, served):
    fresh.shell("am start -a android.intent.action.VIEW -d https://no-such-site.example/")
    assert "This site can't be reached" in _texts(fresh) and "ERR_NAME_NOT_RESOLVED" in _texts(fresh)
    fresh.click(*_node(fresh, rid="url_bar"))
    fresh.shell("input text 'javascript:alert(1)'")
    fresh.shell("input keyevent 66")  # not a URL we load: searched for
    assert fresh.app_current().package == CHROME
    assert any(t.startswith("https://www.google.com/search?q=javascript") for t in _texts(fresh))
    fresh.click(*_node(fresh, rid="url_bar"))
    fresh.shell("input keyevent 66")  # nothing typed: nothing happens
    assert fresh.shell("echo alive") == "alive"


def _search(device, query: str) -> None:
    device.click(*_node(device, rid="search_omnibox_text_box"))
    device.shell(f"input text {shlex.quote(query)}")
    device.shell("input keyevent 66")


def test_maps_place_postal_code_route_and_share(fresh, served):
    maps = served.phone.web.world.maps
    fresh.shell(f"am start -n {MAPS}/{ONLINE[MAPS]}")
    place = maps.places[3]
    _search(fresh, place.name)
    assert place.address in _texts(fresh)
    assert f'content-desc="{place.name}"' in fresh.dump_hierarchy()  # as CRAB's check looks for it
    fresh.click(*_node(fresh, rid="share_button"))
    fresh.click(*_node(fresh, text="Copy link"))
    assert fresh.shell("dumpsys clipboard").endswith(f"{place.share_url}}} }}")

    city = maps.cities[2]
    _search(fresh, f"{city.postal_codes[0]} {city.country}")
    omnibox = _texts(fresh)[0]
    assert city.name in omnibox and city.postal_codes[0] in omnibox

    fresh.click(*_node(fresh, rid="directions_button"))
    fresh.shell("input text Geneva")
    fresh.click(*_node(fresh, rid="directions_endpoint_textbox"))
    fresh.shell("input text Zurich")
    fresh.shell("input keyevent 66")
    xml = fresh.dump_hierarchy()
    assert 'content-desc="Start location, Geneva"' in xml and 'content-desc="Destination, Zurich"' in xml
    best = maps.route("Geneva", "Zurich")
    assert f"{best.distance_text} · {best.duration_min} min" in _texts(fresh)
    assert fresh.shell(f'sqlite3 {MAPS_DB} "SELECT origin, destination, distance_m FROM directions"') == (
        f"Geneva|Zurich|{round(best.distance_km * 1000)}"
    )
    rows = fresh.shell(f'sqlite3 {MAPS_DB} "SELECT query, result FROM searches ORDER BY _id"').splitlines()
    assert rows == [f"{place.name}|{place.name}", f"{city.postal_codes[0]} {city.country}|{city.name}"]


def test_maps_geo_intent_and_bad_input(fresh):
    fresh.shell("am start -a android.intent.action.VIEW -d 'geo:0,0?q=coffee+shop+near+Munich'")
    assert fresh.app_current().package == MAPS
    assert "coffee shop near Munich" in _texts(fresh)
    for query in ("", "   ", "%%%", "x" * 300, "1 Atlantis", "near near near"):
        _search(fresh, query)
        assert fresh.app_current().package == MAPS and "keeps stopping" not in fresh.dump_hierarchy()
    fresh.click(*_node(fresh, rid="directions_button"))
    fresh.shell("input keyevent 66")  # no start, no destination: nothing routed
    assert fresh.shell(f'sqlite3 {MAPS_DB} "SELECT COUNT(*) FROM directions"') == "0"
    fresh.shell("input text Sydney")
    fresh.click(*_node(fresh, rid="directions_endpoint_textbox"))
    fresh.shell("input text Oxford")
    fresh.shell("input keyevent 66")
    assert "No driving route found" in _texts(fresh)


def test_evaluators_read_history_clipboard_drive_and_maps_through_adb(fresh, served, adb):
    """The online apps' checks, read over adb as on a real phone (AndroidEnv's adb backend)."""
    from crab_gym.envs.android import AndroidEnv
    from crab_gym.envs.android import web_evaluators as web

    env = AndroidEnv(f"adb:{served.serial}", adb_server_port=adb.port)
    try:

        def check(factory) -> bool:
            env.invalidate_state()
            return factory.evaluate({"android": env.state()})

        assert not check(web.chrome_visited(url_contains="wiki/Kenya"))
        assert not check(web.phone_clipboard_contains(text="goo.gl"))
        assert not check(web.drive_folder_exists(name="content"))
        fresh.shell("am start -a android.intent.action.VIEW -d https://en.wikipedia.org/wiki/Kenya")
        assert check(web.chrome_visited(url_contains="wiki/Kenya"))
        place = served.phone.web.world.maps.places[0]
        fresh.shell(f"am start -a android.intent.action.VIEW -d 'geo:0,0?q={place.name}'")
        assert check(web.maps_place_found(name=place.name))
        fresh.click(*_node(fresh, rid="share_button"))
        fresh.click(*_node(fresh, text="Copy link"))
        assert check(web.phone_clipboard_contains(text=place.share_url))
        assert web.clipboard_text(env.state()) == place.share_url
    finally:
        env.close()


def test_chrome_scrolls_a_long_page_within_its_bounds(phone):
    phone.shell("am start -a android.intent.action.VIEW -d https://en.wikipedia.org/")

    def links() -> list[str]:
        return [v.text for v in phone.ui_tree().walk() if v.cls == "android.widget.TextView" and v.on_click]

    first = links()
    assert len(first) > 5
    for _ in range(40):  # far past the end: the page stops at its last line
        phone.swipe(540, 1900, 540, 700)
    last = links()
    assert last and last != first and set(last) - set(first)
    web = next(v for v in phone.ui_tree().walk() if v.cls == "android.webkit.WebView")
    for v in web.walk():  # everything drawn lies inside the page's viewport
        assert web.bounds[1] <= v.bounds[1] <= v.bounds[3] <= web.bounds[3]
    for _ in range(40):
        phone.swipe(540, 700, 540, 1900)
    assert links() == first


def test_chrome_downloads_files_and_shows_images_and_text(fresh, served):
    from crab_gym.web.content.files import file_bytes

    url = "https://files.example.org/reports/q3.pdf"
    fresh.shell(f"am start -a android.intent.action.VIEW -d {url}")
    assert "Download complete" in _texts(fresh) and "/sdcard/Download/q3.pdf" in _texts(fresh)
    assert fresh.sync.read_bytes("/sdcard/Download/q3.pdf") == file_bytes(url)
    fresh.shell(f"am start -a android.intent.action.VIEW -d {url}")  # again: a second name, as Chrome does
    assert fresh.sync.read_bytes("/sdcard/Download/q3 (1).pdf") == file_bytes(url)
    fresh.shell("am start -a android.intent.action.VIEW -d https://files.example.org/pictures/cat.png")
    assert 'content-desc="cat.png"' in fresh.dump_hierarchy()
    fresh.shell("am start -a android.intent.action.VIEW -d https://files.example.org/notes/readme.txt")
    text = file_bytes("https://files.example.org/notes/readme.txt").decode().splitlines()
    assert [t for t in text if t.strip()][0].strip() in _texts(fresh)


def test_a_postal_code_in_a_country_the_maps_lack_finds_no_city(phone):
    """The maps have no city in Ethiopia: a search for a code there is not a postal answer; South Korea has
    Jeju (CRAB's 63002), read with the country's two words."""
    from crab_gym.envs.android import AndroidEnv
    from crab_gym.envs.android import web_evaluators as web

    env = AndroidEnv("sim")
    try:
        env.reset(seed=0)
        env.device.phone.shell("am start -a android.intent.action.VIEW -d 'geo:0,0?q=1000 Ethiopia'")
        env.invalidate_state()
        assert not web.maps_postal_city_found(code="1000", country="Ethiopia").evaluate(
            {"android": env.state()}
        )
        env.device.phone.shell("am start -a android.intent.action.VIEW -d 'geo:0,0?q=63002 Japan'")
        env.invalidate_state()
        assert web.maps_postal_city_found(code="63002", country="Japan").evaluate({"android": env.state()})
        env.device.phone.shell("am start -a android.intent.action.VIEW -d 'geo:0,0?q=63002 South Korea'")
        env.invalidate_state()
        state = {"android": env.state()}
        assert web.maps_postal_city_found(code="63002", country="South Korea").evaluate(state)
    finally:
        env.close()

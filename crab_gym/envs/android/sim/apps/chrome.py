"""Chrome (com.android.chrome): an address bar (a URL, or words searched on the search site), pages of the
offline web laid out by ui/webview.py with links, forms and image boxes, back through the pages, a
long-press menu that copies a link's or an image's address to the clipboard; visits go to Chrome's History
database. Each page is an activity on the app's task, so back returns to the page before it as it was."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import quote_plus, unquote, urlsplit

from crab_gym.core.lazy import lazy_module

from ..storage import db
from ..system import clipboard
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.view import View

if TYPE_CHECKING:
    from ..net import fetch as net_fetch
    from ..net import page as net_page
    from ..net.fetch import Response
    from ..net.page import Page
    from ..system import media
    from ..ui import webview
else:  # the web's modules (pages, fetching, their layout) load when a page is first opened: a phone
    # that never browses does not load them (nor html.parser)
    net_fetch = lazy_module("crab_gym.envs.android.sim.net.fetch")
    net_page = lazy_module("crab_gym.envs.android.sim.net.page")
    media = lazy_module("crab_gym.envs.android.sim.system.media")
    webview = lazy_module("crab_gym.envs.android.sim.ui.webview")

APP = AppSpec("com.android.chrome", "Chrome", (26, 115, 232))
MAIN = "com.google.android.apps.chrome.Main"
SEARCH = "https://www.google.com/search?q="
ERRORS = {
    "ERR_NAME_NOT_RESOLVED": "This site can't be reached",
    "ERR_INTERNET_DISCONNECTED": "No internet",
    "ERR_CERT_AUTHORITY_INVALID": "Your connection is not private",
}
TEXT_TYPES = ("text/html", "text/plain", "application/xhtml")


def to_url(text: str) -> str:
    """What the address bar loads for ``text``: a URL as typed (https:// added to a bare host), else a
    search for the words."""
    text = text.strip()
    if net_fetch.normalise(text):
        return text
    if " " not in text and re.fullmatch(r"[\w.-]+\.[a-z]{2,}(:\d+)?(/\S*)?", text, re.IGNORECASE):
        return "https://" + text
    return SEARCH + quote_plus(text)


def _record_visit(phone, url: str, title: str) -> None:
    now = phone.now_ms() * 1000  # Chrome keeps microseconds
    with phone.lock, db.connect(phone.fs, db.CHROME_HISTORY) as c:
        c.execute(
            "INSERT INTO urls (url, title, visit_count, last_visit_time) VALUES (?, ?, 1, ?) "
            "ON CONFLICT(url) DO UPDATE SET title = excluded.title, visit_count = visit_count + 1, "
            "last_visit_time = ?",
            (url, title, now, now),
        )
        uid = c.execute("SELECT id FROM urls WHERE url = ?", (url,)).fetchone()[0]
        c.execute("INSERT INTO visits (url, visit_time) VALUES (?, ?)", (uid, now))


def _download(phone, res: Response) -> str:
    """Save a non-page answer under /sdcard/Download (as Chrome's downloads do); its path."""
    name = posixpath.basename(unquote(urlsplit(res.url).path)) or "download"
    name = re.sub(r"[^\w. -]", "_", name)[:100] or "download"
    path = f"/sdcard/Download/{name}"
    stem, ext = posixpath.splitext(path)
    n = 1
    while phone.fs.exists(path):
        path, n = f"{stem} ({n}){ext}", n + 1
    phone.fs.write_bytes(path, res.body)
    media.scan(phone, path)
    return path


def navigate(phone, text: str, form: dict[str, str] | None = None) -> None:
    """Load what the address bar or a link asks for, as a new page on Chrome's task."""
    url = to_url(text) if form is None else text
    res = phone.web.fetch(url, form)
    state: dict = {"url": res.url, "error": res.error}
    if not res.error:
        ctype = res.content_type.split(";")[0].strip().lower()
        if ctype.startswith("image/"):
            state["image"] = True
        elif ctype and not ctype.startswith(TEXT_TYPES):
            state["downloaded"] = _download(phone, res)
        else:
            state["html"] = res.text
            state["plain"] = ctype == "text/plain"
        title = net_page.parse(res.url, res.text).title if "html" in state and not state["plain"] else ""
        _record_visit(phone, res.url, title)
    if (
        phone.current.package == APP.package
        and phone.current.screen == "main"
        and not phone.current.state.get("url")
    ):
        phone.replace("main", **state)  # the new tab page gives way to the first page
    else:
        phone.push("main", **state)


def page_of(state: dict) -> Page:
    """The page a tab shows: the fetched HTML or text, else the page Chrome makes itself (an error, an
    image, a finished download). Both are cached, so the layout of the same page is reused."""
    url = state.get("url", "")
    if state.get("error"):
        return _own_page(url, "error", state["error"])
    if state.get("image"):
        return _own_page(url, "image", "")
    if state.get("downloaded"):
        return _own_page(url, "download", state["downloaded"])
    if state.get("plain"):
        return net_page.plain(url, state.get("html", ""))
    return net_page.parse(url, state.get("html", ""))


@lru_cache(maxsize=16)
def _own_page(url: str, kind: str, detail: str) -> Page:
    if kind == "error":
        host = urlsplit(url).hostname or url
        head, lines = ERRORS.get(detail, "This page isn't working"), [f"{host} could not be loaded.", detail]
    elif kind == "image":
        name = posixpath.basename(urlsplit(url).path)
        return net_page.Page(url, name, [net_page.Block("image", [net_page.Run(name)], src=url, alt=name)])
    else:
        head, lines = "Download complete", [detail]
    return net_page.Page(
        url,
        head,
        [net_page.Block("heading", [net_page.Run(head)], level=2)]
        + [net_page.Block("text", [net_page.Run(t)]) for t in lines],
    )


@APP.screen("main", MAIN)
def tab(s: Screen) -> None:
    if "load" in s.state:  # a VIEW intent's URL: loaded once, on the first draw; its page takes the screen
        navigate(s.phone, s.state.pop("load"))
        s.act = s.phone.current
        s.state = s.act.state
    fields = s.state.setdefault("fields", {})
    url = s.state.get("url", "")
    focused = s.state.get("focus")
    h = s.px(150)

    def focus(key: str) -> None:
        if key == "url" and s.state.get("focus") != "url":
            fields["url"] = ""  # Chrome selects the whole address; typing replaces it
        elif key != "url" and key not in fields:
            fields[key] = initial.get(key, "")  # the cursor goes after the input's value
        s.state["focus"] = key

    def go() -> None:
        text = fields.get("url", "").strip()
        if text:
            s.state["focus"] = None
            navigate(s.phone, text)

    shown = fields.get("url", "") if focused == "url" else url
    s.view(
        cls="android.widget.EditText",
        rid="url_bar",
        text=shown or "Search or type web address",
        hint="" if shown else "Search or type web address",
        clickable=True,
        focusable=True,
        focused=focused == "url",
        long_clickable=True,
        on_click=lambda: focus("url"),
        shape="pill",
        bg=s.c["surface_container_high"],
        fg=s.c["text"],
        size=s.px(42),
        icon="search" if not url else "lock",
        bounds=(s.px(32), s.y + s.px(20), s.right - s.px(32), s.y + h - s.px(20)),
    )
    s.phone.enter_handlers["url"] = go
    s.y += h
    if not url:
        s.text("New tab", size=60, rid="ntp_title", height=220)
        s.text(
            "Type a web address or words to search for in the address bar.",
            rid="ntp_hint",
            muted=True,
            lines=2,
        )
        return
    page = page_of(s.state)
    initial = {f"in{i.index}": i.value for i in page.inputs()}
    top, bottom = s.y, s.bottom
    boxes, height = webview.layout(page, s.right, s.s)
    scroll = min(
        max(0, int(s.state.setdefault("scroll", {}).get("page", 0))), max(0, height - (bottom - top))
    )
    s.state["scroll"]["page"] = scroll
    web = s.view(
        cls="android.webkit.WebView",
        rid="",
        desc=page.title or url,
        bounds=(0, top, s.right, bottom),
        scrollable=height > bottom - top,
        focusable=True,
    )
    web.scroll_key = "page"

    def submit(block: int) -> None:
        b = page.blocks[block]
        if not 0 <= b.form < len(page.forms):
            return
        form = page.forms[b.form]
        ins = [i for i in page.inputs() if i.index in form.inputs and i.name]
        target, post = form.submission({i.name: fields.get(f"in{i.index}", i.value) for i in ins})
        s.state["focus"] = None
        navigate(s.phone, target, post)

    def menu(kind: str, target: str, text: str) -> None:
        s.phone.push("menu", kind=kind, target=target, label=text)

    for inp in page.inputs():
        s.phone.enter_handlers[f"in{inp.index}"] = lambda i=inp: submit(page.blocks.index(i))
    hooks = webview.Hooks(open=lambda href: navigate(s.phone, href), menu=menu, submit=submit, focus=focus)
    webview.draw(web, page, boxes, top, bottom, scroll, fields, focused or "", s.c, hooks, s.pkg)


@APP.screen("menu", "org.chromium.chrome.browser.contextmenu.ContextMenuDialog")
def context_menu(s: Screen) -> None:
    """The long-press menu of a link or an image: the address on top, then what can be done with it."""
    kind, target, label = s.state.get("kind", "link"), s.state.get("target", ""), s.state.get("label", "")

    def copy(text: str) -> None:
        clipboard.copy(s.phone, text)
        s.phone.back()

    def open_() -> None:
        s.phone.back()
        navigate(s.phone, target)

    s.view(cls="android.view.View", bounds=(0, 0, s.right, s.phone.height), shape="scrim")
    card = s.view(
        cls="android.widget.LinearLayout",
        rid="context_menu",
        bounds=(s.px(60), s.px(700), s.right - s.px(60), s.px(700 + 200 + 3 * 150)),
        shape="round",
        radius=s.px(40),
        bg=s.c["surface_container_high"],
    )
    card.add(
        View(
            cls="android.widget.TextView",
            package=s.pkg,
            rid=s.rid("context_header_title"),
            text=target,
            fg=s.c["muted"],
            size=s.px(38),
            bounds=(s.px(110), s.px(750), s.right - s.px(110), s.px(850)),
        )
    )
    items = (
        [
            ("Copy link address", lambda: copy(target)),
            ("Copy link text", lambda: copy(label)),
            ("Open link", open_),
        ]
        if kind == "link"
        else [("Copy image address", lambda: copy(target)), ("Open image", open_), ("Cancel", s.phone.back)]
    )
    for i, (text, handler) in enumerate(items):
        y = s.px(900 + i * 150)
        card.add(
            View(
                cls="android.widget.TextView",
                package=s.pkg,
                rid=s.rid("menu_row_text"),
                text=text,
                clickable=True,
                focusable=True,
                on_click=handler,
                fg=s.c["text"],
                size=s.px(44),
                bounds=(s.px(60), y, s.right - s.px(60), y + s.px(150)),
            )
        )

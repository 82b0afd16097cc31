"""The HTML subset Chrome lays out, parsed into a Page: a title, blocks (headings, paragraphs of text and link
runs, list items, table rows, preformatted text, images, text inputs, buttons) and forms.

What is not in the subset is read for its text (an unknown element is a span, a <div> a block); scripts and
styles are skipped. Links, image sources and form actions are made absolute against the page's URL.
Malformed HTML never raises: html.parser reads what it can.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin

BLOCKS = {"p", "div", "header", "main", "section", "article", "footer", "nav", "ul", "ol", "table", "body",
          "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "form", "blockquote", "dl", "dt", "dd", "figure",
          "label", "pre", "hr"}  # fmt: skip
SKIP = {"script", "style", "template", "noscript", "head"}
TEXT_INPUTS = {"text", "search", "email", "url", "tel", "number", "password", ""}


@dataclass(frozen=True)
class Run:
    text: str
    href: str = ""  # an absolute URL when the run is a link
    bold: bool = False


@dataclass
class Block:
    kind: str  # text | heading | item | row | pre | image | input | button | rule
    runs: list[Run] = field(default_factory=list)
    level: int = 0  # a heading's level (1-6)
    src: str = ""  # an image's absolute URL
    alt: str = ""  # an image's alt text, an input's label
    name: str = ""  # an input's field name
    value: str = ""  # an input's initial value, a button's label
    form: int = -1  # the form an input or button belongs to
    index: int = 0  # an input's number on the page (its field key)

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)


@dataclass
class Form:
    action: str
    method: str = "get"
    hidden: dict[str, str] = field(default_factory=dict)
    inputs: list[int] = field(default_factory=list)  # page input indexes

    def submission(self, values: dict[str, str]) -> tuple[str, dict[str, str] | None]:
        """(url to load, POST form or None) for the form's inputs' ``values`` by name."""
        data = dict(self.hidden) | values
        if self.method == "post":
            return self.action, data
        return self.action.split("?", 1)[0] + "?" + urlencode(data), None


@dataclass(eq=False)  # hashed by identity: parse() caches one Page per (url, html)
class Page:
    url: str
    title: str = ""
    blocks: list[Block] = field(default_factory=list)
    forms: list[Form] = field(default_factory=list)

    def inputs(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "input"]


class _Parser(HTMLParser):
    def __init__(self, url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page(url)
        self.runs: list[Run] = []
        self.kind, self.level = "text", 0
        self.href = ""
        self.bold = 0
        self.skip = 0
        self.in_title = False
        self.pre = False
        self.form = -1
        self.button: list[str] | None = None
        self.inputs = 0

    def _url(self, ref: str | None) -> str:
        return urljoin(self.page.url, (ref or "").strip())

    def flush(self, kind: str = "text", level: int = 0) -> None:
        text = "".join(r.text for r in self.runs)
        if text.strip():
            runs = self.runs if self.pre else _collapse(self.runs)
            self.page.blocks.append(Block(self.kind, runs, level=self.level))
        self.runs, self.kind, self.level = [], kind, level

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in SKIP:
            self.skip += 1
        elif tag == "title":
            self.in_title = True
        elif tag in BLOCKS or tag == "br":
            heading = len(tag) == 2 and tag[0] == "h" and tag[1].isdigit()
            kind = "heading" if heading else "item" if tag == "li" else "row" if tag == "tr" else "text"
            self.flush(kind, int(tag[1]) if heading else 0)
            if tag == "pre":
                self.kind, self.pre = "pre", True
            elif tag == "hr":
                self.page.blocks.append(Block("rule"))
            elif tag == "form":
                self.page.forms.append(Form(self._url(a.get("action")), a.get("method", "get").lower()))
                self.form = len(self.page.forms) - 1
        if tag == "a":
            self.href = self._url(a["href"]) if a.get("href") else ""
        elif tag in ("b", "strong", "th"):
            self.bold += 1
        elif tag == "img":
            self.flush(self.kind, self.level)
            alt = a.get("alt") or a.get("title") or "Image"
            self.page.blocks.append(
                Block("image", src=self._url(a.get("src")), alt=alt, runs=[Run(alt, self.href)])
            )
        elif tag == "input":
            self._input(a)
        elif tag == "textarea":
            self._input({"type": "text", **a})
        elif tag == "button":
            self.button = []
        if tag in ("td", "th") and self.runs:
            self.runs.append(Run("  "))

    def _input(self, a: dict[str, str]) -> None:
        typ = a.get("type", "text").lower()
        form = self.page.forms[self.form] if self.form >= 0 else None
        if typ == "hidden":
            if form is not None and a.get("name"):
                form.hidden[a["name"]] = a.get("value", "")
        elif typ in ("submit", "button"):
            self.flush(self.kind, self.level)
            self.page.blocks.append(Block("button", value=a.get("value") or "Submit", form=self.form))
        elif typ in TEXT_INPUTS:
            self.flush(self.kind, self.level)
            label = a.get("aria-label") or a.get("placeholder") or a.get("name", "")
            self.page.blocks.append(
                Block(
                    "input",
                    alt=label,
                    name=a.get("name", ""),
                    value=a.get("value", ""),
                    form=self.form,
                    index=self.inputs,
                )
            )
            if form is not None:
                form.inputs.append(self.inputs)
            self.inputs += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "title":
            self.in_title = False
        elif tag == "a":
            self.href = ""
        elif tag in ("b", "strong", "th"):
            self.bold = max(0, self.bold - 1)
        elif tag == "button" and self.button is not None:
            label = " ".join("".join(self.button).split()) or "Submit"
            self.page.blocks.append(Block("button", value=label, form=self.form))
            self.button = None
        if tag in BLOCKS:
            self.flush()
            self.pre = self.pre and tag != "pre"
            if tag == "form":
                self.form = -1

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.page.title += data
        elif self.skip:
            return
        elif self.button is not None:
            self.button.append(data)
        else:
            self.runs.append(Run(data, self.href, self.bold > 0))


def _collapse(runs: list[Run]) -> list[Run]:
    """Runs with white space collapsed as HTML does (one space between words, none at the ends)."""
    out: list[Run] = []
    space = True  # a space was just written (or we are at the start)
    for r in runs:
        text = " ".join(r.text.split())
        if r.text[:1].isspace() and not space and text:
            text = " " + text
        elif r.text[:1].isspace() and not space and not text:
            text = " "
        if r.text[-1:].isspace() and text.strip():
            text += " "
        if not text:
            continue
        space = text.endswith(" ")
        if out and out[-1].href == r.href and out[-1].bold == r.bold:
            out[-1] = Run(out[-1].text + text, r.href, r.bold)
        else:
            out.append(Run(text, r.href, r.bold))
    if out:
        out[0] = Run(out[0].text.lstrip(), out[0].href, out[0].bold)
        out[-1] = Run(out[-1].text.rstrip(), out[-1].href, out[-1].bold)
    return [r for r in out if r.text]


@lru_cache(maxsize=16)
def parse(url: str, html: str) -> Page:
    """The page ``html`` at ``url`` (cached: the phone rebuilds its screen after every action)."""
    p = _Parser(url)
    try:
        p.feed(html)
        p.close()
    except (AssertionError, ValueError):  # html.parser's last resort on broken markup: keep what was read
        pass
    p.flush()
    p.page.title = " ".join(p.page.title.split())
    return p.page


def plain(url: str, text: str) -> Page:
    """A page of plain text (a text/plain answer, an error)."""
    return Page(url, blocks=[Block("pre", [Run(line)]) for line in text.splitlines() if line.strip()])

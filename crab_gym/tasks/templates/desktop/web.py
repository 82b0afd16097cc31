"""Desktop templates on the offline web (crab_gym.web), for CRAB v0's sub-tasks (see crab_gym.tasks.crab_v0):
a download (of a URL, or of the URL on the clipboard), an image search, an API docs example, a code
repository, a place's share link and a country's facts into Calc. The
generator never draws them (their ``sets``); those with a sampler for every attribute are in v1.

Solutions that need an answer from the web's content (a repository's URL) read the world of seed 0, the one a
session serves unless told otherwise; the checks read the world the session serves.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V1_SETS, Step, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import (
    PLATFORMS,
    desktop,
    parent,
    save_as,
    shell_quote,
    step,
    terminal,
)
from crab_gym.web.content.apidocs import doc_page
from crab_gym.web.content.world import WebWorld

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

DOCS_TITLE = "{function} — PyTorch 1.13 documentation"


def _wget(path: str, source: str) -> list[Step]:
    """A terminal running wget of ``source`` (a shell word) into ``path``, making its folder."""
    folder = f"mkdir -p {shell_quote(parent(path))} && " if "/" in path.removeprefix("~/") else ""
    return terminal(f"{folder}wget -q -O {shell_quote(path)} {source}")


def _download_solution(url: str, path: str) -> list[Step]:
    return _wget(path, shlex.quote(url))


CLIPBOARD_URL = '"$(xclip -o -selection clipboard)"'  # the clipboard's text, in a terminal of the session


WEB_DOWNLOAD = SubTaskTemplate(
    id="web_download",
    sets=frozenset(),  # no sampler for 'url': only CRAB's files name it
    description="Download the file at {url} and save it as {path}.",
    attributes={"url": "url", "path": "path"},
    evaluator=lambda url, path: [ev.file_exists(path=path), ev.file_is_download(path=path, url=url)],
    solution=_download_solution,
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda url, path: path,
)


def _clipboard_download_setup(envs: Mapping[str, Any], url: str, path: str) -> None:
    desktop(envs).set_clipboard(url)


WEB_DOWNLOAD_CLIPBOARD = SubTaskTemplate(
    id="web_download_clipboard",
    sets=frozenset(),  # no sampler for 'url': only CRAB's files name it
    description="Download the file at the URL on the clipboard and save it as {path}.",
    # url: what the setup puts on the clipboard; a predecessor that copies a URL feeds it instead
    attributes={"path": "path", "url": "url"},
    evaluator=lambda path, url: [ev.file_exists(path=path), ev.file_is_clipboard_download(path=path)],
    setup=_clipboard_download_setup,
    solution=lambda path, url: _wget(path, CLIPBOARD_URL),
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda path, url: path,
    inputs=("url",),
    setup_inputs=("url",),
    hidden=("url",),
)


def firefox_to(url: str) -> list[Step]:
    """Open Firefox from the launcher and go to ``url`` (typed into the address bar)."""
    return [
        step("search_application", name="firefox"),
        step("hotkey", keys=["ctrl", "l"]),
        step("write_text", text=url + "\n"),
    ]


def search_then_copy(search: str, found: str) -> list[Step]:
    """Firefox on the results page ``search``, then on ``found`` (a result), whose address it copies."""
    return [
        *firefox_to(search),
        step("hotkey", keys=["ctrl", "l"]),
        step("write_text", text=found + "\n"),
        step("hotkey", keys=["ctrl", "l"]),
        step("hotkey", keys=["ctrl", "c"]),
    ]


def _image_solution(keyword: str) -> list[Step]:
    image = WebWorld(0).images(keyword)[0]  # opened, its address is the image's URL
    return search_then_copy(f"https://www.google.com/search?q={quote_plus(keyword)}&tbm=isch", image.url)


WEB_IMAGE_SEARCH = SubTaskTemplate(
    id="web_image_search",
    sets=V1_SETS,
    description=(
        "Use Firefox to search for an image with the keyword {keyword} and copy the URL of the image to the "
        "clipboard."
    ),
    attributes={"keyword": "word"},
    evaluator=lambda keyword: [
        ev.window_active(title_contains="Google Images"),
        ev.clipboard_image_of(keyword=keyword),
    ],
    solution=_image_solution,
    platforms=PLATFORMS,
    apps=("firefox",),
    output_type="url",  # the URL the scripted solution copies (a successor downloads it)
    output=lambda keyword: WebWorld(0).images(keyword)[0].url,
)


def _code_lines(function: str) -> list[str]:
    """The code lines of a docs page's example (without the prompt; comments left out)."""
    page = doc_page(function)
    lines = page.example.splitlines() if page else []
    return [ln[4:] for ln in lines if ln.startswith(">>> ") and not ln[4:].startswith("#")]


WEB_DOCS_EXAMPLE = SubTaskTemplate(
    id="web_docs_example",
    sets=V1_SETS,
    description=(
        "Using Firefox, find the example of {function} in the official PyTorch 1.13 documentation and copy "
        "all the lines of code of the example to the clipboard."
    ),
    attributes={"function": "docs_function"},
    evaluator=lambda function: [
        ev.window_active(title_contains=DOCS_TITLE.format(function=function)),
        *(ev.clipboard_contains(text=line) for line in _code_lines(function)),
    ],
    solution=lambda function: [
        *firefox_to(f"https://pytorch.org/docs/1.13/generated/{function}.html"),
        step("hotkey", keys=["ctrl", "a"]),
        step("hotkey", keys=["ctrl", "c"]),
    ],
    platforms=PLATFORMS,
    apps=("firefox",),
)


def _repo_solution(keyword: str) -> list[Step]:
    repo = WebWorld(0).code.search(keyword)[0]
    return search_then_copy(f"https://github.com/search?q={quote_plus(keyword)}", repo.url)


WEB_FIND_REPO = SubTaskTemplate(
    id="web_find_repo",
    sets=V1_SETS,
    description=(
        "Use Firefox to find a code repository about {keyword} on GitHub and copy the URL of the "
        "repository to the clipboard."
    ),
    attributes={"keyword": "word"},
    evaluator=lambda keyword: [ev.clipboard_repo_about(keyword=keyword)],
    solution=_repo_solution,
    platforms=PLATFORMS,
    apps=("firefox",),
)


def _share_solution(place_type: str, place_name: str) -> list[Step]:
    place = WebWorld(0).maps.nearby(place_name, place_type)[0]
    return [
        *firefox_to(f"https://www.google.com/maps/search/{quote(f'{place_type} near {place_name}')}"),
        step("hotkey", keys=["ctrl", "l"]),
        step("write_text", text=place.url + "\n"),
        # find the share link on the page; the match stays selected once the find bar closes
        step("hotkey", keys=["ctrl", "f"]),
        step("write_text", text=place.share_url),
        step("press", key="enter"),
        step("press", key="escape"),
        step("hotkey", keys=["ctrl", "c"]),
    ]


WEB_MAPS_SHARE = SubTaskTemplate(
    id="web_maps_share",
    sets=frozenset(),  # no sampler for 'place_type': only CRAB's files name it
    description=(
        "Use Firefox to find a {place_type} around {place_name} on Google Maps and copy the Google Maps "
        "sharing URL of that {place_type} to the clipboard."
    ),
    attributes={"place_type": "place_type", "place_name": "place"},
    evaluator=lambda place_type, place_name: [
        ev.clipboard_share_url_near(place_type=place_type, place_name=place_name)
    ],
    solution=_share_solution,
    platforms=PLATFORMS,
    apps=("firefox",),
)


def _country_solution(country: str, path: str) -> list[Step]:
    facts = WebWorld(0).country(country)
    capital, population = (facts.capital, facts.population) if facts else ("?", 0)
    return [
        *firefox_to(f"https://en.wikipedia.org/wiki/{quote(country.replace(' ', '_'))}"),
        step("search_application", name="calc"),
        step("write_text", text=f"{country}\t{capital}\t{population}\n"),
        *save_as(path),
    ]


WEB_COUNTRY_TO_CALC = SubTaskTemplate(
    id="web_country_to_calc",
    sets=frozenset(),  # no sampler for 'country': only CRAB's files name it
    description=(
        "Use Firefox to look up the country {country} on Wikipedia, and save its capital city and population "
        "in an ODS file at {path} with LibreOffice Calc: the country's name in the first column, the capital "
        "in the second, the population in the third, no header."
    ),
    attributes={"country": "country", "path": "path.ods"},
    evaluator=lambda country, path: [
        ev.file_exists(path=path),
        ev.spreadsheet_country_row(path=path, country=country),
    ],
    solution=_country_solution,
    platforms=PLATFORMS,
    apps=("firefox", "calc"),
    output_type="path",
    output=lambda country, path: path,
)

WEB_TEMPLATES: tuple[SubTaskTemplate, ...] = (
    WEB_DOWNLOAD,
    WEB_DOWNLOAD_CLIPBOARD,
    WEB_IMAGE_SEARCH,
    WEB_DOCS_EXAMPLE,
    WEB_FIND_REPO,
    WEB_MAPS_SHARE,
    WEB_COUNTRY_TO_CALC,
)

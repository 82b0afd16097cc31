"""Desktop templates on the offline web (crab_gym.web), for CRAB v0's sub-tasks (see crab_gym.tasks.crab_v0):
a download, an API docs example and a code repository found with Firefox. The generator does not sample them
(:data:`UNSAMPLED`): the fixed benchmark v0 is built from the other templates.

Solutions that need an answer from the web's content (a repository's URL) read the world of seed 0, the one a
session serves unless told otherwise; the checks read the world the session serves.
"""

from __future__ import annotations

import shlex
from urllib.parse import quote_plus

from crab_gym.core.tasks import Step, SubTaskTemplate
from crab_gym.envs.desktop import evaluators as ev
from crab_gym.tasks.templates.desktop.common import PLATFORMS, parent, shell_quote, step, terminal
from crab_gym.web.content.apidocs import doc_page
from crab_gym.web.content.world import WebWorld

DOCS_TITLE = "{function} — PyTorch 1.13 documentation"


def _download_solution(url: str, path: str) -> list[Step]:
    folder = f"mkdir -p {shell_quote(parent(path))} && " if "/" in path.removeprefix("~/") else ""
    return terminal(f"{folder}wget -q -O {shell_quote(path)} {shlex.quote(url)}")


WEB_DOWNLOAD = SubTaskTemplate(
    id="web_download",
    description="Download the file at {url} and save it as {path}.",
    attributes={"url": "url", "path": "path"},
    evaluator=lambda url, path: [ev.file_exists(path=path), ev.file_is_download(path=path, url=url)],
    solution=_download_solution,
    platforms=PLATFORMS,
    apps=("terminal",),
    output_type="path",
    output=lambda url, path: path,
)


def firefox_to(url: str) -> list[Step]:
    """Open Firefox from the launcher and go to ``url`` (typed into the address bar)."""
    return [
        step("search_application", name="firefox"),
        step("hotkey", keys=["ctrl", "l"]),
        step("write_text", text=url + "\n"),
    ]


def _code_lines(function: str) -> list[str]:
    """The code lines of a docs page's example (without the prompt; comments left out)."""
    page = doc_page(function)
    lines = page.example.splitlines() if page else []
    return [ln[4:] for ln in lines if ln.startswith(">>> ") and not ln[4:].startswith("#")]


WEB_DOCS_EXAMPLE = SubTaskTemplate(
    id="web_docs_example",
    description=(
        "Using Firefox, find the example of {function} in the official PyTorch 1.13 documentation and copy "
        "all the lines of code of the example to the clipboard."
    ),
    attributes={"function": "word"},
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
    return [
        *firefox_to(f"https://github.com/search?q={quote_plus(keyword)}"),
        step("hotkey", keys=["ctrl", "l"]),
        step("write_text", text=repo.url + "\n"),
        step("hotkey", keys=["ctrl", "l"]),
        step("hotkey", keys=["ctrl", "c"]),
    ]


WEB_FIND_REPO = SubTaskTemplate(
    id="web_find_repo",
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

WEB_TEMPLATES: tuple[SubTaskTemplate, ...] = (WEB_DOWNLOAD, WEB_DOCS_EXAMPLE, WEB_FIND_REPO)

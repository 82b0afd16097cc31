"""Desktop templates on the offline web (crab_gym.web): downloads, for CRAB v0's sub-tasks
(:mod:`crab_gym.tasks.crab_v0`). The generator does not sample them (:data:`UNSAMPLED`): the fixed benchmark
v0 is built from the other templates."""

from __future__ import annotations

import shlex

from crab_gym.core.tasks import SubTaskTemplate
from crab_gym.envs.desktop import evaluators as ev
from crab_gym.tasks.templates.desktop.common import PLATFORMS, parent, shell_quote, terminal


def _download_solution(url: str, path: str) -> list:
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

WEB_TEMPLATES: tuple[SubTaskTemplate, ...] = (WEB_DOWNLOAD,)

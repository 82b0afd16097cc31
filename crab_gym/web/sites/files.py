"""The download hosts: every path answers with its file's bytes; the neutral host lists a few files."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..content.files import content_type
from ..content.world import WebWorld
from .html import e, page

LISTED = ("/downloads/report.pdf", "/downloads/dataset.zip", "/downloads/notes.txt", "/downloads/photo.png")


def routes(world: WebWorld) -> list[BaseRoute]:
    def index(request: Request) -> Response:
        host = request.url.hostname or "files.example.org"
        items = "".join(
            f'<li><a href="https://{e(host)}{e(p)}">{e(p.rsplit("/", 1)[1])}</a></li>' for p in LISTED
        )
        return page("Downloads", f"<h1>Files</h1><ul>{items}</ul>", brand=host, search_action="/")

    def file(request: Request) -> Response:
        url = str(request.url.replace(query=""))
        return Response(world.file_bytes(url), media_type=content_type(request.url.path))

    return [Route("/", index), Route("/{path:path}", file)]

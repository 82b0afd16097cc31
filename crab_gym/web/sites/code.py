"""The code-hosting site (github.com): search, repository pages, release archives."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..content.world import WebWorld
from .html import e, not_found, page

BRAND = "GitHub"


def routes(world: WebWorld) -> list[BaseRoute]:
    def frame(title: str, body: str, query: str = "") -> Response:
        return page(title, body, brand=BRAND, search_action="/search", query=query)

    def home(request: Request) -> Response:
        top = sorted(world.repos, key=lambda r: -r.stars)[:8]
        items = "".join(f'<li><a href="/{e(r.full_name)}">{e(r.full_name)}</a> ★ {r.stars}</li>' for r in top)
        return frame("GitHub", f"<h1>Explore repositories</h1><ul>{items}</ul>")

    def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        hits = world.code.search(query) if query else []
        items = "".join(
            f'<div class="hit"><a href="/{e(r.full_name)}">{e(r.full_name)}</a><div>{e(r.description)}</div>'
            f'<div class="muted">{e(r.language)} · ★ {r.stars} · {e(", ".join(r.topics))}</div></div>'
            for r in hits
        )
        return frame(f"Search · {query} · GitHub", f"<h2>{len(hits)} repository results</h2>{items}", query)

    def repo(request: Request) -> Response:
        full = f"{request.path_params['owner']}/{request.path_params['name']}"
        r = world.code.repo(full)
        if r is None:
            return not_found(f"repository {full}", brand=BRAND, search_action="/search")
        body = (
            f'<h1><a href="/{e(r.owner)}">{e(r.owner)}</a> / <a href="{e(r.url)}">{e(r.name)}</a></h1>'
            f'<p>{e(r.description)}</p><p class="muted">{e(r.language)} · ★ {r.stars} · '
            f"topics: {e(', '.join(r.topics))}</p>"
            f'<p>Latest release <a href="{e(r.archive_url)}">{e(r.version)} (zip)</a></p>'
            f"<h2>README.md</h2><pre>{e(r.readme)}</pre>"
        )
        return frame(f"GitHub - {r.full_name}: {r.description}", body)

    def archive(request: Request) -> Response:
        url = str(request.url.replace(query=""))
        return Response(world.file_bytes(url), media_type="application/zip")

    return [
        Route("/", home),
        Route("/search", search),
        Route("/{owner}/{name}/archive/{rest:path}", archive),
        Route("/{owner}/{name}", repo),
    ]

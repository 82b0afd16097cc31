"""The API documentation site (pytorch.org/docs): an index and a page per function with its example."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..content.world import WebWorld
from .html import e, not_found, page

BRAND = "PyTorch"
SEARCH = "/docs/stable/search.html"


def routes(world: WebWorld) -> list[BaseRoute]:
    def frame(title: str, body: str, query: str = "") -> Response:
        return page(title, body, brand=BRAND, search_action=SEARCH, query=query)

    def index(request: Request) -> Response:
        items = "".join(f'<li><a href="{e(d.path)}">{e(d.name)}</a></li>' for d in world.docs)
        return frame("PyTorch 1.13 documentation", f"<h1>PyTorch documentation</h1><ul>{items}</ul>")

    def doc(request: Request) -> Response:
        d = world.doc(request.path_params["name"])
        if d is None:
            return not_found(f"no page {request.path_params['name']}", brand=BRAND, search_action=SEARCH)
        body = (
            f"<h1>{e(d.name)}</h1><pre><code>{e(d.signature)}</code></pre><p>{e(d.summary)}</p>"
            f"<h2>Example</h2><pre><code>{e(d.example)}</code></pre>"
        )
        return frame(f"{d.name} — PyTorch 1.13 documentation", body)

    def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip().lower()
        hits = [d for d in world.docs if query and query in d.name.lower()]
        items = "".join(f'<li><a href="{e(d.path)}">{e(d.name)}</a></li>' for d in hits)
        return frame("Search — PyTorch 1.13 documentation", f"<h1>Search results</h1><ul>{items}</ul>", query)

    return [
        Route("/", index),
        Route("/docs/stable/index.html", index),
        Route("/docs/stable/", index),
        Route(SEARCH, search),
        Route("/docs/stable/generated/{name}.html", doc),
        Route("/docs/1.13/generated/{name}.html", doc),
        Route("/docs/1.13/", index),
    ]

"""The search engine (www.google.com): web results over every site's content, image results, and the image
host that serves the pictures."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..content.images import image_png
from ..content.world import WebWorld
from .html import e, page, q

BRAND = "Google"


def _web_hits(world: WebWorld, query: str) -> list[tuple[str, str, str]]:
    """(title, url, snippet) for every page of the world that the query's words name."""
    words = query.lower().split()
    hits = [
        (f"{c.name} - Wikipedia", c.url, f"Capital: {c.capital}.") for c in world.encyclopedia.search(query)
    ]
    hits += [(r.full_name, r.url, r.description) for r in world.code.search(query)[:5]]
    hits += [(f"{p.name} - Google Maps", p.url, p.address) for p in world.maps.search(query, limit=5)]
    hits += [(f"{d.name} - PyTorch", d.url, d.summary) for d in world.docs if any(w in d.name for w in words)]
    return hits


IMAGES = '<input type="hidden" name="tbm" value="isch">'


def _figure(url: str, title: str) -> str:
    img = f'<img src="{e(url)}" alt="{e(title)}" width="240">'
    return f'<figure class="hit"><a href="{e(url)}">{img}</a><figcaption>{e(title)}</figcaption></figure>'


def _result(title: str, url: str, snippet: str) -> str:
    link = f'<a href="{e(url)}">{e(title)}</a>'
    return f'<div class="hit">{link}<div class="muted">{e(url)}</div><div>{e(snippet)}</div></div>'


def routes(world: WebWorld) -> list[BaseRoute]:
    def home(request: Request) -> Response:
        body = '<p>Search the offline web. <a href="/imghp">Images</a> · <a href="/maps">Maps</a></p>'
        return page("Google", body, brand=BRAND, search_action="/search")

    def imghp(request: Request) -> Response:
        return page(
            "Google Images", "<p>Search for images.</p>", brand=BRAND, search_action="/search", hidden=IMAGES
        )

    def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        if request.query_params.get("tbm") == "isch":
            items = "".join(_figure(r.url, r.title) for r in world.images(query)) if query else ""
            tabs = f'<p><a href="/search?q={q(query)}">All</a> · <strong>Images</strong></p>'
            title = f"{query} - Google Images"
            return page(title, tabs + items, brand=BRAND, search_action="/search", query=query, hidden=IMAGES)
        hits = _web_hits(world, query) if query else []
        items = "".join(_result(*h) for h in hits) or f"<p>No results for {e(query)}.</p>"
        tabs = f'<p><strong>All</strong> · <a href="/search?q={q(query)}&amp;tbm=isch">Images</a></p>'
        return page(
            f"{query} - Google Search", tabs + items, brand=BRAND, search_action="/search", query=query
        )

    def complete(request: Request) -> Response:
        """The browsers' search suggestions: [query, [titles of the world's pages that start with it]]."""
        query = request.query_params.get("q", "")
        names = (
            [c.name for c in world.countries] + [r.name for r in world.repos] + [p.name for p in world.places]
        )
        hits = sorted({n for n in names if query and n.lower().startswith(query.lower())})[:8]
        return JSONResponse([query, hits])

    return [
        Route("/", home),
        Route("/imghp", imghp),
        Route("/search", search),
        Route("/complete/search", complete),
    ]


def image_routes(world: WebWorld) -> list[BaseRoute]:
    """The image host: /images/<name>.png, drawn from the seed and the name."""

    def image(request: Request) -> Response:
        name = request.path_params["name"]
        return Response(image_png(world.seed, f"/images/{name}.png"), media_type="image/png")

    home = Route("/", lambda r: RedirectResponse("https://www.google.com/imghp", 302))
    return [home, Route("/images/{name}.png", image)]

"""The encyclopedia (en.wikipedia.org): a page per country with an infobox, and search."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..content.world import WebWorld
from .html import e, not_found, page

BRAND = "Wikipedia"


def routes(world: WebWorld) -> list[BaseRoute]:
    def frame(title: str, body: str, query: str = "") -> Response:
        return page(title, body, brand=BRAND, search_action="/w/index.php", query=query, name="search")

    def home(request: Request) -> Response:
        items = "".join(f'<li><a href="/wiki/{e(c.slug)}">{e(c.name)}</a></li>' for c in world.countries)
        return frame("Wikipedia, the free encyclopedia", f"<h1>Countries</h1><ul>{items}</ul>")

    def article(request: Request) -> Response:
        c = world.country(request.path_params["title"])
        if c is None:
            return not_found(
                f"no article {request.path_params['title']}", brand=BRAND, search_action="/w/index.php"
            )
        rows = [
            ("Capital", c.capital),
            ("Population", f"{c.population:,}"),
            ("Area", f"{c.area_km2:,} km²"),
            ("Continent", c.continent),
            ("Currency", c.currency),
        ]
        box = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
        body = (
            f'<h1>{e(c.name)}</h1><table class="infobox">{box}</table>'
            f"<p>{e(c.name)} is a country in {e(c.continent)}. Its capital is {e(c.capital)} and it has a"
            f" population of {c.population:,}.</p>"
        )
        return frame(f"{c.name} - Wikipedia", body)

    def search(request: Request) -> Response:
        query = request.query_params.get("search", "").strip()
        if c := world.country(query):
            return RedirectResponse(f"/wiki/{c.slug}", status_code=302)
        hits = world.encyclopedia.search(query)
        items = "".join(f'<li><a href="/wiki/{e(c.slug)}">{e(c.name)}</a></li>' for c in hits)
        return frame(
            f"{query} - Search results - Wikipedia", f"<h1>Search results</h1><ul>{items}</ul>", query
        )

    return [
        Route("/", home),
        Route("/wiki/{title:path}", article),
        Route("/w/index.php", search),
    ]

"""The maps site (www.google.com/maps, maps.google.com): place search ("coffee shop near Munich"), place
pages with address, postal code and a share link, directions with route distances, and the short-link host
(maps.app.goo.gl) that redirects to a place."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..content.places import Place
from ..content.world import WebWorld
from .html import e, not_found, page, q

BRAND = "Google Maps"
SEARCH = "/maps/search"
NEAR = re.compile(r"^(?P<kind>.+?)\s+(?:near|around|in)\s+(?P<place>.+)$", re.IGNORECASE)


def _hit(p: Place) -> str:
    return (
        f'<div class="hit"><a href="/maps/place/{e(p.id)}">{e(p.name)}</a> <span class="muted">{e(p.kind)} ·'
        f" ★ {p.rating}</span><div>{e(p.address)}</div></div>"
    )


def routes(world: WebWorld) -> list[BaseRoute]:
    m = world.maps

    def frame(title: str, body: str, query: str = "") -> Response:
        return page(title, body, brand=BRAND, search_action=SEARCH, query=query)

    def home(request: Request) -> Response:
        if query := request.query_params.get("q", "").strip():
            return RedirectResponse(f"{SEARCH}/{q(query)}", status_code=302)
        form = (
            '<h2>Directions</h2><form action="/maps/dir" method="get"><input type="text" name="origin" '
            'aria-label="Starting point"> <input type="text" name="destination" aria-label="Destination"> '
            '<button type="submit">Get directions</button></form>'
        )
        return frame(
            "Google Maps", "<p>Search for a place, an address or “coffee shop near Munich”.</p>" + form
        )

    def search(request: Request) -> Response:
        query = (request.path_params.get("query") or request.query_params.get("q", "")).strip()
        if not query:
            return home(request)
        if near := NEAR.match(query):
            hits = m.nearby(near["place"], near["kind"])
            if hits:
                title = f"{near['kind']} near {m.find(near['place']).name}"
                return frame(
                    f"{query} - Google Maps", f"<h1>{e(title)}</h1>" + "".join(map(_hit, hits)), query
                )
        hits = m.search(query)
        if not hits:  # one place by that name: listed, a city's centre or a landmark
            return RedirectResponse(f"/maps/place/{q(m.find(query).id)}", status_code=302)
        return frame(f"{query} - Google Maps", "".join(map(_hit, hits)), query)

    def place(request: Request) -> Response:
        p = m.by_id(request.path_params["id"])
        if p is None:
            return not_found(f"no place {request.path_params['id']}", brand=BRAND, search_action=SEARCH)
        body = (
            f'<h1>{e(p.name)}</h1><p class="muted">{e(p.kind)} · ★ {p.rating}</p>'
            f"<table><tr><th>Address</th><td>{e(p.address)}</td></tr>"
            f"<tr><th>Postal code</th><td>{e(p.postal_code)}</td></tr>"
            f"<tr><th>City</th><td>{e(p.city)}</td></tr><tr><th>Country</th><td>{e(p.country)}</td></tr>"
            f"<tr><th>Coordinates</th><td>{p.lat}, {p.lon}</td></tr></table>"
            f'<h2>Share</h2><p>Link to share: <a href="{e(p.share_url)}">{e(p.share_url)}</a></p>'
            f'<p><a href="/maps/dir/?destination={q(p.name)}">Directions to here</a></p>'
        )
        return frame(f"{p.name} - Google Maps", body)

    def directions(request: Request) -> Response:
        origin = (request.path_params.get("origin") or request.query_params.get("origin", "")).strip()
        dest = (request.path_params.get("destination") or request.query_params.get("destination", "")).strip()
        if not origin or not dest:
            return home(request)
        rs = m.routes(origin, dest)
        a, b = m.find(origin), m.find(dest)
        items = (
            "".join(
                f'<div class="hit"><strong>{e(r.distance_text)}</strong> · {r.duration_min} min'
                f" · via {e(r.via)}</div>"
                for r in rs
            )
            or "<p>No driving route found.</p>"
        )
        body = (
            f"<h1>Directions</h1><p>From {e(a.name)} ({e(a.address)})<br>to {e(b.name)} ({e(b.address)})</p>"
        )
        return frame(f"{a.name} to {b.name} - Google Maps", body + items)

    return [
        Route("/maps", home),
        Route("/maps/", home),
        Route(SEARCH, search),
        Route(SEARCH + "/{query:path}", search),
        Route("/maps/place/{id}", place),
        Route("/maps/dir/", directions),
        Route("/maps/dir", directions),
        Route("/maps/dir/{origin}/{destination}", directions),
    ]


def short_link_routes(world: WebWorld) -> list[BaseRoute]:
    """maps.app.goo.gl/<code>: a redirect to the place's page."""

    def follow(request: Request) -> Response:
        p = world.maps.by_share_code(request.path_params["code"])
        if p is None:
            return not_found(
                "this link leads nowhere", brand=BRAND, search_action="https://www.google.com/maps/search"
            )
        return RedirectResponse(p.url, status_code=302)

    return [
        Route("/", lambda r: RedirectResponse("https://www.google.com/maps", 302)),
        Route("/{code}", follow),
    ]

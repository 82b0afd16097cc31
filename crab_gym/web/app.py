"""The ASGI app of the offline web: one starlette router per site, chosen by the request's Host header."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route, Router
from starlette.types import Receive, Scope, Send

from .content.files import DOWNLOAD_HOSTS
from .content.images import IMAGE_HOST
from .content.places import SHARE_HOST
from .content.world import WebWorld
from .hosts import HOSTS
from .sites import code, docs, files, maps, search, wiki


def _redirect(target: str) -> list[BaseRoute]:
    def go(request: Request) -> Response:
        path = request.url.path if request.url.path != "/" else ""
        suffix = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{target}{path}{suffix}", status_code=301)

    return [Route("/{rest:path}", go)]


def site_routes(world: WebWorld) -> dict[str, list[BaseRoute]]:
    """Host name -> the routes that host answers."""
    google = search.routes(world) + maps.routes(world)
    table = {
        "www.google.com": google,
        "google.com": _redirect("https://www.google.com"),
        "maps.google.com": [Route("/", lambda r: RedirectResponse("/maps", 302)), *maps.routes(world)],
        SHARE_HOST: maps.short_link_routes(world),
        IMAGE_HOST: search.image_routes(world),
        "github.com": code.routes(world),
        "www.github.com": _redirect("https://github.com"),
        "en.wikipedia.org": wiki.routes(world),
        "www.wikipedia.org": _redirect("https://en.wikipedia.org"),
        "pytorch.org": docs.routes(world),
        "www.pytorch.org": _redirect("https://pytorch.org"),
    }
    for host in DOWNLOAD_HOSTS:
        table[host] = files.routes(world)
    return table


__all__ = ["HOSTS", "HttpsRedirect", "WebApp", "site_routes"]  # HOSTS: the names site_routes answers


class WebApp:
    """ASGI: the site for the request's Host (port and case ignored); an unknown host gets a 421 saying so."""

    def __init__(self, world: WebWorld) -> None:
        self.set_world(world)

    def set_world(self, world: WebWorld) -> None:
        """Answer from ``world`` from the next request on."""
        self.world = world
        self.sites = {host: Router(routes) for host, routes in site_routes(world).items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return await Router()(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1").rsplit(":", 1)[0].lower().rstrip(".")
        site = self.sites.get(host)
        if site is None:
            return await PlainTextResponse(f"no site at {host!r} in the offline web", 421)(
                scope, receive, send
            )
        if self.world.planted is not None:  # a planted instruction (content/planted.py) goes in every page
            return await self.world.planted.serve(site, scope, receive, send)
        await site(scope, receive, send)


class HttpsRedirect:
    """ASGI for port 80: every request goes to the same URL over https."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await Router()(scope, receive, send)
        req = Request(scope)
        await RedirectResponse(str(req.url.replace(scheme="https", port=None)), 301)(scope, receive, send)

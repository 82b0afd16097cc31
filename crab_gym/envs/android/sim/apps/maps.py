"""Google Maps (com.google.android.apps.maps) over the offline web's seeded maps (crab_gym.web.content.places,
the phone's web world): search a place (its sheet shows the address and a share link), a postal code and a
country (the city), places near one ("cafe near Munich"), and directions from A to B with each route's
distance. Searches and directions go to gmm_myplaces.db."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..storage import db
from ..system import clipboard
from ..system.registry import AppSpec
from ..ui.layout import Screen
from ..ui.view import View
from ..ui.widgets import Item
from .base import execute, fields

if TYPE_CHECKING:  # places come from a search (net/mapsquery.py): a phone never searching loads neither
    from crab_gym.web.content.places import Place

APP = AppSpec("com.google.android.apps.maps", "Maps", (234, 67, 53))


def _record(phone, query: str, result: str, address: str) -> None:
    execute(
        phone,
        db.MAPS_DB,
        "INSERT INTO searches (query, result, address, time) VALUES (?,?,?,?)",
        (query, result, address, phone.now_ms()),
    )


def search(phone, query: str) -> None:
    """Run a search from the omnibox: a postal code in a country, places near one, a list, or one place."""
    from ..net.mapsquery import answer  # here: a phone that never searches Maps does not load it

    query = " ".join(query.split())
    if not query:
        return
    found = answer(phone.web.world.maps, query)
    if found.city is not None:
        city = found.city
        shown = f"{found.code}, {city.name}, {city.country}"
        _record(phone, query, city.name, shown)
        phone.push(
            "main", omnibox=shown, postal={"code": found.code, "city": city.name, "country": city.country}
        )
    elif found.place is not None:
        open_place(phone, found.place, query)
    else:
        _record(phone, query, "", "")
        phone.push("main", omnibox=query, results=[p.id for p in found.places])


def open_place(phone, place: Place, query: str) -> None:
    _record(phone, query, place.name, place.address)
    phone.push("main", omnibox=place.name, place=place.id)


def _omnibox(s: Screen, text: str) -> None:
    """The search box at the top: a container (search_omnibox_text_box) whose text child shows the search."""
    focused = s.state.get("focus") == "q"
    shown = s.state.setdefault("fields", {}).get("q", "") if focused else text
    box = s.view(
        cls="android.widget.LinearLayout",
        rid="search_omnibox_text_box",
        desc="Search here",
        bounds=(s.px(32), s.y + s.px(20), s.right - s.px(32), s.y + s.px(150)),
        clickable=True,
        focusable=True,
        on_click=lambda: s.state.update(focus="q", fields={"q": ""}),
        shape="pill",
        bg=s.c["surface_container_high"],
    )
    box.add(
        View(
            cls="android.widget.EditText" if focused else "android.widget.TextView",
            package=s.pkg,
            rid=s.rid("search_omnibox_edit_text" if focused else "search_omnibox_one_google_bar"),
            text=shown or "Search here",
            hint="" if shown else "Search here",
            focused=focused,
            bounds=(s.px(80), s.y + s.px(20), s.right - s.px(80), s.y + s.px(150)),
            fg=s.c["text"],
            size=s.px(44),
            icon="search",
        )
    )

    def go() -> None:
        s.state["focus"] = None
        search(s.phone, s.state.get("fields", {}).get("q", ""))

    s.phone.enter_handlers["q"] = go
    s.y += s.px(170)


def _map(s: Screen, height: int, pins: list[Place]) -> None:
    """The map: a tile-coloured area with a pin per place shown."""
    top = s.y
    area = s.view(
        cls="android.view.View",
        desc="Map",
        rid="map_frame",
        bounds=(0, top, s.right, top + s.px(height)),
        bg=(229, 227, 223) if not s.phone.dark else (52, 56, 62),
    )
    if pins:
        lats, lons = [p.lat for p in pins], [p.lon for p in pins]
        span_lat, span_lon = max(lats) - min(lats) or 1.0, max(lons) - min(lons) or 1.0
        for p in pins:
            fx = (p.lon - min(lons)) / span_lon if len(pins) > 1 else 0.5
            fy = (max(lats) - p.lat) / span_lat if len(pins) > 1 else 0.5
            x = s.px(120) + int(fx * (s.right - s.px(240)))
            y = top + s.px(60) + int(fy * (s.px(height) - s.px(140)))
            area.add(
                View(
                    cls="android.widget.ImageView",
                    package=s.pkg,
                    desc=f"Pin, {p.name}",
                    icon="location_on",
                    shape="none",
                    fg=(234, 67, 53),
                    size=s.px(80),
                    bounds=(x - s.px(40), y - s.px(40), x + s.px(40), y + s.px(40)),
                )
            )
    s.y = top + s.px(height)


@APP.screen("main", "com.google.android.maps.MapsActivity")
def main(s: Screen) -> None:
    if "load" in s.state:  # a geo: intent, "geo:0,0?q=Eiffel Tower": searched once
        q = s.state.pop("load").partition("q=")[2]
        if q:
            search(s.phone, q.replace("+", " "))
            s.act = s.phone.current
            s.state = s.act.state
    maps = s.phone.web.world.maps
    _omnibox(s, s.state.get("omnibox", ""))
    place = maps.by_id(s.state.get("place", "")) if s.state.get("place") else None
    results = [p for p in (maps.by_id(i) for i in s.state.get("results", [])) if p is not None]
    _map(s, 700 if (place or results or s.state.get("postal")) else 1500, [place] if place else results)
    if place is not None:
        _place_sheet(s, place)
    elif results:
        items = [
            Item(
                p.name,
                p.address,
                glyph="location_on",
                rid="search_list_item",
                desc=p.name,
                on_click=lambda p=p: open_place(s.phone, p, s.state.get("omnibox", "")),
            )
            for p in results
        ]
        s.list("results", items, rid="search_list_layout", bottom=0)
    elif postal := s.state.get("postal"):
        s.text(postal["city"], size=64, rid="title", height=170)
        s.text(f"{postal['code']}, {postal['country']}", rid="subtitle", muted=True)
    s.fab(
        "Directions",
        lambda: s.phone.push("directions", focus="start"),
        rid="directions_button",
        icon="directions",
    )


def _place_sheet(s: Screen, place: Place) -> None:
    s.text(place.name, size=64, rid="title", height=170).desc = place.name
    s.text(f"{place.kind} · rated {place.rating}", rid="subtitle", muted=True)
    s.text(place.address, rid="address", height=110).desc = place.address

    def directions() -> None:
        s.phone.push("directions", focus="start", fields={"destination": place.name})

    def share() -> None:
        s.phone.push("share", url=place.share_url, name=place.name)

    s.button("Directions", directions, rid="directions_button", icon="directions")
    s.button("Share", share, rid="share_button", icon="share")


@APP.screen("share", "com.google.android.apps.gmm.sharing.ShareActivity")
def share_sheet(s: Screen) -> None:
    """Android's share sheet for a place: its link, and Copy (to the clipboard)."""
    url = s.state.get("url", "")

    def copy() -> None:
        clipboard.copy(s.phone, url)
        s.phone.back()

    s.app_bar(s.state.get("name", "Share"))
    s.text(url, rid="share_link", height=120).desc = url
    s.button("Copy link", copy, rid="copy_link")


@APP.screen("directions", "com.google.android.apps.gmm.directions.DirectionsActivity")
def directions(s: Screen) -> None:
    s.app_bar("Directions")
    start, dest = fields(s, "start", "destination")

    def route() -> None:
        a, b = fields(s, "start", "destination")
        if not (a and b):
            s.state["focus"] = "destination" if a else "start"
            return
        best = s.phone.web.world.maps.route(a, b)
        execute(
            s.phone,
            db.MAPS_DB,
            "INSERT INTO directions (origin, destination, distance_m, time) VALUES (?,?,?,?)",
            (a, b, None if best is None else int(round(best.distance_km * 1000)), s.phone.now_ms()),
        )
        s.state.update(routed=(a, b), focus=None)

    s.field("start", "Choose start location", rid="directions_startpoint_textbox", on_enter=route).desc = (
        f"Start location, {start}" if start else "Start location"
    )
    s.field("destination", "Choose destination", rid="directions_endpoint_textbox", on_enter=route).desc = (
        f"Destination, {dest}" if dest else "Destination"
    )
    s.button("Route", route, rid="directions_search_button", icon="directions")
    if tuple(s.state.get("routed", ())) != (start, dest) or not (start and dest):
        return
    routes = s.phone.web.world.maps.routes(start, dest)
    items = [
        Item(
            f"{r.distance_text} · {r.duration_min} min",
            ("Best route, " if i == 0 else "") + f"via {r.via}",
            glyph="directions_car",
            rid="route_row",
            desc=f"{r.distance_text}, {r.duration_min} min, via {r.via}",
        )
        for i, r in enumerate(routes)
    ]
    s.list("routes", items, rid="directions_trip_list", empty="No driving route found")

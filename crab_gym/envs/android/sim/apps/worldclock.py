"""The Clock app's world clock: the cities picked, kept where DeskClock keeps them (its SharedPreferences,
the string set ``selected_cities``), each with its time and how far ahead of or behind the phone it is."""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module

from ..ui.layout import Screen
from ..ui.widgets import Item, Rows
from .clock import APP, tabs

PREFS = "/data/data/com.google.android.deskclock/shared_prefs/com.google.android.deskclock_preferences.xml"
KEY = "selected_cities"
if TYPE_CHECKING:
    import zoneinfo
    from xml.etree import ElementTree
else:  # imported when the world clock is first shown or its cities read
    zoneinfo = lazy_module("zoneinfo")
    ElementTree = lazy_module("xml.etree.ElementTree")

HOME = dt.timezone.utc  # the phone's zone (persist.sys.timezone is UTC)
ALIASES = {"Yakarta": "Asia/Jakarta", "Bogotá": "America/Bogota", "New York City": "America/New_York"}


@cache
def cities() -> dict[str, str]:
    """City name -> time zone: the cities of the time zone database (Asia/Jakarta: Jakarta), and a few
    other spellings the picker also finds."""
    out = {
        z.rsplit("/", 1)[1].replace("_", " "): z
        for z in zoneinfo.available_timezones()
        if "/" in z and not z.startswith(("Etc/", "SystemV/", "US/", "posix/", "right/"))
    }
    return dict(sorted((out | ALIASES).items()))


@cache
def zone(key: str) -> zoneinfo.ZoneInfo:
    """The time zone ``key``, read once: ``ZoneInfo`` keeps only the last 8 strongly, and the city picker
    reads hundreds at every build of its screen."""
    return zoneinfo.ZoneInfo(key)


def city_named(name: str) -> str | None:
    """The picker's city for ``name`` (any case and spacing), or None."""
    key = " ".join(name.split()).casefold()
    return next((c for c in cities() if c.casefold() == key), None)


def gap(city: str, now_ms: int) -> str:
    """How far the city's clock is from the phone's: 'Same time', '7 hours behind', '5 hours 30 minutes
    ahead'."""
    when = dt.datetime.fromtimestamp(now_ms / 1000, HOME)
    offset = when.astimezone(zone(cities()[city])).utcoffset() or dt.timedelta()
    minutes = int((offset - (when.utcoffset() or dt.timedelta())).total_seconds()) // 60
    if minutes == 0:
        return "Same time"
    h, m = divmod(abs(minutes), 60)
    parts = [f"{h} hour{'s' * (h != 1)}"] * bool(h) + [f"{m} minutes"] * bool(m)
    return " ".join(parts) + (" ahead" if minutes > 0 else " behind")


def selected(phone) -> list[str]:
    host = phone.fs.resolve(PREFS)
    try:
        root = ElementTree.fromstring(host.read_bytes())
    except (OSError, ElementTree.ParseError):
        return []
    found = root.find(f"set[@name='{KEY}']")
    return [] if found is None else [e.text or "" for e in found.findall("string")]


def save(phone, names: list[str]) -> None:
    """Write the prefs file as SharedPreferences does: a <map> with the string set (other keys kept)."""
    host = phone.fs.resolve(PREFS)
    try:
        root = ElementTree.fromstring(host.read_bytes())
    except (OSError, ElementTree.ParseError):
        root = ElementTree.Element("map")
    for old in root.findall(f"set[@name='{KEY}']"):
        root.remove(old)
    found = ElementTree.SubElement(root, "set", name=KEY)
    for n in names:
        ElementTree.SubElement(found, "string").text = n
    host.parent.mkdir(parents=True, exist_ok=True)
    body = ElementTree.tostring(root, encoding="unicode")
    host.write_text("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n" + body + "\n")
    phone.invalidate()


@APP.screen("clock", ".DeskClock")
def world(s: Screen) -> None:
    s.app_bar("Clock", back=False)
    tabs(s, "Clock")
    now = s.phone.now_ms()
    s.text(dt.datetime.fromtimestamp(now / 1000, HOME).strftime("%H:%M"), size=96, rid="digital_clock")
    items = []
    for name in selected(s.phone):
        when = dt.datetime.fromtimestamp(now / 1000, zone(cities().get(name, "UTC")))

        def remove(name=name) -> None:
            save(s.phone, [n for n in selected(s.phone) if n != name])

        items.append(Item(name, f"{when:%H:%M} · {gap(name, now)}", rid="city_name", on_long_click=remove))
    s.list("cities", items, rid="cities", empty="No cities")
    s.fab("Cities", lambda: s.phone.push("cities", focus="query"), rid="fab", icon="public")


@APP.screen("cities", ".worldclock.CitySelectionActivity")
def pick(s: Screen) -> None:
    """Search the cities and tap one to add it to the world clock."""
    s.app_bar("Select a city")
    s.field("query", "Search", rid="search_src_text")
    query = " ".join(s.state.get("fields", {}).get("query", "").split()).casefold()
    names = [c for c in cities() if c.casefold().startswith(query)]

    def add(name: str) -> None:
        if name not in selected(s.phone):
            save(s.phone, [*selected(s.phone), name])
        s.phone.back()

    now = s.phone.now_ms()

    def row(i: int) -> Item:
        return Item(names[i], gap(names[i], now), rid="city_name", on_click=lambda: add(names[i]))

    s.list("cities", Rows(len(names), row), rid="cities_list", empty="No cities found")  # rows in view only

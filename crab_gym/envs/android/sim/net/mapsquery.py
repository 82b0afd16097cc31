"""What a Maps search means: a postal code in a country (the country read as typed, misspelt or an
adjective: "Columbia", "German"; then the city the code belongs to there), places of a kind near one, one
place, or a list of places. The Maps app and the Maps templates (outputs, scripted solutions) both ask here,
so they agree."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from crab_gym.web.content.places import City, Maps, Place, norm

NEAR = re.compile(r"^(?P<kind>.+?)\s+(?:near|around|in)\s+(?P<place>.+)$", re.IGNORECASE)
CODE = re.compile(r"[0-9A-Z][0-9A-Z -]{1,9}[0-9A-Z]", re.IGNORECASE)  # a postal code: 3-11 characters
SPLIT = re.compile(r"[ ,]+")


@dataclass(frozen=True)
class Answer:
    """One of: ``city`` (a postal code's, with the ``code``), ``place`` (opened at once), ``places`` (a list
    whose first row is the place the words name)."""

    code: str = ""
    city: City | None = None
    place: Place | None = None
    places: tuple[Place, ...] = field(default_factory=tuple)


def answer(maps: Maps, query: str) -> Answer:
    """What a search for ``query`` shows: a postal code's city; a place when the words name a listed place or
    a city exactly, or match nothing else (then the maps make it a landmark); else a list of places."""
    query = " ".join(query.split())
    if postal := split_postal(maps, query):
        city = postal_city(maps, *postal)
        if city is not None:
            return Answer(code=postal[0].upper(), city=city)
    if near := NEAR.match(query):
        hits = maps.nearby(near["place"], near["kind"])
        if hits:
            return Answer(places=tuple(hits))
    exact = [p for p in maps.places if norm(p.name) == norm(query)]
    if exact or maps.city(query):
        return Answer(place=exact[0] if exact else maps.find(query))
    named = maps.find(query)
    hits = [p for p in maps.search(query) if p.id != named.id]
    return Answer(places=(named, *hits)) if hits else Answer(place=named)


def country_of(maps: Maps, text: str) -> str | None:
    """The maps' country that ``text`` names (exactly, by its start, or spelt close to it), or None."""
    countries = sorted({c.country for c in maps.cities})
    key = norm(text)
    if not key:
        return None
    by_norm = {norm(c): c for c in countries}
    if key in by_norm:
        return by_norm[key]
    starts = [c for n, c in by_norm.items() if n.startswith(key) or key.startswith(n)]
    if len(starts) == 1:
        return starts[0]
    close = difflib.get_close_matches(key, list(by_norm), n=1, cutoff=0.8)
    return by_norm[close[0]] if close else None


def split_postal(maps: Maps, query: str) -> tuple[str, str] | None:
    """``query`` read as "CODE COUNTRY" ("63002 South Korea", "SW1A 1AA, United Kingdom"): the split whose
    rest names a country exactly, else one whose rest names it loosely; None when no split does."""
    loose = None
    for gap in SPLIT.finditer(query):
        code, country = query[: gap.start()], query[gap.end() :]
        if not (CODE.fullmatch(code) and any(ch.isdigit() for ch in code) and country):
            continue
        if norm(country) in {norm(c.country) for c in maps.cities}:
            return code, country
        if loose is None and country_of(maps, country) is not None:
            loose = code, country
    return loose


def postal_city(maps: Maps, code: object, country: str) -> City | None:
    """The city of postal code ``code`` in ``country`` (as country_of reads it), or None."""
    name = country_of(maps, country)
    return None if name is None else maps.city_for_postal(str(code), name)

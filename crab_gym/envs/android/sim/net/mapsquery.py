"""What a Maps search for a postal code means: the country as the maps name it (a typed name may be
misspelt or an adjective: "Columbia", "German"), then the city the code belongs to there. The Maps app and
the Maps templates' outputs both ask here, so they agree."""

from __future__ import annotations

import difflib

from crab_gym.web.content.places import City, Maps, norm


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


def postal_city(maps: Maps, code: object, country: str) -> City | None:
    """The city of postal code ``code`` in ``country`` (as country_of reads it), or None."""
    name = country_of(maps, country)
    return None if name is None else maps.city_for_postal(str(code), name)

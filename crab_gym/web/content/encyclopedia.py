"""The encyclopedia's content: a page per country (capital, population, area, continent, currency)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .places import norm

# (country, capital, continent, currency, population in millions (rough), area in thousand km2 (rough))
COUNTRIES: tuple[tuple[str, str, str, str, float, float], ...] = (
    ("Japan", "Tokyo", "Asia", "yen", 124.5, 377.9),
    ("India", "New Delhi", "Asia", "rupee", 1420.0, 3287.0),
    ("China", "Beijing", "Asia", "renminbi", 1410.0, 9597.0),
    ("Indonesia", "Jakarta", "Asia", "rupiah", 277.5, 1905.0),
    ("Singapore", "Singapore", "Asia", "Singapore dollar", 5.9, 0.73),
    ("Saudi Arabia", "Riyadh", "Asia", "riyal", 36.9, 2150.0),
    ("Germany", "Berlin", "Europe", "euro", 84.4, 357.6),
    ("France", "Paris", "Europe", "euro", 68.2, 551.7),
    ("United Kingdom", "London", "Europe", "pound sterling", 67.7, 242.5),
    ("Switzerland", "Bern", "Europe", "Swiss franc", 8.8, 41.3),
    ("Hungary", "Budapest", "Europe", "forint", 9.6, 93.0),
    ("Italy", "Rome", "Europe", "euro", 58.9, 301.3),
    ("Spain", "Madrid", "Europe", "euro", 48.3, 506.0),
    ("Norway", "Oslo", "Europe", "Norwegian krone", 5.5, 385.2),
    ("Iceland", "Reykjavik", "Europe", "Icelandic krona", 0.39, 103.0),
    ("South Korea", "Seoul", "Asia", "won", 51.7, 100.4),
    ("Chile", "Santiago", "South America", "Chilean peso", 19.6, 756.1),
    ("Ethiopia", "Addis Ababa", "Africa", "birr", 126.5, 1104.3),
    ("Kenya", "Nairobi", "Africa", "Kenyan shilling", 55.1, 580.4),
    ("Egypt", "Cairo", "Africa", "Egyptian pound", 112.7, 1010.4),
    ("Nigeria", "Abuja", "Africa", "naira", 223.8, 923.8),
    ("United States", "Washington, D.C.", "North America", "US dollar", 334.9, 9833.5),
    ("Canada", "Ottawa", "North America", "Canadian dollar", 40.1, 9985.0),
    ("Mexico", "Mexico City", "North America", "peso", 128.5, 1972.6),
    ("Colombia", "Bogota", "South America", "Colombian peso", 52.2, 1141.7),
    ("Brazil", "Brasilia", "South America", "real", 216.4, 8515.8),
    ("Argentina", "Buenos Aires", "South America", "Argentine peso", 46.7, 2780.4),
    ("Australia", "Canberra", "Oceania", "Australian dollar", 26.6, 7692.0),
    ("New Zealand", "Wellington", "Oceania", "New Zealand dollar", 5.2, 268.0),
    ("Fiji", "Suva", "Oceania", "Fijian dollar", 0.93, 18.3),
)  # fmt: skip


@dataclass(frozen=True)
class Country:
    name: str
    capital: str
    continent: str
    currency: str
    population: int  # this world's figure (seeded near the real one): the page shows it, the oracle reads it
    area_km2: int

    @property
    def slug(self) -> str:
        return self.name.replace(" ", "_")

    @property
    def url(self) -> str:
        return f"https://en.wikipedia.org/wiki/{self.slug}"


class Encyclopedia:
    """``Encyclopedia(seed).countries`` and ``.country(name)`` (by name or page slug, case ignored)."""

    def __init__(self, seed: int = 0) -> None:
        out = []
        for name, capital, continent, currency, pop_m, area_k in COUNTRIES:
            rng = random.Random(f"{seed}:country:{name}")
            population = round(pop_m * 1e6 * rng.uniform(0.97, 1.03) / 1000) * 1000
            out.append(Country(name, capital, continent, currency, int(population), round(area_k * 1000)))
        self.countries: tuple[Country, ...] = tuple(out)

    def country(self, name: str) -> Country | None:
        key = norm(name.replace("_", " "))
        return next((c for c in self.countries if norm(c.name) == key), None)

    def search(self, query: str) -> list[Country]:
        """Countries whose page holds every word of ``query`` (its name, capital, continent, currency or a
        field's label, so "capital of Japan" finds Japan); words like "of" and "what is" are skipped."""
        words = [w for w in norm(query).split() if w not in _SKIPPED]
        text = {
            c.name: norm(f"{c.name} {c.capital} {c.continent} {c.currency} {_FIELDS}").split()
            for c in self.countries
        }
        return [c for c in self.countries if words and all(w in text[c.name] for w in words)]


_FIELDS = "country capital city population area continent currency"
_SKIPPED = frozenset("a an the of in is s what which".split())


@cache
def _world0() -> Encyclopedia:
    return Encyclopedia(0)


def countries(knows: Callable[[str], object] | None = None) -> tuple[Country, ...]:
    """The encyclopedia's countries (their names, capitals and currencies are the same in every seed's
    world); with ``knows``, those whose capital it answers truthy for (the world clock's ``city_named``)."""
    return tuple(c for c in _world0().countries if knows is None or knows(c.capital))


def fact(name: str, knows: Callable[[str], object] | None = None) -> Country:
    """The country ``name`` (by name or page slug) among ``countries(knows)``; ValueError if not there."""
    found = _world0().country(name)
    if found is None or (knows is not None and not knows(found.capital)):
        raise ValueError(
            f"no encyclopedia page for {name!r}" if found is None else f"{name!r}: capital unknown here"
        )
    return found

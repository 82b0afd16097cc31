"""The maps content: cities, places with addresses and postal codes, routes with distances, share URLs.

This is the API the maps site (desktop) and the phone's Maps app both build on; keep it stable. Everything
is a pure function of the seed and the names asked for: a place name the world does not list (a task file
may name any place) is resolved to a place made from that name, the same one every time, so the oracle and
the sites always agree.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import dataclass
from functools import cached_property

# (city, country, latitude, longitude, postal format): real cities; '9' is a digit, 'A' a capital letter.
CITIES: tuple[tuple[str, str, float, float, str], ...] = (
    ("London", "United Kingdom", 51.507, -0.128, "AA9 9AA"),
    ("Oxford", "United Kingdom", 51.752, -1.258, "AA9 9AA"),
    ("Munich", "Germany", 48.137, 11.575, "99999"),
    ("Berlin", "Germany", 52.520, 13.405, "99999"),
    ("Zurich", "Switzerland", 47.377, 8.541, "9999"),
    ("Geneva", "Switzerland", 46.204, 6.143, "9999"),
    ("Budapest", "Hungary", 47.498, 19.040, "9999"),
    ("Paris", "France", 48.857, 2.352, "99999"),
    ("Tokyo", "Japan", 35.690, 139.692, "999-9999"),
    ("Osaka", "Japan", 34.694, 135.502, "999-9999"),
    ("Kyoto", "Japan", 35.012, 135.768, "999-9999"),
    ("Bangalore", "India", 12.972, 77.595, "999999"),
    ("Mumbai", "India", 19.076, 72.878, "999999"),
    ("Delhi", "India", 28.704, 77.102, "999999"),
    ("Bogota", "Colombia", 4.711, -74.072, "999999"),
    ("Medellin", "Colombia", 6.244, -75.581, "999999"),
    ("Singapore", "Singapore", 1.352, 103.820, "999999"),
    ("Shenzhen", "China", 22.543, 114.058, "999999"),
    ("Beijing", "China", 39.904, 116.407, "999999"),
    ("Jakarta", "Indonesia", -6.208, 106.846, "99999"),
    ("Thuwal", "Saudi Arabia", 22.305, 39.106, "99999"),
    ("Jeddah", "Saudi Arabia", 21.486, 39.193, "99999"),
    ("Los Angeles", "United States", 34.052, -118.244, "99999"),
    ("San Francisco", "United States", 37.775, -122.419, "99999"),
    ("New York", "United States", 40.713, -74.006, "99999"),
    ("Sydney", "Australia", -33.869, 151.209, "9999"),
    ("Toronto", "Canada", 43.653, -79.383, "A9A 9A9"),
    ("Sao Paulo", "Brazil", -23.551, -46.633, "99999-999"),
    ("Jeju", "South Korea", 33.499, 126.531, "99999"),
)

# kind -> name patterns ({w} a word, {c} the city)
KINDS: dict[str, tuple[str, ...]] = {
    "restaurant": ("{w} Kitchen", "The {w} Table", "{w} Bistro"),
    "coffee shop": ("{w} Coffee", "Cafe {w}", "{w} Roasters"),
    "park": ("{w} Park", "{c} {w} Park"),
    "garden": ("{w} Garden", "{c} Botanical Garden"),
    "hiking trail": ("{w} Ridge Trail", "{w} Valley Trail"),
    "amusement park": ("{w} World", "{w} Fun Park"),
    "museum": ("{c} Museum of {w}", "{w} Gallery"),
    "hotel": ("Hotel {w}", "{w} Inn"),
    "university": ("{c} University of {w}", "{w} Institute of Technology"),
    "supermarket": ("{w} Market", "{w} Grocers"),
}
WORDS = (
    "Amber", "Birch", "Cedar", "Delta", "Ember", "Fern", "Granite", "Harbor", "Iris", "Juniper", "Kestrel",
    "Linden", "Maple", "North Star", "Oak", "Pebble", "Quartz", "Riverside", "Sage", "Tide", "Umber",
    "Violet", "Willow", "Yarrow", "Zephyr", "Lotus", "Summit", "Lantern", "Meadow", "Orchard",
)  # fmt: skip
STREETS = (
    "High Street", "Market Road", "Station Avenue", "Park Lane", "Church Street", "River Road", "Hill Way",
    "Garden Row", "King Street", "Lake Drive", "Mill Lane", "Bridge Street",
)  # fmt: skip
ROAD_NAMES = ("motorway", "coastal road", "city route", "ring road", "old highway")
PER_KIND = 2  # places of each kind generated in each city
SHARE_HOST = "maps.app.goo.gl"


def _rng(*key: object) -> random.Random:
    return random.Random(":".join(map(str, key)))


def norm(text: str) -> str:
    """A name as lookups compare it: case, accents of ASCII punctuation and extra blanks ignored."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def _postal(fmt: str, rng: random.Random) -> str:
    return "".join(
        str(rng.randrange(10)) if ch == "9" else chr(65 + rng.randrange(26)) if ch == "A" else ch
        for ch in fmt
    )


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in km."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


@dataclass(frozen=True)
class City:
    name: str
    country: str
    lat: float
    lon: float
    postal_codes: tuple[str, ...]  # every code listed for this city (the first is its main one)


@dataclass(frozen=True)
class Place:
    id: str  # a slug, unique in the world: the maps site's URL names it
    name: str
    kind: str  # a key of KINDS; "city" for a city's centre, "landmark" for a name the world did not list
    city: str
    country: str
    street: str  # "12 Market Road"
    postal_code: str
    lat: float
    lon: float
    rating: float  # 1.0-5.0
    share_code: str  # the path of its share URL

    @property
    def address(self) -> str:
        return f"{self.street}, {self.city} {self.postal_code}, {self.country}"

    @property
    def share_url(self) -> str:
        """The short link the maps site's Share button gives (https://maps.app.goo.gl/<code>)."""
        return f"https://{SHARE_HOST}/{self.share_code}"

    @property
    def url(self) -> str:
        """The place's page on the maps site."""
        return f"https://www.google.com/maps/place/{self.id}"


@dataclass(frozen=True)
class Route:
    origin: Place
    destination: Place
    via: str  # the road's name, e.g. "motorway"
    distance_km: float  # rounded to 0.1 km, as the site shows it
    duration_min: int

    @property
    def distance_text(self) -> str:
        return f"{self.distance_km:.1f} km"


class Maps:
    """The seeded maps world: ``Maps(seed).places``, ``.find(name)``, ``.nearby(name, kind)``,
    ``.routes(a, b)``, ``.city_for_postal(code, country)``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        cities, places = [], []
        for name, country, lat, lon, fmt in CITIES:
            rng = _rng(seed, "city", name)
            codes = tuple(dict.fromkeys(_postal(fmt, rng) for _ in range(4)))
            cities.append(City(name, country, lat, lon, codes))
        self.cities: tuple[City, ...] = tuple(cities)
        for city in self.cities:
            for kind, patterns in KINDS.items():
                rng = _rng(seed, "places", city.name, kind)
                for i in range(PER_KIND):
                    word = rng.choice(WORDS)
                    name = rng.choice(patterns).format(w=word, c=city.name)
                    places.append(self._make(name, kind, city, rng, f"{norm(city.name)}-{norm(kind)}-{i}"))
        self.places: tuple[Place, ...] = tuple(_dedupe(places))

    def _make(self, name: str, kind: str, city: City, rng: random.Random, key: str) -> Place:
        """A place near ``city``'s centre, with an address in it and one of its postal codes."""
        slug = re.sub(r"\s+", "-", norm(f"{name} {city.name}"))
        code = hashlib.sha256(f"{self.seed}:{key}:{slug}".encode()).digest()
        alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
        share = "".join(alphabet[b % len(alphabet)] for b in code[:11])
        return Place(
            id=slug,
            name=name,
            kind=kind,
            city=city.name,
            country=city.country,
            street=f"{rng.randint(1, 240)} {rng.choice(STREETS)}",
            postal_code=rng.choice(city.postal_codes),
            lat=round(city.lat + rng.uniform(-0.08, 0.08), 5),
            lon=round(city.lon + rng.uniform(-0.08, 0.08), 5),
            rating=round(rng.uniform(3.2, 4.9), 1),
            share_code=share,
        )

    @cached_property
    def _by_id(self) -> dict[str, Place]:
        return {p.id: p for p in self.places}

    @cached_property
    def _by_share(self) -> dict[str, Place]:
        return {p.share_code: p for p in self.places}

    def city(self, name: str) -> City | None:
        """The city called ``name`` (compared by norm), or None."""
        return next((c for c in self.cities if norm(c.name) == norm(name)), None)

    def by_id(self, place_id: str) -> Place | None:
        return self._by_id.get(place_id) or self._landmark_by_id(place_id)

    def by_share_code(self, code: str) -> Place | None:
        """The place a share URL's code names, or None."""
        return self._by_share.get(code) or self._landmark_by_share(code)

    def search(self, query: str, limit: int = 10) -> list[Place]:
        """Places whose name, kind, city or address holds every word of ``query``; best-rated first."""
        words = norm(query).split()
        if not words:
            return []
        hits = [
            p
            for p in self.places
            if all(w in norm(f"{p.name} {p.kind} {p.city} {p.address}").split() for w in words)
        ]
        return sorted(hits, key=lambda p: (-p.rating, p.name))[:limit]

    def find(self, name: str) -> Place:
        """The place called ``name``: a listed place, a city (its centre), or else a landmark made from the
        name (in the city the name mentions, else in one chosen by the name), the same one every time."""
        key = norm(name)
        for p in self.places:
            if norm(p.name) == key or norm(f"{p.name} {p.city}") == key:
                return p
        if city := self.city(name):
            return self._remember(
                self._make(city.name, "city", city, _rng(self.seed, "centre", key), "centre")
            )
        return self._landmark(name)

    def _landmark(self, name: str) -> Place:
        key = norm(name)
        city = next((c for c in self.cities if norm(c.name) in key.split() or norm(c.name) in key), None)
        rng = _rng(self.seed, "landmark", key)
        city = city or rng.choice(self.cities)
        return self._remember(self._make(name.strip(), "landmark", city, rng, "landmark"))

    def _remember(self, place: Place) -> Place:
        self._landmarks.setdefault(place.id, place)
        return place

    @cached_property
    def _landmarks(self) -> dict[str, Place]:  # every landmark made so far, so its URLs resolve later
        return {}

    def _landmark_by_id(self, place_id: str) -> Place | None:
        return self._landmarks.get(place_id)

    def _landmark_by_share(self, code: str) -> Place | None:
        return next((p for p in self._landmarks.values() if p.share_code == code), None)

    def nearby(self, name: str, kind: str, limit: int = 5) -> list[Place]:
        """Places of ``kind`` (compared by norm, singular or plural) closest to the place ``name`` names."""
        centre, want = self.find(name), norm(kind).removesuffix("s")
        hits = [p for p in self.places if norm(p.kind) == want or norm(p.kind) == norm(kind)]
        hits.sort(key=lambda p: haversine_km(centre.lat, centre.lon, p.lat, p.lon))
        return hits[:limit]

    def routes(self, origin: str, destination: str) -> list[Route]:
        """The driving routes between two places (by name), shortest first; empty when no road joins them
        (another continent)."""
        a, b = self.find(origin), self.find(destination)
        straight = haversine_km(a.lat, a.lon, b.lat, b.lon)
        if straight > 3000:
            return []
        rng = _rng(self.seed, "route", *sorted((a.id, b.id)))
        out = []
        for via in rng.sample(ROAD_NAMES, 3):
            km = round(max(straight, 0.3) * rng.uniform(1.12, 1.6), 1)
            out.append(Route(a, b, via, km, max(1, round(km / rng.uniform(28, 70) * 60))))
        return sorted(out, key=lambda r: (r.distance_km, r.via))

    def route(self, origin: str, destination: str) -> Route | None:
        """The shortest route between two places, or None when no road joins them."""
        return next(iter(self.routes(origin, destination)), None)

    def city_for_postal(self, code: str, country: str) -> City | None:
        """The city a postal code belongs to in ``country``: the city listing it, else (a code the world does
        not list, in that country) a city of the country chosen by the code; None for an unknown country."""
        in_country = [c for c in self.cities if norm(c.country) == norm(country)]
        if not in_country:
            return None
        key = re.sub(r"[^0-9A-Z]", "", code.upper())
        for c in in_country:
            if key in (re.sub(r"[^0-9A-Z]", "", p) for p in c.postal_codes):
                return c
        return _rng(self.seed, "postal", norm(country), key).choice(in_country)


def _dedupe(places: list[Place]) -> list[Place]:
    """Drop a place whose slug an earlier one took (two draws of the same name in one city)."""
    seen: dict[str, Place] = {}
    for p in places:
        seen.setdefault(p.id, p)
    return list(seen.values())

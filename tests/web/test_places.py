"""The maps content: the same seed gives the same world, lookups agree with what the sites will show."""

from __future__ import annotations

import re

from crab_gym.web.content.places import Maps


def test_same_seed_same_world_other_seed_other_world():
    assert Maps(3).places == Maps(3).places
    assert Maps(3).places != Maps(4).places


def test_listed_place_found_by_name_and_url():
    m = Maps(1)
    p = m.places[5]
    assert m.find(p.name.upper()) == p
    assert m.by_id(p.id) == p and m.by_share_code(p.share_code) == p
    assert re.fullmatch(r"https://maps\.app\.goo\.gl/[A-Za-z0-9]+", p.share_url)
    assert p.postal_code in p.address and p.city in p.address


def test_unlisted_name_is_a_stable_landmark_in_the_city_it_names():
    a, b = Maps(2).find("Hungarian Parliament Budapest"), Maps(2).find("hungarian parliament budapest")
    assert a.id == b.id and a.address == b.address and a.city == "Budapest" and a.kind == "landmark"
    m = Maps(2)
    lm = m.find("Somewhere Nobody Listed")
    assert m.by_share_code(lm.share_code) == lm


def test_nearby_is_of_the_kind_and_sorted_by_distance():
    m = Maps(0)
    hits = m.nearby("Munich", "coffee shops")
    assert hits and all(h.kind == "coffee shop" for h in hits) and hits[0].city == "Munich"


def test_routes_shortest_first_and_none_across_oceans():
    m = Maps(0)
    rs = m.routes("Zurich", "Munich")
    assert len(rs) == 3 and [r.distance_km for r in rs] == sorted(r.distance_km for r in rs)
    assert m.route("Zurich", "Munich") == rs[0] and rs[0].distance_km > 200
    assert m.route("Tokyo", "London") is None


def test_postal_code_maps_to_its_city_and_unknown_codes_to_a_city_of_the_country():
    m = Maps(0)
    tokyo = m.city("Tokyo")
    assert tokyo is not None
    code = tokyo.postal_codes[0]
    assert m.city_for_postal(code.replace("-", ""), "japan") == tokyo
    assert m.city_for_postal("560049", "India").country == "India"
    assert m.city_for_postal("1", "Atlantis") is None

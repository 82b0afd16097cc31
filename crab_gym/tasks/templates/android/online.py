"""Templates of the phone's online apps: Google Drive (folders), and Google Maps over the offline web's
seeded maps (places, postal codes, routes)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import SubTaskTemplate
from crab_gym.envs.android import evaluators as ev
from crab_gym.envs.android import web_evaluators as web
from crab_gym.tasks.templates.android.layout import DRAWER, FAB, FIELDS, PLATFORMS, ROWS, SAVE, step, tap
from crab_gym.web.content.places import Maps

if TYPE_CHECKING:
    from crab_gym.envs.android.sim.net import mapsquery
else:  # the simulator's modules, imported when a task is built (a desktop's task library builds none)
    mapsquery = lazy_module("crab_gym.envs.android.sim.net.mapsquery")

DRIVE = "com.google.android.apps.docs"
MAPS = "com.google.android.apps.maps"
OMNIBOX = (0.5, 0.0813)  # Maps' search box
FIRST_RESULT = (0.5, 0.45)  # the first row of Maps' results, under the map


@cache
def maps() -> Maps:
    """The maps the phone's own web serves (the web world of seed 0): where outputs come from."""
    return Maps(0)


def open_drawer_app(app: str) -> list:
    """Home, the app drawer, the app's icon."""
    return [step("press", button="home"), step("open_app_drawer"), tap(DRAWER[app])]


DRIVE_CREATE_FOLDER = SubTaskTemplate(
    id="drive_create_folder",
    description=(
        "In the Google Drive app (Drive, in the app drawer), create a new folder named '{name}' in My Drive."
    ),
    attributes={"name": "foldername"},
    evaluator=lambda name: [web.drive_folder_exists(name=name)],
    solution=lambda name: [
        *open_drawer_app("drive"),
        tap(FAB),  # New
        tap((0.5, ROWS[0])),  # Folder
        step("write_text", text=name),
        tap(SAVE),  # Create
    ],
    platforms=PLATFORMS,
    apps=(DRIVE,),
)


MAPS_FIND_ADDRESS = SubTaskTemplate(
    id="maps_find_address",
    description="In the Google Maps app (Maps, in the app drawer), find the address of {place}.",
    attributes={"place": "maps_place"},
    evaluator=lambda place: [ev.app_in_foreground(package=MAPS), web.maps_place_found(name=place)],
    solution=lambda place: [
        *open_drawer_app("maps"),
        tap(OMNIBOX),
        step("write_text", text=place),
        step("press", button="enter"),
        # a list: the place it names is first
        *([] if mapsquery.answer(maps(), place).place else [tap(FIRST_RESULT)]),
    ],
    platforms=PLATFORMS,
    apps=(MAPS,),
    output_type="text",
    output=lambda place: maps().find(place).address,
)


def _city(code: object, country: str) -> str | None:
    """The city Maps gives; None when the maps have no city in that country (nothing to hand on)."""
    city = mapsquery.postal_city(maps(), code, country)
    return city.name if city else None


MAPS_POSTAL_CITY = SubTaskTemplate(
    id="maps_postal_city",
    description=(
        "In the Google Maps app (Maps, in the app drawer), find the city of postal code {code} in {country}."
    ),
    attributes={"code": "postal_code", "country": "maps_country"},
    evaluator=lambda code, country: [
        ev.app_in_foreground(package=MAPS),
        web.maps_postal_city_found(code=str(code), country=country),
    ],
    solution=lambda code, country: [
        *open_drawer_app("maps"),
        tap(OMNIBOX),
        step("write_text", text=f"{code} {country}"),
        step("press", button="enter"),
    ],
    platforms=PLATFORMS,
    apps=(MAPS,),
    output_type="text",
    output=_city,
)


def _distance(origin: str, destination: str) -> str:
    route = maps().route(origin, destination)
    return route.distance_text if route else "no driving route"


MAPS_ROUTE_DISTANCE = SubTaskTemplate(
    id="maps_route_distance",
    description=(
        "In the Google Maps app (Maps, in the app drawer), find the distance of the shortest driving route "
        "from {origin} to {destination} (Directions: start, then destination)."
    ),
    attributes={"origin": "maps_place", "destination": "maps_place"},
    evaluator=lambda origin, destination: [
        ev.app_in_foreground(package=MAPS),
        web.maps_route_shown(origin=origin, destination=destination),
    ],
    solution=lambda origin, destination: [
        *open_drawer_app("maps"),
        tap(FAB),  # Directions
        step("write_text", text=origin),
        tap((0.5, FIELDS[1])),
        step("write_text", text=destination),
        step("press", button="enter"),
    ],
    platforms=PLATFORMS,
    apps=(MAPS,),
    output_type="text",
    output=_distance,
    accepts=lambda origin, destination: maps().route(origin, destination) is not None,  # a drivable pair
)

"""Templates over the phone's Chrome and the offline web's encyclopedia (en.wikipedia.org: a page per
country), and the Clock's world clock: read a fact on a page, then write it down in another app.

The facts used (a country's capital and currency) are the same in every web world, so an evaluator needs no
seed; the capitals asked for are cities the world clock's picker knows.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import Step, SubTaskTemplate
from crab_gym.envs.android import evaluators as ev
from crab_gym.envs.android import web_evaluators as web
from crab_gym.tasks.templates.android.chrome import CHROME, URL_BAR
from crab_gym.tasks.templates.android.communication import _sms_solution
from crab_gym.tasks.templates.android.layout import (
    DRAWER,
    FAB,
    PICKER_ROWS,
    PLATFORMS,
    SAVE,
    android,
    field,
    launch,
    step,
    tap,
)
from crab_gym.tasks.templates.android.organizer import CLOCK_TABS
from crab_gym.web.content import encyclopedia
from crab_gym.web.content.encyclopedia import Country

if TYPE_CHECKING:
    from crab_gym.envs.android.sim.apps import worldclock
else:  # the simulator's modules, imported when a task is built (a desktop's task library builds none)
    worldclock = lazy_module("crab_gym.envs.android.sim.apps.worldclock")

CLOCK = "com.google.android.deskclock"
CITY_ROWS = tuple(0.3 + i * 0.0833 for i in range(6))  # the world clock's rows under the phone's own time


@cache
def countries() -> dict[str, Country]:
    """The encyclopedia's countries whose capital the world clock knows, by name."""
    return {c.name: c for c in encyclopedia.countries(worldclock.city_named)}


def fact(name: str) -> Country:
    return encyclopedia.fact(name, worldclock.city_named)


def open_page(name: str) -> list[Step]:
    """Home, Chrome from the app drawer, the country's page typed into the address bar."""
    return [
        step("press", button="home"),
        step("open_app_drawer"),
        tap(DRAWER["chrome"]),
        tap(URL_BAR),
        step("write_text", text=fact(name).url),
        step("press", button="enter"),
    ]


def page_path(name: str) -> str:
    return "en.wikipedia.org/wiki/" + fact(name).slug


CHROME_CAPITAL_NOTE = SubTaskTemplate(
    id="chrome_capital_note",
    description=(
        "In Chrome, open the en.wikipedia.org page of {country} and find its capital; then in Keep Notes "
        "create a note titled '{title}' whose text names that capital."
    ),
    attributes={"country": "wiki_country", "title": "word"},
    evaluator=lambda country, title: [
        web.chrome_visited(url_contains=page_path(country)),
        ev.note_exists(title=title, body_contains=fact(country).capital),
    ],
    solution=lambda country, title: [
        *open_page(country),
        *launch("keep"),
        tap(FAB),
        step("write_text", text=title),
        field(1),
        step("write_text", text=fact(country).capital),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=(CHROME, "com.google.android.keep"),
    output_type="text",
    output=lambda country, title: fact(country).capital,
)


CHROME_CURRENCY_TASK = SubTaskTemplate(
    id="chrome_currency_task",
    description=(
        "Look up {country} on en.wikipedia.org in Chrome. In the Tasks app (in the app drawer), add a to-do "
        "item whose title is just the name of {country}'s currency, as the page writes it."
    ),
    attributes={"country": "wiki_country"},
    evaluator=lambda country: [
        web.chrome_visited(url_contains=page_path(country)),
        ev.task_exists(title=fact(country).currency, done=False),
    ],
    solution=lambda country: [
        *open_page(country),
        step("press", button="home"),
        step("open_app_drawer"),
        tap(DRAWER["tasks"]),
        tap(FAB),
        step("write_text", text=fact(country).currency),
        tap(SAVE),
    ],
    platforms=PLATFORMS,
    apps=(CHROME, "com.google.android.apps.tasks"),
    output_type="text",
    output=lambda country: fact(country).currency,
)


def _search_solution(country: str, number: str) -> list[Step]:
    capital = fact(country).capital
    return [
        step("press", button="home"),
        step("open_app_drawer"),
        tap(DRAWER["chrome"]),
        tap(URL_BAR),
        step("write_text", text=f"{country} capital"),
        step("press", button="enter"),
        *open_page(country)[3:],  # the result's page, typed as its address
        *_sms_solution(number, capital),
    ]


CHROME_SEARCH_CAPITAL_SMS = SubTaskTemplate(
    id="chrome_search_capital_sms",
    description=(
        "Search the web in Chrome for the capital of {country} (type the words in the address bar), then "
        "text the capital's name to {number} with the Messages app."
    ),
    attributes={"country": "wiki_country", "number": "phone_number"},
    evaluator=lambda country, number: [
        web.chrome_visited(url_contains="www.google.com/search?q="),
        ev.sms_sent(to=number, body_contains=fact(country).capital),
    ],
    solution=_search_solution,
    platforms=PLATFORMS,
    apps=(CHROME, "com.google.android.apps.messaging"),
)


# ---- the world clock -------------------------------------------------------------------------------------


def _add_city(city: str) -> list[Step]:
    return [
        *launch("clock"),
        tap(CLOCK_TABS["clock"]),
        tap(FAB),  # the city picker, its search field focused
        step("write_text", text=city),
        tap((0.5, PICKER_ROWS[0])),
    ]


WORLDCLOCK_ADD_CAPITAL = SubTaskTemplate(
    id="worldclock_add_capital",
    description=(
        "Find the capital of {country} on its en.wikipedia.org page in Chrome, then add that city to the "
        "world clock (the Clock app's Clock tab)."
    ),
    attributes={"country": "wiki_country"},
    evaluator=lambda country: [
        web.chrome_visited(url_contains=page_path(country)),
        ev.world_clock_has(city=worldclock.city_named(fact(country).capital) or ""),
    ],
    solution=lambda country: [
        *open_page(country),
        *_add_city(worldclock.city_named(fact(country).capital) or ""),
    ],
    platforms=PLATFORMS,
    apps=(CHROME, CLOCK),
)


def _prefs(cities: list[str]) -> str:
    rows = "".join(f"<string>{html.escape(c, quote=False)}</string>" for c in cities)
    return (
        "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n"
        f'<map><set name="selected_cities">{rows}</set></map>\n'
    )


def _three_cities(envs: Mapping[str, Any], first: str, city: str, last: str) -> None:
    android(envs).write_file(ev.CLOCK_PREFS, _prefs([first, city, last]))


WORLDCLOCK_REMOVE_CITY = SubTaskTemplate(
    id="worldclock_remove_city",
    description=(
        "The Clock app's world clock shows {first}, {city} and {last}. Remove {city} from it (long-press its "
        "row) and keep the other two."
    ),
    attributes={"first": "city", "city": "city", "last": "city"},
    evaluator=lambda first, city, last: [ev.world_clock_is(cities=[first, last])],
    setup=_three_cities,
    solution=lambda first, city, last: [
        *launch("clock"),
        tap(CLOCK_TABS["clock"]),
        step("long_tap", point=(0.5, CITY_ROWS[1])),
    ],
    platforms=PLATFORMS,
    apps=(CLOCK,),
)


# ---- overview (recents) ----------------------------------------------------------------------------------
RECENTS_BUTTON = (0.8333, 0.9729)  # the navigation bar's square
CLEAR_ALL_AFTER_TWO = (0.5, 0.2292)  # overview's "Clear all", under two task cards


RECENT_APPS = {"Keep Notes": "com.google.android.keep", "Settings": "com.android.settings"}


def _two_apps(envs: Mapping[str, Any], first: str, second: str) -> None:
    phone = android(envs)
    phone.launch(RECENT_APPS[first])
    phone.launch(RECENT_APPS[second])


RECENTS_CLEAR_ALL = SubTaskTemplate(
    id="recents_clear_all",
    description="{first} and {second} are open. Close every app with overview's 'Clear all' (the square).",
    attributes={"first": "recent_app", "second": "recent_app"},
    evaluator=lambda first, second: [ev.no_recent_apps()],
    setup=_two_apps,
    solution=lambda first, second: [tap(RECENTS_BUTTON), tap(CLEAR_ALL_AFTER_TWO)],
    platforms=PLATFORMS,
    apps=(ev.LAUNCHER,),
)
WEB_TEMPLATES: tuple[SubTaskTemplate, ...] = (
    CHROME_CAPITAL_NOTE,
    CHROME_CURRENCY_TASK,
    CHROME_SEARCH_CAPITAL_SMS,
    WORLDCLOCK_ADD_CAPITAL,
    WORLDCLOCK_REMOVE_CITY,
    RECENTS_CLEAR_ALL,
)

"""Templates of the phone's Chrome on the offline web: searches typed into the address bar, checked in
Chrome's History database (the search URL it loaded)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote_plus

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import SubTaskTemplate
from crab_gym.envs.android import evaluators as ev
from crab_gym.envs.android import web_evaluators as web
from crab_gym.tasks.templates.android.layout import PLATFORMS, step, tap
from crab_gym.tasks.templates.android.online import open_drawer_app

if TYPE_CHECKING:
    from crab_gym.envs.android.sim.apps import chrome
else:  # the simulator's modules, imported when a task is built (a desktop's task library builds none)
    chrome = lazy_module("crab_gym.envs.android.sim.apps.chrome")

CHROME = "com.android.chrome"
URL_BAR = (0.5, 0.0813)  # Chrome's address bar, under the status bar


CHROME_SEARCH = SubTaskTemplate(
    id="chrome_search",
    description="Open Chrome (in the app drawer) and search the web for the place '{place}'.",
    attributes={"place": "maps_place"},
    evaluator=lambda place: [
        ev.app_in_foreground(package=CHROME),
        web.chrome_visited(url_contains=chrome.SEARCH + quote_plus(place)),
    ],
    solution=lambda place: [
        *open_drawer_app("chrome"),
        tap(URL_BAR),
        step("write_text", text=place),
        step("press", button="enter"),
    ],
    platforms=PLATFORMS,
    apps=(CHROME,),
)


CHROME_OPEN_SITE = SubTaskTemplate(
    id="chrome_open_site",
    description="On the phone, load the site {host} in Chrome (it's in the app drawer).",
    attributes={"host": "web_host"},
    evaluator=lambda host: [
        ev.app_in_foreground(package=CHROME),
        web.chrome_visited(url_contains=f"https://{host}"),
    ],
    solution=lambda host: [
        *open_drawer_app("chrome"),
        tap(URL_BAR),
        step("write_text", text=host),
        step("press", button="enter"),
    ],
    platforms=PLATFORMS,
    apps=(CHROME,),
)

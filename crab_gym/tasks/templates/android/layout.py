"""The simulated phone's layout as normalised tap points (at 1080x2400, so they hold at any size of the same
aspect), and the step builders the android templates share.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import Step

if TYPE_CHECKING:
    from crab_gym.envs.android.sim.apps import calendar
else:  # the simulator's modules, imported when a task is built (a desktop's task library builds none)
    calendar = lazy_module("crab_gym.envs.android.sim.apps.calendar")

ENV = "android"
PHONE_YEAR = 2024  # the year of the simulated phone's clock (its "now" is 2024-03-15)
PLATFORMS = ("android",)

# ---- the layout (normalised points on the simulated phone) -----------------------------------------------
HOME = {
    "calendar": (0.125, 0.3167),
    "clock": (0.375, 0.3167),
    "keep": (0.625, 0.3167),
    "phone": (0.1, 0.775),
    "messages": (0.3, 0.775),
    "contacts": (0.5, 0.775),
    "settings": (0.7, 0.775),
    "camera": (0.9, 0.775),
    "gmail": (0.875, 0.3167),
}
# The app drawer: every app but the launcher, by label, four to a row (sim/apps/launcher.py).
DRAWER_APPS = (
    *("calendar", "camera", "chrome", "clock", "contacts", "drive", "files"),
    *("gmail", "keep", "maps", "messages", "phone", "settings", "tasks"),
)
DRAWER = {app: (0.125 + (i % 4) * 0.25, 0.2083 + (i // 4) * 0.125) for i, app in enumerate(DRAWER_APPS)}
FAB = (0.848, 0.8775)  # the round "+" button at the bottom right of list screens
SAVE = (0.867, 0.0808)  # "Save" at the right of an editor's app bar
FIELDS = (0.1525, 0.2258, 0.2992, 0.3725, 0.4458)  # y of an editor's 1st..5th text field
ROWS = tuple(0.1575 + i * 0.0833 for i in range(9))  # y of list rows under an app bar
SWITCH = (0.875, 0.1533)  # the first switch of a settings page
SDCARD_DOWNLOAD_ROW = 4  # /sdcard: Alarms, Android, DCIM, Documents, Download, ...
SEEDED_TASKS = 3
NETWORK_SWITCHES = {"wifi": (0.875, 0.1533), "mobile_data": (0.875, 0.2283), "airplane": (0.875, 0.3033)}


def step(action: str, **params: Any) -> Step:
    return Step(ENV, action, params)


def tap(point: tuple[float, float]) -> Step:
    return step("tap", point=point)


def launch(app: str) -> list[Step]:
    """Go to the home screen (a previous sub-task may have left an app open) and tap the app's icon."""
    return [step("press", button="home"), tap(HOME[app])]


def field(i: int) -> Step:
    return tap((0.5, FIELDS[i]))


def android(envs: Mapping[str, Any]) -> Any:
    return envs[ENV]


# ---- added for the find-something templates (CRAB v0's phone sub-tasks) ---------------------------------
ACTION = SAVE  # the single action of an app bar (Contacts' "Search", Settings' "Rename") sits where Save does
SEARCH_ROWS = tuple(0.22875 + i * 0.0792 for i in range(8))  # y of Contacts' rows under a search field
PICKER_ROWS = tuple(0.2308 + i * 0.0833 for i in range(8))  # y of list rows under a search field
ALL_DAY = (0.5, 0.52)  # the calendar editor's All-day switch, under its five fields
SEEDED_EVENTS = 4  # the seeded events fall in the week after the phone's "now" (2024-03-15)
BLUETOOTH_NAME_ROW = (0.5, 0.2325)  # "Device name" under the Bluetooth switch
SDCARD = ("Alarms", "Android", "DCIM", "Documents", "Download", "Movies", "Music", "Pictures")


def day_of(text: str) -> dt.date:
    """A date as CRAB writes it ('1 January 2025', '05 June 2024', 'May 28': the phone's year) or ISO."""
    try:
        return calendar.parse_day(text)
    except ValueError:
        for f in ("%B %d", "%b %d", "%d %B", "%d %b"):
            try:
                return dt.datetime.strptime(f"{' '.join(text.split())} {PHONE_YEAR}", f + " %Y").date()
            except ValueError:
                continue
    raise ValueError(f"not a date: {text!r}")


def sdcard_path(path: str) -> str:
    """CRAB's phone paths are relative to the shared storage ('/Movies/a.txt', 'Download/b.webp')."""
    if path.startswith(("/sdcard/", "/storage/")):
        return path
    return "/sdcard/" + path.lstrip("/")

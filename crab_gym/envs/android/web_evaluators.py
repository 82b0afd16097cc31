"""Checks of the phone's online apps (Drive, Chrome, Maps), written as ``sqlite3`` queries of each app's own
database at its Android path, as :mod:`crab_gym.envs.android.evaluators` reads Keep or Tasks, and of the
clipboard their copy actions fill (``dumpsys clipboard``). Text comparisons ignore case and surrounding
whitespace."""

from __future__ import annotations

import re

from crab_gym.core.evaluators import evaluator
from crab_gym.envs.android.evaluators import _has, _same
from crab_gym.envs.android.state import AndroidState

ENV = "android"

DRIVE_DB = "/data/data/com.google.android.apps.docs/databases/DocList.db"
MAPS_DB = "/data/data/com.google.android.apps.maps/databases/gmm_myplaces.db"
CHROME_HISTORY = "/data/data/com.android.chrome/app_chrome/Default/History"
_CLIP = re.compile(r"mPrimaryClip=ClipData \{ \S+ \"[^\"]*\" \{T\(\d+\):(.*)\} \}$", re.S)
FOLDER_MIME = "application/vnd.google-apps.folder"


@evaluator(env=ENV)
def drive_folder_exists(state: AndroidState, name: str) -> bool:
    """a folder named {name!r} is in the phone's Google Drive (not in the trash)"""
    rows = state.sqlite(
        DRIVE_DB, f"SELECT title FROM entries WHERE trashed = 0 AND mime_type = '{FOLDER_MIME}'"
    )
    return any(_same(t, name) for t, *_ in rows)


@evaluator(env=ENV)
def drive_file_exists(state: AndroidState, name: str) -> bool:
    """a file named {name!r} is in the phone's Google Drive (not in the trash)"""
    rows = state.sqlite(
        DRIVE_DB, f"SELECT title FROM entries WHERE trashed = 0 AND mime_type != '{FOLDER_MIME}'"
    )
    return any(_same(t, name) for t, *_ in rows)


@evaluator(env=ENV)
def maps_place_found(state: AndroidState, name: str) -> bool:
    """Google Maps showed the place {name!r} with its address"""
    rows = state.sqlite(MAPS_DB, "SELECT query, result, address FROM searches")
    return any((_same(q, name) or _same(r, name)) and a for q, r, a, *_ in rows)


def _code(text: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", str(text).upper())


@evaluator(env=ENV)
def maps_postal_city_found(state: AndroidState, code: str, country: str) -> bool:
    """Google Maps found the city of postal code {code} in {country}"""
    rows = state.sqlite(MAPS_DB, "SELECT query, result, address FROM searches")
    # a postal answer shows "CODE, City, Country" (a place's address does not start with the code)
    return any(
        _code(code) in _code(q) and _has(q, country) and r and _code(a).startswith(_code(code))
        for q, r, a, *_ in rows
    )


@evaluator(env=ENV)
def maps_route_shown(state: AndroidState, origin: str, destination: str) -> bool:
    """Google Maps showed the driving routes from {origin!r} to {destination!r}"""
    rows = state.sqlite(MAPS_DB, "SELECT origin, destination FROM directions")
    return any(_same(o, origin) and _same(d, destination) for o, d, *_ in rows)


@evaluator(env=ENV)
def chrome_visited(state: AndroidState, url_contains: str) -> bool:
    """Chrome loaded a page whose URL contains {url_contains!r}"""
    rows = state.sqlite(CHROME_HISTORY, "SELECT url FROM urls")
    return any(_has(u, url_contains) for u, *_ in rows)


def clipboard_text(state: AndroidState) -> str:
    """The phone's primary clip (``dumpsys clipboard``), "" when it is empty."""
    m = _CLIP.search(state.out("dumpsys clipboard").rstrip("\n"))
    return m.group(1) if m else ""


@evaluator(env=ENV)
def phone_clipboard_contains(state: AndroidState, text: str) -> bool:
    """the phone's clipboard holds {text!r}"""
    return _has(clipboard_text(state), text)


__all__ = [
    "chrome_visited",
    "clipboard_text",
    "drive_file_exists",
    "drive_folder_exists",
    "maps_place_found",
    "maps_postal_city_found",
    "maps_route_shown",
    "phone_clipboard_contains",
]

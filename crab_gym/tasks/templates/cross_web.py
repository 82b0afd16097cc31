"""Cross-device templates over the offline web: a fact read in a browser on one device is written down on the
other (phone Chrome -> a desktop file; desktop Chromium -> a phone note). Each has a check on both devices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import Step, SubTaskTemplate, get_template, register
from crab_gym.envs.android import evaluators as phone
from crab_gym.envs.android import web_evaluators as phone_web
from crab_gym.tasks.templates.android.chrome import CHROME
from crab_gym.tasks.templates.android.web import open_page, page_path
from crab_gym.tasks.templates.desktop.browser import chromium_to, write_line
from crab_gym.web.content.encyclopedia import fact

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as desk
else:
    desk = lazy_module("crab_gym.envs.desktop.evaluators")

PLATFORMS = ("ubuntu", "android")
KEEP = "com.google.android.keep"

CROSS_PHONE_WEB_TO_FILE = register(
    SubTaskTemplate(
        id="cross_phone_web_capital_to_file",
        description=(
            "On the phone, open the en.wikipedia.org page of {country} in Chrome; then on the desktop save "
            "the capital it names as the only line of {path}."
        ),
        attributes={"country": "wiki_country", "path": "path.txt"},
        evaluator=lambda country, path: [
            phone_web.chrome_visited(url_contains=page_path(country)),
            desk.file_equals(path=path, text=fact(country).capital),
        ],
        solution=lambda country, path: [*open_page(country), *write_line(path, fact(country).capital)],
        platforms=PLATFORMS,
        apps=(CHROME, "terminal"),
        output_type="path",
        output=lambda country, path: path,
    )
)


def _note(title: str, body: str) -> list[Step]:
    return get_template("notes_create").solution(title=title, body=body)


CROSS_DESKTOP_WEB_TO_NOTE = register(
    SubTaskTemplate(
        id="cross_desktop_web_currency_to_note",
        description=(
            "Use Chromium on the desktop to find the currency of {country} on en.wikipedia.org, then on the "
            "phone create a Keep note titled '{title}' whose text names that currency."
        ),
        attributes={"country": "wiki_country", "title": "word"},
        evaluator=lambda country, title: [
            desk.app_running(process="chromium"),
            phone.note_exists(title=title, body_contains=fact(country).currency),
        ],
        solution=lambda country, title: [
            *chromium_to(fact(country).url),
            *_note(title, fact(country).currency),
        ],
        platforms=PLATFORMS,
        apps=("chromium", KEEP),
        output_type="text",
        output=lambda country, title: fact(country).currency,
    )
)

CROSS_WEB_TEMPLATES: tuple[SubTaskTemplate, ...] = (CROSS_PHONE_WEB_TO_FILE, CROSS_DESKTOP_WEB_TO_NOTE)

"""Desktop templates in Chromium (beside Firefox ESR in every session) over the offline web's encyclopedia:
read a country's fact on its page and save it to a file. The facts asked for (capital, currency) are the same
in every web world, so a check needs no seed. Registered for v1; not in v0's sampled set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import Step, SubTaskTemplate, get_template, register
from crab_gym.tasks.templates.desktop.common import PLATFORMS, step
from crab_gym.web.content.encyclopedia import fact

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")


def chromium_to(url: str) -> list[Step]:
    """Open Chromium from the launcher and go to ``url`` (typed into the address bar)."""
    return [
        step("search_application", name="chromium"),
        step("hotkey", keys=["ctrl", "l"]),
        step("write_text", text=url + "\n"),
    ]


def write_line(path: str, text: str) -> list[Step]:
    return get_template("vim_write_file").solution(path=path, text=text)


CHROMIUM_CAPITAL_TO_FILE = register(
    SubTaskTemplate(
        id="chromium_capital_to_file",
        description=(
            "In Chromium, open the en.wikipedia.org page of {country} and save the name of its capital, as "
            "the page writes it, as the only line of the file {path}."
        ),
        attributes={"country": "wiki_country", "path": "path.txt"},
        evaluator=lambda country, path: [
            ev.app_running(process="chromium"),
            ev.file_equals(path=path, text=fact(country).capital),
        ],
        solution=lambda country, path: [
            *chromium_to(fact(country).url),
            *write_line(path, fact(country).capital),
        ],
        platforms=PLATFORMS,
        apps=("chromium", "terminal"),
        output_type="path",
        output=lambda country, path: path,
    )
)

CHROMIUM_CURRENCY_TO_FILE = register(
    SubTaskTemplate(
        id="chromium_currency_to_file",
        description=(
            "Search the web with Chromium for {country}, open its encyclopedia page and write the currency "
            "it names into {path} (just the currency, one line)."
        ),
        attributes={"country": "wiki_country", "path": "path.txt"},
        evaluator=lambda country, path: [
            ev.app_running(process="chromium"),
            ev.file_equals(path=path, text=fact(country).currency),
        ],
        solution=lambda country, path: [
            *chromium_to(f"https://www.google.com/search?q={country.replace(' ', '+')}"),
            step("hotkey", keys=["ctrl", "l"]),
            step("write_text", text=fact(country).url + "\n"),
            *write_line(path, fact(country).currency),
        ],
        platforms=PLATFORMS,
        apps=("chromium", "terminal"),
        output_type="text",
        output=lambda country, path: fact(country).currency,
    )
)

BROWSER_TEMPLATES: tuple[SubTaskTemplate, ...] = (CHROMIUM_CAPITAL_TO_FILE, CHROMIUM_CURRENCY_TO_FILE)

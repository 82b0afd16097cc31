"""LibreOffice templates: a Writer document, a Calc sum and Impress slides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crab_gym.core.lazy import lazy_module
from crab_gym.core.tasks import V0_SETS, Step, SubTaskTemplate
from crab_gym.tasks.templates.desktop.common import (
    PLATFORMS,
    save_as,
    step,
)

if TYPE_CHECKING:  # imported when a desktop task is built: a phone-only process never loads it
    from crab_gym.envs.desktop import evaluators as ev
else:
    ev = lazy_module("crab_gym.envs.desktop.evaluators")

# ---- LibreOffice ----------------------------------------------------------------------------------


WRITER_CREATE_DOCUMENT = SubTaskTemplate(
    id="writer_create_document",
    sets=V0_SETS,
    description=(
        "Using LibreOffice Writer, write a document whose first line is the title '{title}' followed by "
        "the sentence '{body}', and save it in OpenDocument format as {path}."
    ),
    attributes={"path": "path.odt", "title": "text", "body": "text"},
    evaluator=lambda path, title, body: [
        ev.file_exists(path=path),
        ev.document_contains(path=path, text=title),
        ev.document_contains(path=path, text=body),
    ],
    solution=lambda path, title, body: [
        step("search_application", name="writer"),
        step("write_text", text=f"{title}\n{body}"),
        *save_as(path),
    ],
    platforms=PLATFORMS,
    apps=("writer",),
    output_type="path",
    output=lambda path, title, body: path,
    inputs=("body",),
)


def _calc_graph(path: str, header: str, a: int, b: int, c: int) -> list[Any]:
    values = ev.spreadsheet_cell(path=path, ref="A1", value=header)
    for ref, v in (("A2", a), ("A3", b), ("A4", c)):
        values = values & ev.spreadsheet_cell(path=path, ref=ref, value=str(v))
    return [ev.file_exists(path=path), values, ev.spreadsheet_cell(path=path, ref="A5", value=str(a + b + c))]


CALC_SUM_COLUMN = SubTaskTemplate(
    id="calc_sum_column",
    sets=V0_SETS,
    description=(
        "Using LibreOffice Calc, make a spreadsheet with '{header}' in cell A1, the numbers {a}, {b} and "
        "{c} in cells A2 to A4, and their sum (a formula) in cell A5; save it in OpenDocument format as "
        "{path}."
    ),
    attributes={"path": "path.ods", "header": "word", "a": "number", "b": "number", "c": "number"},
    evaluator=_calc_graph,
    solution=lambda path, header, a, b, c: [
        step("search_application", name="calc"),
        step("write_text", text=f"{header}\n{a}\n{b}\n{c}\n=SUM(A2:A4)\n"),
        *save_as(path),
    ],
    platforms=PLATFORMS,
    apps=("calc",),
    output_type="path",
    output=lambda path, header, a, b, c: path,
)


def _impress_title(title: str) -> list[Step]:
    # Tab selects the slide's first placeholder (the title), Enter edits it, Esc twice leaves it.
    return [
        step("press", key="tab"),
        step("press", key="enter"),
        step("write_text", text=title),
        step("press", key="esc"),
        step("press", key="esc"),
    ]


IMPRESS_CREATE_SLIDES = SubTaskTemplate(
    id="impress_create_slides",
    sets=V0_SETS,
    description=(
        "Using LibreOffice Impress, make a presentation of two slides titled '{first_title}' and "
        "'{second_title}', in that order, and save it in OpenDocument format as {path}."
    ),
    attributes={"path": "path.odp", "first_title": "text", "second_title": "text"},
    evaluator=lambda path, first_title, second_title: [
        ev.file_exists(path=path),
        ev.presentation_slides(path=path, titles=[first_title, second_title]),
    ],
    solution=lambda path, first_title, second_title: [
        step("search_application", name="impress"),
        step("press", key="esc"),  # the "Select a Template" dialog: keep the blank presentation
        *_impress_title(first_title),
        step("hotkey", keys=["ctrl", "m"]),  # new slide (Title, Content)
        *_impress_title(second_title),
        *save_as(path),
    ],
    platforms=PLATFORMS,
    apps=("impress",),
    output_type="path",
    output=lambda path, first_title, second_title: path,
    inputs=("second_title",),
)

"""The parts of a Google-style docstring an action is described by: its description and its ``Args:``.

The same reading as docstring_parser's Google style (tests/core/test_core_docstrings.py compares them over
every action of crab_gym), without importing that package's five parsers: a phone's cold start parses ten
docstrings and spent ~5 ms importing them.
"""

from __future__ import annotations

import inspect
import re

# Google-style section titles, each alone on its line with a colon; the first one ends the description
SECTIONS = (
    "Arguments", "Args", "Parameters", "Params", "Raises", "Exceptions", "Except", "Attributes",
    "Example", "Examples", "Returns", "Yields",
)  # fmt: skip
PARAMS = frozenset({"Arguments", "Args", "Parameters", "Params", "Attributes"})  # what lists parameters
_TITLE = re.compile(r"^(" + "|".join(SECTIONS) + r"):[ \t\r\f\v]*$", re.M)
_TYPED = re.compile(r"\s*(.+?)\s*\(\s*(.*[^\s]+)\s*\)")  # "name (type)"
_UNINDENTED = re.compile(r"\n\S")


def parse(doc: str) -> tuple[str, dict[str, str]]:
    """The description (the summary line, a blank line, the rest before the first section) and each
    parameter's description under ``Args:`` (or its synonyms, and ``Attributes:``); ValueError for an
    entry without a colon or a section without entries."""
    text = inspect.cleandoc(doc)
    titles = list(_TITLE.finditer(text))
    head = text[: titles[0].start()] if titles else text
    summary, _, rest = head.partition("\n")
    description = "\n\n".join(part for part in (summary, rest.strip()) if part)
    sections: dict[str, str] = {}  # by title: a repeated one counts once, its last body
    for k, found in enumerate(titles):
        end = titles[k + 1].start() if k + 1 < len(titles) else len(text)
        body = text[found.end() : end]
        unindented = _UNINDENTED.search(body)  # a line at the margin ends the section
        sections[found.group(1)] = (body[: unindented.start()] if unindented else body).strip("\n")
    args: dict[str, str] = {}
    for title, chunk in sections.items():
        if title not in PARAMS:
            continue
        indent = chunk[: len(chunk) - len(chunk.lstrip())]
        entries = list(re.finditer("^" + indent + r"(?=\S)", chunk, flags=re.M))  # lines at that indent
        if not entries:
            raise ValueError(f"no parameter under {title}:")
        for k, entry in enumerate(entries):
            stop = entries[k + 1].start() if k + 1 < len(entries) else len(chunk)
            name, desc = _entry(chunk[entry.end() : stop].strip("\n"))
            args[name] = desc
    return description, args


def _entry(part: str) -> tuple[str, str]:
    """``name (type): description`` -> (name, description), continuation lines dedented."""
    if ":" not in part:
        raise ValueError(f"expected 'name: description' in {part!r}")
    before, desc = part.split(":", 1)
    if "\n" in before:
        first, rest = before.split("\n", 1)
        before = first + inspect.cleandoc(rest)
    if desc:
        desc = desc[1:] if desc[0] == " " else desc
        if "\n" in desc:
            first, rest = desc.split("\n", 1)
            desc = first + "\n" + inspect.cleandoc(rest)
        desc = desc.strip("\n")
    typed = _TYPED.match(before)
    return (typed.group(1) if typed else before), desc

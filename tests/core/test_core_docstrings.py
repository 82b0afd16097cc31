"""crab_gym.core.docstrings reads an action's docstring as docstring_parser's Google style does: the same
description and parameter descriptions for every @action of crab_gym, and for the section shapes it knows."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from crab_gym.core.docstrings import parse

docstring_parser = pytest.importorskip("docstring_parser")  # the reference (a test dependency)

PACKAGE = Path(__file__).resolve().parents[2] / "crab_gym"


def _reference(doc: str) -> tuple[str, dict[str, str]]:
    """What core.actions read before: docstring_parser's Google style."""
    d = docstring_parser.parse(doc, style=docstring_parser.DocstringStyle.GOOGLE)
    description = "\n\n".join(part for part in (d.short_description, d.long_description) if part)
    return description, {p.arg_name: p.description or "" for p in d.params}


def _is_action(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Name) and target.id == "action"


def _action_docstrings() -> list[tuple[str, str]]:
    """(where, docstring) of every function crab_gym decorates with ``@action``, as ``fn.__doc__`` has it."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef) and any(_is_action(d) for d in node.decorator_list):
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    found.append((f"{path.relative_to(PACKAGE)}:{node.name}", doc))
    return found


def test_every_action_of_crab_gym_reads_as_docstring_parser_reads_it():
    docs = _action_docstrings()
    assert len(docs) > 25  # the phone's, the desktop's, their API actions and the root's
    differ = [where for where, doc in docs if parse(doc) != _reference(doc)]
    assert differ == []


SHAPES = {
    "summary only": "Press home.",
    "long description": """Tap.

        Taps once, then waits.
        Then settles.
        """,
    "typed args, continuation lines, other sections": """Scroll the list.

        Args:
            direction (str): Which way:
                up or down.
            distance (int, optional): How far. Defaults to 3.

        Returns:
            Nothing.

        Raises:
            ValueError: never.
        """,
    "an unindented line ends the section": """Type.

    Args:
        text: The text.
    Note that this line is at the margin.
    """,
    "Attributes count as parameters": """Pick.

        Attributes:
            item: The item.
        """,
    "a repeated section counts its last body": """Go.

        Args:
            a: First.

        Args:
            b: Second.
        """,
    "a title without a colon is text": """Go.

        Args
            not a section
        """,
}


@pytest.mark.parametrize("doc", SHAPES.values(), ids=list(SHAPES))
def test_docstring_shapes_read_as_docstring_parser_reads_them(doc: str):
    assert parse(doc) == _reference(doc)


@pytest.mark.parametrize(
    "doc", ["Go.\n\n    Args:\n        no colon here\n", "Go.\n\n    Args:\n\n    Returns:\n        x\n"]
)
def test_an_args_section_that_is_not_name_colon_lines_is_refused(doc: str):
    with pytest.raises(ValueError):
        parse(doc)
    with pytest.raises(docstring_parser.ParseError):
        docstring_parser.parse(doc, style=docstring_parser.DocstringStyle.GOOGLE)

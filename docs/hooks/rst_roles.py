"""MkDocs hook: the docstrings use Sphinx roles (:class:`~pkg.Name`); show them as plain code (`Name`)."""

from __future__ import annotations

import re
from typing import Any

# After Markdown, ":class:`~a.b.C`" is ":class:<code>~a.b.C</code>".
_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):<code>(~?)([^<]*)</code>")


def _plain(m: re.Match[str]) -> str:
    name = m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)
    return f"<code>{name}</code>"


def on_page_content(html: str, **_: Any) -> str:
    """Drop the role markers from a rendered page (the API reference pages carry them)."""
    return _ROLE.sub(_plain, html)

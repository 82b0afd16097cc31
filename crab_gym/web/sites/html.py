"""The page frame every site shares: plain HTML with a header, a search form and a body, no scripts."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from starlette.responses import HTMLResponse

STYLE = (
    "body{font-family:sans-serif;margin:0;color:#202124}"
    "header{padding:12px 24px;border-bottom:1px solid #ddd;"
    "display:flex;gap:16px;align-items:center}main{padding:16px 24px;max-width:960px}"
    "a{color:#1a0dab}input[type=text]{width:420px;padding:6px}.hit{margin:14px 0}.muted{color:#70757a}"
    "pre{background:#f6f8fa;padding:12px;overflow:auto}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 10px;text-align:left}img{border:1px solid #ddd}"
)


def e(text: object) -> str:
    return escape(str(text), quote=True)


def q(text: str) -> str:
    """A path segment or query value, percent-encoded."""
    return quote(text, safe="")


def page(
    title: str,
    body: str,
    *,
    brand: str,
    search_action: str,
    query: str = "",
    name: str = "q",
    hidden: str = "",
) -> HTMLResponse:
    """A whole page: ``title`` (the window title shows it), the site's brand and search form (plus the
    ``hidden`` inputs), then ``body``."""
    form = (
        f'<form action="{e(search_action)}" method="get" role="search">'
        f'<input type="text" name="{e(name)}" value="{e(query)}" aria-label="Search" autocomplete="off">'
        f'{hidden}<button type="submit">Search</button></form>'
    )
    html = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
        f"<style>{STYLE}</style></head><body><header><strong>{e(brand)}</strong>{form}</header>"
        f"<main>{body}</main></body></html>"
    )
    return HTMLResponse(html)


def not_found(what: str, *, brand: str, search_action: str) -> HTMLResponse:
    res = page(
        f"Not found - {brand}",
        f"<h1>Not found</h1><p>{e(what)}</p>",
        brand=brand,
        search_action=search_action,
    )
    res.status_code = 404
    return res

"""Reading OpenDocument spreadsheets and presentations (the files LibreOffice saves) without LibreOffice."""

from __future__ import annotations

import io
import zipfile
from xml.etree import ElementTree

NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
}
_T = "{" + NS["table"] + "}"
MAX_REPEAT = 1024  # LibreOffice writes "1048576 repeated empty rows"; never expand those


def _content(data: bytes) -> ElementTree.Element | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return ElementTree.fromstring(z.read("content.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError):
        return None


def _cell_text(cell: ElementTree.Element) -> str:
    paras = ["".join(p.itertext()) for p in cell.findall("text:p", NS)]
    return "\n".join(paras)


def read_ods(data: bytes) -> dict[str, list[list[str]]] | None:
    root = _content(data)
    if root is None:
        return None
    sheets: dict[str, list[list[str]]] = {}
    for table in root.iter(f"{_T}table"):
        rows: list[list[str]] = []
        for row in table.iter(f"{_T}table-row"):
            cells: list[str] = []
            for cell in row:
                if cell.tag not in (f"{_T}table-cell", f"{_T}covered-table-cell"):
                    continue
                n = min(int(cell.get(f"{_T}number-columns-repeated", "1")), MAX_REPEAT)
                cells.extend([_cell_text(cell)] * n)
            while cells and not cells[-1]:
                cells.pop()
            n_rows = min(int(row.get(f"{_T}number-rows-repeated", "1")), MAX_REPEAT)
            rows.extend([list(cells) for _ in range(n_rows)])
        while rows and not rows[-1]:
            rows.pop()
        sheets[table.get(f"{_T}name", f"Sheet{len(sheets) + 1}")] = rows
    return sheets


def cell(sheet: list[list[str]], ref: str) -> str:
    """Text of cell ``ref`` (e.g. "B3") in a sheet read by :func:`read_ods`; "" when empty."""
    col_part = "".join(c for c in ref if c.isalpha()).upper()
    row_part = "".join(c for c in ref if c.isdigit())
    if not col_part or not row_part:
        raise ValueError(f"bad cell reference {ref!r}")
    col = 0
    for c in col_part:
        col = col * 26 + (ord(c) - 64)
    row, column = int(row_part) - 1, col - 1
    if row < len(sheet) and column < len(sheet[row]):
        return sheet[row][column]
    return ""


def read_odp(data: bytes) -> list[str] | None:
    root = _content(data)
    if root is None:
        return None
    slides = []
    page_tag, p_tag = "{" + NS["draw"] + "}page", "{" + NS["text"] + "}p"
    for page in root.iter(page_tag):
        slides.append("\n".join("".join(p.itertext()) for p in page.iter(p_tag)))
    return slides

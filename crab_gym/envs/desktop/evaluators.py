"""Checks of desktop state. Each reads the session only through :class:`DesktopState`."""

from __future__ import annotations

import re
from typing import Any

from crab_gym.core.evaluators import evaluator
from crab_gym.envs.desktop.odf import cell
from crab_gym.envs.desktop.state import DesktopState
from crab_gym.web.content.files import file_bytes

ENV = "ubuntu"


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n"))


@evaluator(env=ENV)
def file_exists(state: DesktopState, path: str) -> bool:
    """the file {path} exists"""
    return state.exists(path) and not state.is_dir(path)


@evaluator(env=ENV)
def dir_exists(state: DesktopState, path: str) -> bool:
    """the folder {path} exists"""
    return state.is_dir(path)


@evaluator(env=ENV)
def path_absent(state: DesktopState, path: str) -> bool:
    """nothing exists at {path}"""
    return not state.exists(path)


@evaluator(env=ENV)
def dir_contains(state: DesktopState, path: str, names: list[str]) -> bool:
    """the folder {path} contains {names}"""
    return set(names) <= set(state.list_dir(path))


@evaluator(env=ENV)
def file_contains(state: DesktopState, path: str, text: str, case_sensitive: bool = True) -> bool:
    """the file {path} contains {text!r}"""
    content = state.read_text(path)
    if content is None:
        return False
    return text in content if case_sensitive else text.lower() in content.lower()


@evaluator(env=ENV)
def file_equals(state: DesktopState, path: str, text: str) -> bool:
    """the file {path} holds exactly {text!r} (ignoring trailing whitespace)"""
    content = state.read_text(path)
    return content is not None and _norm(content) == _norm(text)


@evaluator(env=ENV)
def file_lines(state: DesktopState, path: str, lines: list[str]) -> bool:
    """the file {path} has the lines {lines}, in that order"""
    content = state.read_text(path)
    return content is not None and [ln for ln in _norm(content).split("\n") if ln.strip()] == lines


@evaluator(env=ENV)
def file_executable(state: DesktopState, path: str) -> bool:
    """the file {path} is executable by its owner"""
    try:
        return bool(state.path(path).stat().st_mode & 0o100) and not state.is_dir(path)
    except OSError:
        return False


@evaluator(env=ENV)
def archive_contains(state: DesktopState, path: str, names: list[str]) -> bool:
    """the archive {path} holds files named {names}"""
    import io
    import tarfile

    data = state.read_bytes(path)
    if data is None:
        return False
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = {m.name.rsplit("/", 1)[-1] for m in tar.getmembers() if m.isfile()}
    except (tarfile.TarError, EOFError, OSError):
        return False
    return set(names) <= members


@evaluator(env=ENV)
def document_contains(state: DesktopState, path: str, text: str) -> bool:
    """the document {path} contains {text!r}"""
    content = state.document_text(path)
    return content is not None and text in content


@evaluator(env=ENV)
def spreadsheet_cell(state: DesktopState, path: str, ref: str, value: str, sheet: int = 0) -> bool:
    """cell {ref} of the spreadsheet {path} shows {value!r}"""
    book = state.spreadsheet(path)
    if not book or sheet >= len(book):
        return False
    rows = list(book.values())[sheet]
    return cell(rows, ref).strip() == value


@evaluator(env=ENV)
def presentation_slides(state: DesktopState, path: str, titles: list[str]) -> bool:
    """the presentation {path} has slides whose text includes {titles}, in order"""
    slides = state.presentation(path)
    if slides is None or len(slides) < len(titles):
        return False
    return all(t in s for t, s in zip(titles, slides, strict=False))


@evaluator(env=ENV)
def window_active(state: DesktopState, title_contains: str) -> bool:
    """the active window's title contains {title_contains!r}"""
    win = state.active_window()
    return win is not None and title_contains.lower() in win.title.lower()


@evaluator(env=ENV)
def app_running(state: DesktopState, process: str) -> bool:
    """the program {process} is running"""
    return state.process_running(process)


@evaluator(env=ENV)
def app_text_contains(state: DesktopState, app: str, text: str) -> bool:
    """a text field of {app} contains {text!r}"""
    return any(text in t for t in state.a11y_texts(app))


@evaluator(env=ENV)
def file_lines_hold_clipboard(state: DesktopState, path: str) -> bool:
    """the file {path} holds the clipboard's text, each of its lines in the file's line of that number"""
    content, clip = state.read_text(path), state.clipboard()
    if content is None or not clip.strip():
        return False
    lines = content.replace("\r\n", "\n").split("\n")
    want = clip.replace("\r\n", "\n").rstrip("\n").split("\n")
    return len(lines) >= len(want) and all(w in line for w, line in zip(want, lines, strict=False))


@evaluator(env=ENV)
def clipboard_contains(state: DesktopState, text: str) -> bool:
    """the clipboard contains {text!r}"""
    return text in state.clipboard()


@evaluator(env=ENV)
def gsetting_equals(state: DesktopState, schema: str, key: str, value: str) -> bool:
    """the desktop setting {schema} {key} is {value}"""
    return state.gsetting(schema, key) == value


@evaluator(env=ENV)
def gsetting_number(state: DesktopState, schema: str, key: str, value: float) -> bool:
    """the desktop setting {schema} {key} is {value}"""
    raw = state.gsetting(schema, key).split()[-1]  # "1.25", or "uint32 5" for typed integers
    try:
        return abs(float(raw) - float(value)) < 1e-9
    except ValueError:
        return False


@evaluator(env=ENV)
def file_is_download(state: DesktopState, path: str, url: str) -> bool:
    """the file {path} holds exactly what the offline web serves at {url}"""
    return state.read_bytes(path) == file_bytes(url)


@evaluator(env=ENV)
def file_is_clipboard_download(state: DesktopState, path: str) -> bool:
    """the file {path} holds exactly what the offline web serves at the URL on the clipboard"""
    world, data = state.web(), state.read_bytes(path)
    served = world.download(state.clipboard()) if world is not None else None
    return served is not None and data == served


@evaluator(env=ENV)
def clipboard_image_of(state: DesktopState, keyword: str) -> bool:
    """the clipboard holds the URL of an image result for {keyword!r}"""
    world, text = state.web(), state.clipboard().strip()
    return world is not None and any(text == r.url for r in world.images(keyword))


REPO_URL = re.compile(r"https://github\.com/([\w.-]+)/([\w.-]+)/?")


@evaluator(env=ENV)
def clipboard_repo_about(state: DesktopState, keyword: str) -> bool:
    """the clipboard holds the URL of a code repository about {keyword!r}"""
    world, found = state.web(), REPO_URL.fullmatch(state.clipboard().strip())
    repo = world.code.repo(f"{found[1]}/{found[2]}") if world is not None and found else None
    return repo is not None and repo.about(keyword)


SHARE_URL = re.compile(r"https://maps\.app\.goo\.gl/(\w+)/?")


@evaluator(env=ENV)
def clipboard_share_url_near(state: DesktopState, place_type: str, place_name: str) -> bool:
    """the clipboard holds the maps share URL of a {place_type} near {place_name}"""
    world, found = state.web(), SHARE_URL.fullmatch(state.clipboard().strip())
    place = world.maps.by_share_code(found[1]) if world is not None and found else None
    return world is not None and place is not None and place in world.maps.nearby(place_name, place_type)


@evaluator(env=ENV)
def spreadsheet_country_row(state: DesktopState, path: str, country: str) -> bool:
    """the spreadsheet {path} has a row {country}, its capital, its population (as the encyclopedia says)"""
    world, book = state.web(), state.spreadsheet(path)
    facts = world.country(country) if world is not None else None
    if facts is None or not book:
        return False
    for row in list(book.values())[0]:
        if len(row) >= 3 and row[0].strip().lower() == country.strip().lower():
            digits = "".join(ch for ch in row[2] if ch.isdigit())
            return row[1].strip().lower() == facts.capital.lower() and digits == str(facts.population)
    return False


def _squeeze(text: str) -> str:
    return "".join(text.split())


@evaluator(env=ENV)
def terminal_shows_file(state: DesktopState, path: str) -> bool:
    """a terminal in front shows the text of {path}"""
    content = state.read_text(path)
    lines = [ln for ln in (content or "").split("\n") if ln.strip()]
    if not lines or state.active_process() != "xfce4-terminal":
        return False
    tail = _squeeze("".join(lines[-3:]))[-200:]  # what a printed file leaves on screen, wraps ignored
    return any(n.get("role") == "terminal" and tail in _squeeze(n.get("text", "")) for n in state.a11y())


@evaluator(env=ENV)
def background_is(state: DesktopState, path: str) -> bool:
    """the desktop background (org.gnome.desktop.background picture-uri) is the picture {path}"""
    from urllib.parse import unquote, urlparse

    uri = urlparse(state.gsetting("org.gnome.desktop.background", "picture-uri").strip("'\""))
    if uri.scheme != "file" or not uri.path:
        return False
    picture = state.read_bytes(path)
    return picture is not None and state.read_bytes(unquote(uri.path)) == picture


@evaluator(env=ENV)
def files_copied(state: DesktopState, source: str, target: str, extension: str) -> bool:
    """every .{extension} file of {source} is in {target}, byte for byte"""
    names = [n for n in state.list_dir(source) if n.endswith("." + extension)]
    return (
        bool(names)
        and state.is_dir(target)
        and all(state.read_bytes(f"{target}/{n}") == state.read_bytes(f"{source}/{n}") for n in names)
    )


@evaluator(env=ENV)
def document_holds_clipboard(state: DesktopState, path: str) -> bool:
    """the document {path} holds the clipboard's text, line after line"""
    clip = [ln.strip() for ln in state.clipboard().split("\n") if ln.strip()]
    doc = iter(ln for ln in (state.document_text(path) or "").split("\n") if ln.strip())
    return bool(clip) and all(any(c in d for d in doc) for c in clip)


_PLACED: dict[tuple[bytes, ...], bool] = {}  # a rendering takes seconds: the answer per file contents


def _picture(state: DesktopState, path: str) -> Any:
    import io

    from PIL import Image, UnidentifiedImageError

    data = state.read_bytes(path)
    try:
        return None if data is None else Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError, ValueError):
        return None


@evaluator(env=ENV)
def images_placed(state: DesktopState, path: str, first: str, second: str, direction: str) -> bool:
    """in {path} as laid out, the picture {first} lies wholly {direction} the picture {second}"""
    import hashlib

    from crab_gym.envs.desktop.pdf_layout import pictures_placed, placed_images

    parts = [state.read_bytes(p) for p in (path, first, second)]
    if any(p is None for p in parts):
        return False
    key = (*(hashlib.sha256(p or b"").digest() for p in parts), direction.encode())
    if key not in _PLACED:
        doc = parts[0] or b""
        pdf = doc if doc.startswith(b"%PDF") else state.rendered_pdf(path)
        one, two = _picture(state, first), _picture(state, second)
        ok = pdf is not None and one is not None and two is not None
        _PLACED[key] = ok and pictures_placed(placed_images(pdf or b""), one, two, direction)
        while len(_PLACED) > 256:
            _PLACED.pop(next(iter(_PLACED)))
    return _PLACED[key]


@evaluator(env=ENV)
def image_darker(state: DesktopState, before: str, after: str) -> bool:
    """the picture {after} is {before} made darker"""
    import numpy as np

    from crab_gym.envs.desktop.image_evaluators import rgb_brightness

    one, two = _picture(state, before), _picture(state, after)
    if one is None or two is None:
        return False
    a, b = (np.asarray(x.convert("RGB").resize((64, 48)), np.float32) for x in (one, two))
    light = [rgb_brightness(x) for x in (a, b)]  # CRAB's measure; the same picture: shapes correlate
    same = float(np.corrcoef(a.ravel(), b.ravel())[0, 1]) > 0.8  # another picture: 0.5 or less
    return same and light[1] < light[0] - 1.0

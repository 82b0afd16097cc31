"""Checks of desktop state. Each reads the session only through :class:`DesktopState`."""

from __future__ import annotations

from crab_gym.core.evaluators import evaluator
from crab_gym.envs.desktop.odf import cell
from crab_gym.envs.desktop.state import DesktopState

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

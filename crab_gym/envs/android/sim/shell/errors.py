"""How commands fail: ShellError (a message for stderr and an exit status), RawError (a message printed as
is), and the line and status of a command that raised (`failure`). Apart from the lexer and the command
context so that what runs a setup's line without the shell (system/direct.py) loads neither."""

from __future__ import annotations

from ..storage.fs import FsError


class ShellError(Exception):
    """A command failed: the message goes to stderr, `code` is the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class RawError(ShellError):
    """A failure whose message is printed as is (a Java exception, a tool's own prefixed message)."""


def failure(name: str, e: Exception) -> tuple[str, int]:
    """How a command ``name`` that raised ``e`` fails: the line it prints on stderr ('' for none) and its
    exit status. A ShellError's message (after the name, unless raw) and code; a file error ``name:
    message``; anything else (a bug in the command) ``name: Type: message``, 1."""
    if isinstance(e, ShellError):
        return (str(e) if isinstance(e, RawError) else f"{name}: {e}") if str(e) else "", e.code
    if isinstance(e, FsError):
        return f"{name}: {e}", 1
    return f"{name}: {type(e).__name__}: {e}", 1

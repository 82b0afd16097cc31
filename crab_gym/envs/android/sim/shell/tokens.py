"""The shell's lexer: a command line split into words (kept raw, quotes and all) and operators.

Words are expanded only when their command runs (see `expand`), so `A=1; echo $A` and `$?` see the state
of the moment. The lexer only finds where each word ends: quotes, backslashes, `${...}`, `$(...)`,
`$((...))` and backquotes are kept whole inside the word.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import RawError, ShellError

__all__ = ["OPERATORS", "REDIRECTS", "Op", "RawError", "ShellError", "SyntaxErr", "Word", "tokenize"]

# Longest first, so ">>" wins over ">".
OPERATORS = ("&&", "||", ";;", "<<-", ">>", "<<", ">&", "<&", ">|", "<>", ";", "&", "|", "(", ")", "<", ">")
REDIRECTS = frozenset({"<", ">", ">>", ">|", "<>", ">&", "<&", "<<", "<<-"})
BREAK = frozenset(" \t\r\n;&|<>()")


class SyntaxErr(ShellError):
    """The command line does not parse; mksh exits 1 with "syntax error" (we use 2, as POSIX shells do)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"/system/bin/sh: syntax error: {message}", 2)


@dataclass
class Word:
    raw: str


@dataclass
class Op:
    text: str
    fd: int | None = None  # the io number of a redirection, as in `2>`
    heredoc: str | None = None  # the body of a `<<` redirection
    quoted: bool = False  # a quoted here-document delimiter: the body is not expanded


def _skip_quoted(line: str, i: int) -> int:
    """Index after the quoted string, `$...` construct or backquote that starts at i."""
    n = len(line)
    c = line[i]
    if c == "'":
        end = line.find("'", i + 1)
        if end < 0:
            raise SyntaxErr("no closing quote")
        return end + 1
    if c == '"':
        i += 1
        while i < n and line[i] != '"':
            if line[i] == "\\":
                i += 2
            elif line[i] in "$`":
                i = _skip_quoted(line, i)
            else:
                i += 1
        if i >= n:
            raise SyntaxErr("no closing quote")
        return i + 1
    if c == "`":
        i += 1
        while i < n and line[i] != "`":
            i += 2 if line[i] == "\\" else 1
        if i >= n:
            raise SyntaxErr("no closing quote")
        return i + 1
    if c == "$" and i + 1 < n and line[i + 1] in "({":
        return _skip_balanced(line, i + 1)
    return i + 1


def _skip_balanced(line: str, i: int) -> int:
    """Index after the bracket group opening at i ("(" or "{"), skipping quotes inside it."""
    opener = line[i]
    closer = ")" if opener == "(" else "}"
    depth, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"`" or (c == "$" and i + 1 < n and line[i + 1] in "({"):
            i = _skip_quoted(line, i)
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise SyntaxErr(f"missing '{closer}'")


def tokenize(line: str) -> list[Word | Op]:
    """Words and operators; a newline is the operator "\\n". Here-documents are attached to their `<<`."""
    out: list[Word | Op] = []
    pending_heredocs: list[Op] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\" and i + 1 < n and line[i + 1] == "\n":  # line continuation
            i += 2
        elif c in " \t\r":
            i += 1
        elif c == "#":
            while i < n and line[i] != "\n":
                i += 1
        elif c == "\n":
            out.append(Op("\n"))
            i += 1
            for op in pending_heredocs:
                k = next(k for k, t in enumerate(out) if t is op)
                after = out[k + 1] if k + 1 < len(out) else None
                delim = after if isinstance(after, Word) else Word("")
                i = _read_heredoc(line, i, op, delim.raw)
            pending_heredocs.clear()
        elif c in BREAK:
            op_text = next(o for o in OPERATORS if line.startswith(o, i))
            op = Op(op_text)
            i += len(op_text)
            if op_text in ("<<", "<<-"):
                pending_heredocs.append(op)
            out.append(op)
        else:
            start = i
            while i < n and line[i] not in BREAK:
                if line[i] == "\\":
                    if i + 1 < n and line[i + 1] == "\n":
                        line = line[:i] + line[i + 2 :]
                        n -= 2
                        continue
                    i += 2
                elif line[i] in "'\"`$":
                    i = _skip_quoted(line, i)
                else:
                    i += 1
            i = min(i, n)
            raw = line[start:i]
            if raw.isdigit() and i < n and line[i] in "<>":
                op_text = next(o for o in OPERATORS if line.startswith(o, i))
                op = Op(op_text, fd=int(raw))
                i += len(op_text)
                if op_text in ("<<", "<<-"):
                    pending_heredocs.append(op)
                out.append(op)
            else:
                out.append(Word(raw))
    for op in pending_heredocs:  # a here-document on the last line, with no body
        op.heredoc = ""
    return out


def _read_heredoc(line: str, i: int, op: Op, delim_raw: str) -> int:
    """Read the here-document body starting at i, up to its delimiter line; store it on op; the new index."""
    delim = delim_raw.replace("'", "").replace('"', "").replace("\\", "")
    op.quoted = delim != delim_raw
    body: list[str] = []
    while i < len(line):
        end = line.find("\n", i)
        end = len(line) if end < 0 else end
        text = line[i:end]
        i = end + 1
        if op.text == "<<-":
            text = text.lstrip("\t")
        if text == delim:
            break
        body.append(text + "\n")
    op.heredoc = "".join(body)
    return i

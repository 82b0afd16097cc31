"""Word expansion, in POSIX order: tilde, parameters, command substitution and arithmetic, field splitting,
pathname globbing against the phone's filesystem, quote removal.

An expanded word is first a list of segments (text, kind): literal text outside quotes (globbed, not split),
quoted text (neither), and the result of an unquoted expansion (split on IFS, then globbed).
"""

from __future__ import annotations

import re
from typing import Protocol

from ..storage.fs import Sandbox
from .arith import arith
from .tokens import ShellError, _skip_balanced, _skip_quoted

LIT, QUOTED, EXPANDED = 0, 1, 2
Segment = tuple[str, int]
SPECIAL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]|[?$#!@*-]")
PARAM_OPS = (":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?", "#", "%")
MAGIC = frozenset("*?[")


class Fatal(ShellError):
    """An expansion error that ends a non-interactive shell: an unset parameter under `set -u`, `${x?}`."""


class ShellState(Protocol):
    """What expansion needs from the running shell."""

    vars: dict[str, str]
    positional: list[str]
    status: int
    cwd: str
    fs: Sandbox
    opts: set[str]

    def substitute(self, program: str) -> str: ...


def tilde(raw: str, home: str) -> str:
    """A leading unquoted `~` (alone or before `/`) becomes $HOME, quoted so that it is taken literally."""
    if raw == "~" or raw.startswith("~/"):
        return "'" + home.replace("'", "'\\''") + "'" + raw[1:]
    return raw


class Expander:
    """Expands raw words against one shell's state."""

    def __init__(self, sh: ShellState) -> None:
        self.sh = sh

    # -- public
    def words(self, raws: list[str]) -> list[str]:
        """Full expansion of command words: each raw word may become zero, one or many fields."""
        out: list[str] = []
        for raw in raws:
            if raw in ('"$@"', "$@"):
                out += self.sh.positional[1:]
                continue
            raw = tilde(raw, self.sh.vars.get("HOME", "/"))
            for field in self._split(self._segments(raw)):
                out += self._glob(field)
        return out

    def word(self, raw: str) -> str:
        """Expansion without splitting or globbing (assignments, redirection targets, `case` words)."""
        return "".join(text for text, _ in self._segments(tilde(raw, self.sh.vars.get("HOME", "/"))))

    def pattern(self, raw: str) -> re.Pattern[str]:
        """A `case` or `${x#pat}` pattern: its quoted parts match literally."""
        chars = [(c, kind == QUOTED) for text, kind in self._segments(raw) for c in text]
        return re.compile(pattern_regex(chars), re.S)

    def heredoc(self, body: str) -> str:
        """A here-document body: parameter, command and arithmetic expansion; backslash escapes $ ` \\."""
        return "".join(text for text, _ in self._segments(body, heredoc=True))

    # -- segments
    def _segments(self, raw: str, in_dq: bool = False, heredoc: bool = False) -> list[Segment]:
        segs: list[Segment] = []
        quoted = in_dq or heredoc
        kind = QUOTED if quoted else LIT
        i, n = 0, len(raw)
        while i < n:
            c = raw[i]
            if c == "'" and not quoted:
                end = raw.index("'", i + 1)
                segs.append((raw[i + 1 : end], QUOTED))
                i = end + 1
            elif c == '"' and not quoted:
                end = _skip_quoted(raw, i)
                inner = self._segments(raw[i + 1 : end - 1], in_dq=True)
                segs += inner or [("", QUOTED)]
                i = end
            elif c == "\\":
                nxt = raw[i + 1 : i + 2]
                if not quoted:
                    segs.append((nxt, QUOTED))
                elif nxt and nxt in ("$`\\\n" + ("" if heredoc else '"')):
                    segs.append((nxt if nxt != "\n" else "", QUOTED))
                else:
                    segs.append(("\\" + nxt, QUOTED))
                i += 2
            elif c == "$":
                text, i = self._dollar(raw, i)
                segs.append((text, QUOTED if quoted else EXPANDED) if text is not None else ("$", kind))
            elif c == "`":
                end = _skip_quoted(raw, i)
                program = re.sub(r"\\([$`\\])", r"\1", raw[i + 1 : end - 1])
                segs.append((self.sh.substitute(program), QUOTED if quoted else EXPANDED))
                i = end
            else:
                j = i + 1
                while j < n and raw[j] not in "'\"\\$`":
                    j += 1
                segs.append((raw[i:j], kind))
                i = j
        return segs

    def _dollar(self, raw: str, i: int) -> tuple[str | None, int]:
        """The expansion starting at raw[i] == "$": (text, index after it); None text for a lone "$"."""
        nxt = raw[i + 1 : i + 2]
        if raw.startswith("$((", i):
            inner_end = _skip_balanced(raw, i + 2)
            if inner_end < len(raw) and raw[inner_end] == ")":
                expr = self.word(raw[i + 3 : inner_end - 1].replace('"', ""))
                return str(arith(expr, _VarView(self.sh))), inner_end + 1
        if nxt == "(":
            end = _skip_balanced(raw, i + 1)
            return self.sh.substitute(raw[i + 2 : end - 1]), end
        if nxt == "{":
            end = _skip_balanced(raw, i + 1)
            return self._param(raw[i + 2 : end - 1]), end
        m = SPECIAL.match(raw, i + 1)
        if not m:
            return None, i + 1
        value = self.lookup(m.group())
        if value is None:
            self._unset(m.group())
        return value or "", m.end()

    def _unset(self, name: str) -> None:
        if "u" in getattr(self.sh, "opts", ()) and name not in ("@", "*"):
            raise Fatal(f"{name}: parameter not set", 1)

    def lookup(self, name: str) -> str | None:
        """A parameter's value, None when unset."""
        sh = self.sh
        if name == "?":
            return str(sh.status)
        if name == "$":
            return "4242"
        if name == "!":
            last = getattr(getattr(sh, "root", None), "last_job", 0)
            return str(last) if last else ""
        if name == "-":
            opts: set[str] = getattr(sh, "opts", set())
            return "".join(sorted(o for o in opts if len(o) == 1)) + "h"
        if name == "#":
            return str(len(sh.positional) - 1)
        if name in ("@", "*"):
            return " ".join(sh.positional[1:])
        if name.isdigit():
            k = int(name)
            return sh.positional[k] if k < len(sh.positional) else None
        return sh.vars.get(name)

    def _param(self, inner: str) -> str:
        """${...}: plain, length, defaults, alternatives, errors and prefix/suffix removal."""
        if inner.startswith("#") and len(inner) > 1:
            value = self.lookup(inner[1:])
            if value is None:
                self._unset(inner[1:])
            return str(len(value or ""))
        m = SPECIAL.match(inner)
        if not m:
            raise ShellError(f"${{{inner}}}: bad substitution", 1)
        name, rest = m.group(), inner[m.end() :]
        value = self.lookup(name)
        if value is None and rest[:1] not in ("-", "=", "+", "?", ":"):
            self._unset(name)
        if not rest:
            return value or ""
        op = next((o for o in PARAM_OPS if rest.startswith(o)), None)
        if op is None:
            raise ShellError(f"${{{inner}}}: bad substitution", 1)
        arg = rest[len(op) :]
        missing = value is None or (op.startswith(":") and value == "")
        if op in (":-", "-"):
            return self.word(arg) if missing else value or ""
        if op in (":=", "="):
            if missing:
                value = self.word(arg)
                self.sh.vars[name] = value
            return value or ""
        if op in (":+", "+"):
            return "" if missing else self.word(arg)
        if op in (":?", "?"):
            if missing:
                raise Fatal(f"{name}: {self.word(arg) or 'parameter null or not set'}", 1)
            return value or ""
        value = value or ""
        pat = self.pattern(arg)
        cuts = range(len(value) + 1)
        if op in ("#", "##"):
            for k in reversed(cuts) if op == "##" else cuts:
                if pat.fullmatch(value[:k]):
                    return value[k:]
        else:
            for k in cuts if op == "%%" else reversed(cuts):
                if pat.fullmatch(value[k:]):
                    return value[:k]
        return value

    # -- fields and globbing
    def _split(self, segs: list[Segment]) -> list[list[tuple[str, bool]]]:
        ifs = self.sh.vars.get("IFS", " \t\n")
        fields: list[list[tuple[str, bool]]] = []
        cur: list[tuple[str, bool]] = []
        have = False
        for text, kind in segs:
            if kind != EXPANDED or not ifs:
                cur.append((text, kind == QUOTED))
                have = have or bool(text) or kind == QUOTED
                continue
            pieces = re.split(f"[{re.escape(ifs)}]+", text)
            for k, piece in enumerate(pieces):
                if k:
                    if have:
                        fields.append(cur)
                    cur, have = [], False
                if piece:
                    cur.append((piece, False))
                    have = True
        if have:
            fields.append(cur)
        return fields

    def _glob(self, field: list[tuple[str, bool]]) -> list[str]:
        literal = "".join(text for text, _ in field)
        if "f" in getattr(self.sh, "opts", ()) or not any(not q and MAGIC & set(text) for text, q in field):
            return [literal]
        chars = [(c, q) for text, q in field for c in text]
        matches = glob_paths(self.sh.fs, self.sh.cwd, chars)
        return matches or [literal]


class _VarView(dict):
    """The shell's variables as arithmetic sees them (reads and assignments go to the shell)."""

    def __init__(self, sh: ShellState) -> None:
        super().__init__()
        self.sh = sh

    def get(self, key, default=None):
        return self.sh.vars.get(key, default)

    def __setitem__(self, key, value) -> None:
        self.sh.vars[key] = value


def pattern_regex(chars: list[tuple[str, bool]]) -> str:
    """A shell pattern ((char, quoted) pairs) as a Python regex: * ? and [...] where unquoted."""
    out: list[str] = []
    i, n = 0, len(chars)
    while i < n:
        c, q = chars[i]
        if q:
            out.append(re.escape(c))
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i + 1
            if j < n and chars[j][0] in "!^":
                j += 1
            if j < n and chars[j][0] == "]":
                j += 1
            while j < n and chars[j][0] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = "".join(ch for ch, _ in chars[i + 1 : j])
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def glob_paths(fs, cwd: str, chars: list[tuple[str, bool]]) -> list[str]:
    """Paths in the phone's filesystem matching a pattern, sorted; [] when none match."""
    comps: list[list[tuple[str, bool]]] = [[]]
    for c, q in chars:
        if c == "/":
            comps.append([])
        else:
            comps[-1].append((c, q))
    absolute = bool(chars) and chars[0][0] == "/"
    bases = ["/"] if absolute else [""]
    if absolute:
        comps = comps[1:]
    for k, comp in enumerate(comps):
        last = k == len(comps) - 1
        if not comp:  # "a//b" or a trailing "/": keep directories only
            bases = [b for b in bases if _is_dir(fs, cwd, b)]
            bases = [b if b.endswith("/") else b + "/" for b in bases] if last else bases
            continue
        text = "".join(c for c, _ in comp)
        if not any(not q and c in MAGIC for c, q in comp):
            bases = [_join(b, text) for b in bases]
            continue
        rx = re.compile(pattern_regex(comp), re.S)
        hidden_ok = comp[0][0] == "."
        found = []
        for base in bases:
            for name in _listdir(fs, cwd, base):
                if (hidden_ok or not name.startswith(".")) and rx.fullmatch(name):
                    found.append(_join(base, name))
        bases = sorted(found)
    return [b for b in bases if fs.exists(fs.android_path(b, cwd))]


def _join(base: str, name: str) -> str:
    return name if not base else base + name if base.endswith("/") else f"{base}/{name}"


def _is_dir(fs, cwd: str, path: str) -> bool:
    try:
        return fs.resolve(path or ".", cwd).is_dir()
    except OSError:
        return False


def _listdir(fs, cwd: str, base: str) -> list[str]:
    try:
        host = fs.resolve(base or ".", cwd)
        return sorted(p.name for p in host.iterdir()) if host.is_dir() else []
    except OSError:
        return []

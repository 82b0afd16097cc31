"""The shell's parser: tokens into a tree of lists, and-or chains, pipelines and commands (POSIX grammar).

Compound commands: `if/elif/else`, `while`/`until`, `for`, `case`, `{ ...; }`, `( ... )`, functions, and
mksh's `[[ ... ]]`; an and-or list ended by `&` runs in the background.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .tokens import REDIRECTS, Op, SyntaxErr, Word, tokenize

RESERVED = frozenset(
    {
        "if",
        "then",
        "elif",
        "else",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "for",
        "in",
        "case",
        "esac",
        "{",
        "}",
        "!",
    }
)
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class Redir:
    op: str
    fd: int
    target: str  # a raw word (or the here-document body for `<<`)
    quoted: bool = False  # a here-document whose delimiter was quoted: no expansion


@dataclass
class Simple:
    assigns: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Pipeline:
    cmds: list[Node]
    negate: bool = False


@dataclass
class AndOr:
    first: Node
    rest: list[tuple[str, Node]]


@dataclass
class Seq:
    items: list[Node]


@dataclass
class If:
    branches: list[tuple[Seq, Seq]]
    orelse: Seq | None = None
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Loop:
    cond: Seq
    body: Seq
    until: bool = False
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class For:
    name: str
    words: list[str] | None
    body: Seq
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Case:
    word: str
    items: list[tuple[list[str], Seq]]
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Group:
    body: Seq
    subshell: bool = False
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class FuncDef:
    name: str
    body: Node


@dataclass
class Background:
    """`cmd &`: the and-or list runs in a job of its own while the shell goes on."""

    body: Node


@dataclass
class Cond:
    """`[[ expr ]]`: raw words, and operators (&& || ( ) < >) kept as Op tokens."""

    items: list[Word | Op]
    redirs: list[Redir] = field(default_factory=list)


Node = Simple | Pipeline | AndOr | Seq | If | Loop | For | Case | Group | FuncDef | Background | Cond


class Parser:
    """Recursive descent over the token list; `parse()` returns the whole program as one Seq."""

    def __init__(self, tokens: list[Word | Op]) -> None:
        self.toks = tokens
        self.i = 0

    # -- token helpers
    def peek(self) -> Word | Op | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def is_word(self, *texts: str) -> bool:
        t = self.peek()
        return isinstance(t, Word) and (not texts or t.raw in texts)

    def is_op(self, *texts: str) -> bool:
        t = self.peek()
        return isinstance(t, Op) and t.text in texts

    def _word(self) -> str:
        """The current token's text, once `is_word()` has said it is a word."""
        t = self.toks[self.i]
        assert isinstance(t, Word)
        return t.raw

    def _op(self) -> Op:
        """The current token, once `is_op(...)` has said it is an operator."""
        t = self.toks[self.i]
        assert isinstance(t, Op)
        return t

    def expect_word(self, text: str) -> None:
        if not self.is_word(text):
            raise SyntaxErr(f"'{self._shown()}' unexpected, expecting '{text}'")
        self.i += 1

    def _shown(self) -> str:
        t = self.peek()
        if t is None:
            return "end of file"
        return "newline" if isinstance(t, Op) and t.text == "\n" else t.raw if isinstance(t, Word) else t.text

    def skip_newlines(self) -> None:
        while self.is_op("\n"):
            self.i += 1

    # -- grammar
    def parse(self) -> Seq:
        seq = self.compound_list(())
        if self.peek() is not None:
            raise SyntaxErr(f"'{self._shown()}' unexpected")
        return seq

    def compound_list(self, terminators: tuple[str, ...]) -> Seq:
        """and-or lists separated by ; & or newlines, up to one of the reserved `terminators`."""
        items: list[Node] = []
        while True:
            self.skip_newlines()
            t = self.peek()
            if t is None or (isinstance(t, Word) and t.raw in terminators) or self.is_op(")", ";;"):
                return Seq(items)
            item = self.and_or()
            if self.is_op("&"):
                item = Background(item)
            items.append(item)
            if self.is_op(";", "&", "\n"):
                self.i += 1
            elif not (self.peek() is None or self.is_op(")", ";;") or self.is_word(*terminators)):
                raise SyntaxErr(f"'{self._shown()}' unexpected")

    def and_or(self) -> Node:
        first = self.pipeline()
        rest: list[tuple[str, Node]] = []
        while self.is_op("&&", "||"):
            op = self._op().text
            self.i += 1
            self.skip_newlines()
            rest.append((op, self.pipeline()))
        return AndOr(first, rest) if rest else first

    def pipeline(self) -> Node:
        negate = False
        if self.is_word("!"):
            negate, self.i = True, self.i + 1
        cmds = [self.command()]
        while self.is_op("|"):
            self.i += 1
            self.skip_newlines()
            cmds.append(self.command())
        return Pipeline(cmds, negate) if negate or len(cmds) > 1 else cmds[0]

    def command(self) -> Node:
        t = self.peek()
        if t is None or (isinstance(t, Op) and t.text not in REDIRECTS and t.text != "("):
            raise SyntaxErr(f"'{self._shown()}' unexpected")
        node: Node
        if self.is_op("("):
            self.i += 1
            node = Group(self.compound_list(()), subshell=True)
            self._close(")")
        elif self.is_word("{"):
            self.i += 1
            node = Group(self.compound_list(("}",)))
            self.expect_word("}")
        elif self.is_word("if"):
            node = self.if_clause()
        elif self.is_word("while", "until"):
            until = self._word() == "until"
            self.i += 1
            cond = self.compound_list(("do",))
            node = Loop(cond, self.do_group(), until)
        elif self.is_word("for"):
            node = self.for_clause()
        elif self.is_word("case"):
            node = self.case_clause()
        elif self.is_word("[["):
            node = self.cond()
        elif self.is_word() and self._word() in RESERVED:
            raise SyntaxErr(f"'{self._shown()}' unexpected")
        elif (
            self.is_word()
            and NAME.match(self._word())
            and self.i + 2 < len(self.toks) + 1
            and self._is_funcdef()
        ):
            name = self._word()
            self.i += 3
            self.skip_newlines()
            return FuncDef(name, self.command())
        else:
            return self.simple()
        node.redirs.extend(self.redirs())
        return node

    def _is_funcdef(self) -> bool:
        a = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
        b = self.toks[self.i + 2] if self.i + 2 < len(self.toks) else None
        return isinstance(a, Op) and a.text == "(" and isinstance(b, Op) and b.text == ")"

    def _close(self, text: str) -> None:
        if not self.is_op(text):
            raise SyntaxErr(f"'{self._shown()}' unexpected, expecting '{text}'")
        self.i += 1

    def if_clause(self) -> If:
        self.i += 1
        branches = [(self.compound_list(("then",)), Seq([]))]
        self.expect_word("then")
        branches[0] = (branches[0][0], self.compound_list(("elif", "else", "fi")))
        orelse = None
        while True:
            if self.is_word("elif"):
                self.i += 1
                cond = self.compound_list(("then",))
                self.expect_word("then")
                branches.append((cond, self.compound_list(("elif", "else", "fi"))))
            elif self.is_word("else"):
                self.i += 1
                orelse = self.compound_list(("fi",))
            else:
                self.expect_word("fi")
                return If(branches, orelse)

    def do_group(self) -> Seq:
        self.expect_word("do")
        body = self.compound_list(("done",))
        self.expect_word("done")
        return body

    def for_clause(self) -> For:
        self.i += 1
        if not self.is_word() or not NAME.match(self._word()):
            raise SyntaxErr(f"'{self._shown()}' unexpected, expecting a name")
        name = self._word()
        self.i += 1
        words = None
        self.skip_newlines()
        if self.is_word("in"):
            self.i += 1
            words = []
            while self.is_word():
                words.append(self._word())
                self.i += 1
        if self.is_op(";", "\n"):
            self.i += 1
        self.skip_newlines()
        return For(name, words, self.do_group())

    def case_clause(self) -> Case:
        self.i += 1
        if not self.is_word():
            raise SyntaxErr(f"'{self._shown()}' unexpected")
        word = self._word()
        self.i += 1
        self.skip_newlines()
        self.expect_word("in")
        items: list[tuple[list[str], Seq]] = []
        while True:
            self.skip_newlines()
            if self.is_word("esac"):
                self.i += 1
                return Case(word, items)
            if self.is_op("("):
                self.i += 1
            patterns: list[str] = []
            while True:
                if not self.is_word():
                    raise SyntaxErr(f"'{self._shown()}' unexpected")
                patterns.append(self._word())
                self.i += 1
                if not self.is_op("|"):
                    break
                self.i += 1
            self._close(")")
            items.append((patterns, self.compound_list(("esac",))))
            if self.is_op(";;"):
                self.i += 1
            elif not self.is_word("esac"):
                raise SyntaxErr(f"'{self._shown()}' unexpected")

    def cond(self) -> Cond:
        self.i += 1
        items: list[Word | Op] = []
        while not self.is_word("]]"):
            t = self.peek()
            if t is None or (isinstance(t, Op) and t.text in (";", "&", "\n", ";;", "|")):
                raise SyntaxErr(f"'{self._shown()}' unexpected, expecting ']]'")
            items.append(t)
            self.i += 1
        self.i += 1
        if not items:
            raise SyntaxErr("']]' unexpected")
        return Cond(items)

    def redirs(self) -> list[Redir]:
        out = []
        while self.is_op(*REDIRECTS):
            out.append(self.redirect())
        return out

    def redirect(self) -> Redir:
        op = self._op()
        self.i += 1
        if not self.is_word():
            raise SyntaxErr(f"'{self._shown()}' unexpected")
        target = self._word()
        self.i += 1
        fd = op.fd if op.fd is not None else (0 if op.text.startswith("<") else 1)
        if op.text in ("<<", "<<-"):
            return Redir("<<", fd, op.heredoc or "", op.quoted)
        return Redir(op.text, fd, target)

    def simple(self) -> Simple:
        cmd = Simple()
        while True:
            if self.is_op(*REDIRECTS):
                cmd.redirs.append(self.redirect())
            elif self.is_word():
                raw = self._word()
                if not cmd.words and ASSIGNMENT.match(raw):
                    cmd.assigns.append(raw)
                else:
                    cmd.words.append(raw)
                self.i += 1
            else:
                break
        if not (cmd.words or cmd.assigns or cmd.redirs):
            raise SyntaxErr(f"'{self._shown()}' unexpected")
        return cmd


def parse(line: str) -> Seq:
    """The program of a command line; raises SyntaxErr."""
    return Parser(tokenize(line)).parse()

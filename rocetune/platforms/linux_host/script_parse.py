"""Tokens -> a small shell syntax tree (commands, pipelines, lists, loops, conditionals).

The grammar is the POSIX one, reduced to what setup scripts use::

    list     := and_or ((';' | '&' | newline) and_or)*
    and_or   := pipeline (('&&' | '||') pipeline)*
    pipeline := ['!'] command ('|' command)*
    command  := for | while | until | if | case | '{' list '}' | '(' list ')'
              | name '()' command | 'function' name ['()'] command | simple

Nothing is evaluated here (:mod:`.script_run` walks the tree). A construct that is not
closed raises :class:`~.script_lex.ShellSyntax` with its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rocetune.platforms.linux_host.script_lex import ShellSyntax, Token, tokenize

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNC = re.compile(r"([A-Za-z_][\w.:-]*)\(\)")


@dataclass
class Redirect:
    """``>`` / ``>>`` / ``<<`` ... with its target word (or here-document body)."""

    op: str
    target: str
    fd: str = ""
    heredoc: str | None = None
    heredoc_line: int = 0
    heredoc_expand: bool = True


@dataclass
class Simple:
    """A simple command: assignments, words, redirections."""

    line: int
    assigns: list[tuple[str, str]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    """Commands joined by ``|``."""

    line: int
    commands: list[Node]
    negated: bool = False


@dataclass
class AndOr:
    """Pipelines joined by ``&&`` / ``||`` (the first op is ``""``)."""

    line: int
    items: list[tuple[str, Node]]


@dataclass
class Seq:
    """Commands run one after the other."""

    line: int
    items: list[Node]


@dataclass
class For:
    """``for VAR in WORDS; do BODY; done`` (``words`` None: over ``"$@"``)."""

    line: int
    var: str
    words: list[str] | None
    body: Seq


@dataclass
class Loop:
    """``while`` / ``until`` loop."""

    line: int
    kind: str
    cond: Seq
    body: Seq


@dataclass
class If:
    """``if``/``elif`` conditions with their bodies, and the ``else`` body."""

    line: int
    clauses: list[tuple[Seq, Seq]]
    orelse: Seq | None


@dataclass
class Case:
    """``case WORD in pattern) body ;; esac``."""

    line: int
    word: str
    arms: list[tuple[list[str], Seq]]


@dataclass
class Group:
    """``{ ...; }`` or a subshell ``( ... )`` (``subshell``), with redirections."""

    line: int
    body: Seq
    subshell: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Func:
    """A function definition."""

    line: int
    name: str
    body: Node


Node = Simple | Pipeline | AndOr | Seq | For | Loop | If | Case | Group | Func

_RESERVED_END = {"then", "do", "done", "fi", "elif", "else", "esac", "}"}


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def at_word(self, *words: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "word" and tok.text in words

    def at_op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "op" and tok.text in ops

    def skip_newlines(self) -> None:
        while (tok := self.peek()) is not None and tok.kind == "newline":
            self.i += 1

    def expect_word(self, word: str, opened: int) -> None:
        self.skip_separators()
        if not self.at_word(word):
            raise ShellSyntax(f"expected {word!r} to close the construct of line {opened}", opened)
        self.i += 1

    def skip_separators(self) -> None:
        while (tok := self.peek()) is not None and (
            tok.kind == "newline" or (tok.kind == "op" and tok.text in (";", "&"))
        ):
            self.i += 1

    def line(self) -> int:
        tok = self.peek()
        return tok.line if tok is not None else (self.t[-1].line if self.t else 1)

    def parse_list(self, stop: tuple[str, ...] = ()) -> Seq:
        seq = Seq(self.line(), [])
        while True:
            self.skip_separators()
            tok = self.peek()
            if tok is None or (tok.kind == "word" and tok.text in stop):
                return seq
            if tok.kind == "op" and tok.text in (")", ";;"):
                return seq
            seq.items.append(self.and_or())

    def and_or(self) -> Node:
        line = self.line()
        items: list[tuple[str, Node]] = [("", self.pipeline())]
        while self.at_op("&&", "||"):
            op = self.t[self.i].text
            self.i += 1
            self.skip_newlines()
            items.append((op, self.pipeline()))
        return items[0][1] if len(items) == 1 else AndOr(line, items)

    def pipeline(self) -> Node:
        line = self.line()
        negated = False
        if self.at_word("!"):
            negated = True
            self.i += 1
        commands = [self.command()]
        while self.at_op("|", "|&"):
            self.i += 1
            self.skip_newlines()
            commands.append(self.command())
        if len(commands) == 1 and not negated:
            return commands[0]
        return Pipeline(line, commands, negated)

    def command(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise ShellSyntax("a command is missing at the end of the script", self.line())
        if tok.kind == "op" and tok.text == "(":
            self.i += 1
            body = self.parse_list()
            if not self.at_op(")"):
                raise ShellSyntax("'(' not closed", tok.line)
            self.i += 1
            return Group(tok.line, body, True, self.redirects())
        if tok.kind != "word":
            raise ShellSyntax(f"unexpected {tok.text!r}", tok.line)
        handlers: dict[str, Callable[[], Node]] = {
            "for": self.for_,
            "while": self.loop,
            "until": self.loop,
            "if": self.if_,
            "case": self.case,
            "{": self.group,
            "function": self.function,
        }
        handler = handlers.get(tok.text)
        if handler is not None:
            return handler()
        if tok.text in _RESERVED_END:
            raise ShellSyntax(f"unexpected {tok.text!r}", tok.line)
        match = _FUNC.fullmatch(tok.text)
        nxt = self.t[self.i + 1] if self.i + 1 < len(self.t) else None
        if match is None and nxt is not None and nxt.kind == "op" and nxt.text == "(":
            after = self.t[self.i + 2] if self.i + 2 < len(self.t) else None
            if after is not None and after.kind == "op" and after.text == ")":
                self.i += 2
                match = _FUNC.fullmatch(tok.text + "()")
        if match is not None:
            self.i += 1
            self.skip_newlines()
            return Func(tok.line, match.group(1), self.command())
        return self.simple()

    def redirects(self) -> list[Redirect]:
        out = []
        while (tok := self.peek()) is not None and tok.kind == "redir":
            out.append(self.redirect())
        return out

    def redirect(self) -> Redirect:
        tok = self.t[self.i]
        self.i += 1
        target = self.peek()
        if target is None or target.kind != "word":
            raise ShellSyntax(f"redirection {tok.text!r} without a target", tok.line)
        self.i += 1
        return Redirect(
            tok.text, target.text, tok.fd, tok.heredoc, tok.heredoc_line, tok.heredoc_expand
        )

    def simple(self) -> Simple:
        cmd = Simple(self.line())
        while (tok := self.peek()) is not None:
            if tok.kind == "redir":
                cmd.redirects.append(self.redirect())
                continue
            if tok.kind != "word":
                break
            name, eq, value = tok.text.partition("=")
            if not cmd.words and eq and _NAME.fullmatch(name.removesuffix("+")):
                # an array (name=(a b)) or an append (name+=x) is not followed: unknown
                odd = value.startswith("(") or name.endswith("+")
                cmd.assigns.append((name.removesuffix("+"), "$(array)" if odd else value))
            else:
                cmd.words.append(tok.text)
            self.i += 1
        return cmd

    def for_(self) -> For:
        line = self.t[self.i].line
        self.i += 1
        tok = self.peek()
        if tok is None or tok.kind != "word":
            if tok is not None and tok.kind == "op" and tok.text == "(":
                raise ShellSyntax("C-style for (( ... )) loop", line)
            raise ShellSyntax("for without a variable", line)
        var = tok.text
        self.i += 1
        words: list[str] | None = None
        self.skip_newlines()
        if self.at_word("in"):
            self.i += 1
            words = []
            while (tok := self.peek()) is not None and tok.kind == "word":
                words.append(tok.text)
                self.i += 1
        self.expect_word("do", line)
        body = self.parse_list(("done",))
        self.expect_word("done", line)
        self.redirects()
        return For(line, var, words, body)

    def loop(self) -> Loop:
        tok = self.t[self.i]
        self.i += 1
        cond = self.parse_list(("do",))
        self.expect_word("do", tok.line)
        body = self.parse_list(("done",))
        self.expect_word("done", tok.line)
        self.redirects()
        return Loop(tok.line, tok.text, cond, body)

    def if_(self) -> If:
        line = self.t[self.i].line
        self.i += 1
        clauses: list[tuple[Seq, Seq]] = []
        orelse: Seq | None = None
        while True:
            cond = self.parse_list(("then",))
            self.expect_word("then", line)
            body = self.parse_list(("elif", "else", "fi"))
            clauses.append((cond, body))
            self.skip_separators()
            if self.at_word("elif"):
                self.i += 1
                continue
            if self.at_word("else"):
                self.i += 1
                orelse = self.parse_list(("fi",))
            self.expect_word("fi", line)
            self.redirects()
            return If(line, clauses, orelse)

    def case(self) -> Case:
        line = self.t[self.i].line
        self.i += 1
        tok = self.peek()
        if tok is None or tok.kind != "word":
            raise ShellSyntax("case without a word", line)
        self.i += 1
        self.skip_newlines()
        if not self.at_word("in"):
            raise ShellSyntax("case without 'in'", line)
        self.i += 1
        arms: list[tuple[list[str], Seq]] = []
        while True:
            self.skip_separators()
            if self.at_word("esac"):
                self.i += 1
                return Case(line, tok.text, arms)
            if self.peek() is None:
                raise ShellSyntax("case not closed by 'esac'", line)
            if self.at_op("("):
                self.i += 1
            patterns = []
            while (p := self.peek()) is not None and not (p.kind == "op" and p.text == ")"):
                if p.kind == "word":
                    patterns.append(p.text)
                elif not (p.kind == "op" and p.text == "|"):
                    raise ShellSyntax("case pattern not understood", p.line)
                self.i += 1
            self.i += 1
            body = self.parse_list(("esac",))
            arms.append((patterns, body))
            if self.at_op(";;"):
                self.i += 1

    def group(self) -> Group:
        line = self.t[self.i].line
        self.i += 1
        body = self.parse_list(("}",))
        self.expect_word("}", line)
        return Group(line, body, False, self.redirects())

    def function(self) -> Func:
        line = self.t[self.i].line
        self.i += 1
        tok = self.peek()
        if tok is None or tok.kind != "word":
            raise ShellSyntax("function without a name", line)
        self.i += 1
        name = tok.text.removesuffix("()")
        if self.at_op("("):
            self.i += 2
        self.skip_newlines()
        return Func(line, name, self.command())


def parse(text: str, first_line: int = 1) -> tuple[Seq, ShellSyntax | None]:
    """The syntax tree of ``text`` and the syntax error that stopped it (None: all read).

    On an error, the commands parsed before the construct that failed are still returned.
    """
    try:
        tokens = tokenize(text, first_line)
    except ShellSyntax as exc:
        return _partial(text, first_line, exc)
    parser = _Parser(tokens)
    try:
        seq = parser.parse_list()
        if parser.peek() is not None:
            tok = parser.peek()
            assert tok is not None
            raise ShellSyntax(f"unexpected {tok.text!r}", tok.line)
        return seq, None
    except ShellSyntax as exc:
        return _partial(text, first_line, exc)


def _partial(text: str, first_line: int, exc: ShellSyntax) -> tuple[Seq, ShellSyntax]:
    """The commands of the lines before the error's construct (re-parsed on their own)."""
    keep = exc.line - first_line
    if keep <= 0:
        return Seq(first_line, []), exc
    head = "\n".join(text.replace("\r\n", "\n").split("\n")[:keep])
    seq, _ = parse(head, first_line)
    return seq, exc

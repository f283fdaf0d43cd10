"""Shell script -> tokens: words (raw, quotes kept), operators, heredoc bodies, with lines.

Only reading: nothing is executed. The tokenizer understands what POSIX sh and bash scripts
use to configure hosts: comments, backslash line continuations, single and double quotes,
``$(...)``, ```...```, ``${...}`` and ``$((...))`` kept inside their word, the control
operators (``;`` ``&&`` ``||`` ``|`` ``&`` ``;;`` ``(`` ``)`` newline), redirections
(``>`` ``>>`` ``<`` ``2>&1`` ``&>``) and here-documents (``<<EOF``, ``<<-EOF``, quoted
delimiters), whose body is attached to the ``<<`` token.

A word keeps its quotes (:mod:`.script_words` expands it later, when the variables it uses
are known). An unterminated quote or substitution raises :class:`ShellSyntax` with its line.
"""

from __future__ import annotations

from dataclasses import dataclass

OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")")
"""Control operators, longest first."""
_REDIRECTS = ("<<<", "<<-", "<<", ">>", "&>>", "&>", ">&", "<&", ">|", "<>", ">", "<")
_SPECIAL = set(" \t\n;&|()<>")


class ShellSyntax(Exception):
    """The script is not valid shell at ``line`` (what could be read before it still is)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class Token:
    """One token: ``kind`` is ``word``, ``op``, ``redir`` or ``newline``."""

    kind: str
    text: str
    line: int
    fd: str = ""
    """File descriptor before a redirection (``2`` of ``2>``)."""
    heredoc: str | None = None
    """Body of a here-document (``<<`` tokens)."""
    heredoc_line: int = 0
    """Line of the first body line."""
    heredoc_expand: bool = True
    """False when the delimiter was quoted (``<<'EOF'``): no expansion in the body."""


@dataclass
class _Pending:
    token: Token
    delimiter: str
    strip_tabs: bool


class _Lexer:
    def __init__(self, text: str, first_line: int) -> None:
        self.s = text.replace("\r\n", "\n")
        self.i = 0
        self.line = first_line
        self.tokens: list[Token] = []
        self.pending: list[_Pending] = []

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.s[j] if j < len(self.s) else ""

    def run(self) -> list[Token]:
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "\\" and self.peek(1) == "\n":
                self.i += 2
                self.line += 1
            elif ch in " \t":
                self.i += 1
            elif ch == "\n":
                self.tokens.append(Token("newline", "\n", self.line))
                self.i += 1
                self.line += 1
                self._heredocs()
            elif ch == "#":
                while self.i < len(self.s) and self.s[self.i] != "\n":
                    self.i += 1
            elif self._operator():
                continue
            else:
                self._word()
        if self.pending:
            self._heredocs()
        return self.tokens

    def _operator(self) -> bool:
        fd = ""
        j = self.i
        while j < len(self.s) and self.s[j].isdigit():
            j += 1
        if j > self.i and j < len(self.s) and self.s[j] in "<>":
            fd = self.s[self.i : j]
        for redir in _REDIRECTS:
            if self.s.startswith(redir, j) and (fd or j == self.i):
                self.i = j + len(redir)
                token = Token("redir", redir, self.line, fd=fd)
                self.tokens.append(token)
                if redir in ("<<", "<<-"):
                    self._heredoc_start(token, redir == "<<-")
                return True
        for op in OPERATORS:
            if self.s.startswith(op, self.i):
                self.i += len(op)
                self.tokens.append(Token("op", op, self.line))
                return True
        return False

    def _heredoc_start(self, token: Token, strip_tabs: bool) -> None:
        while self.peek() in (" ", "\t"):
            self.i += 1
        start = self.i
        self._scan_word()
        raw = self.s[start : self.i]
        quoted = any(q in raw for q in "'\"\\")
        delimiter = raw.replace("'", "").replace('"', "").replace("\\", "")
        token.heredoc_expand = not quoted
        self.tokens.append(Token("word", raw, self.line))
        self.pending.append(_Pending(token, delimiter, strip_tabs))

    def _heredocs(self) -> None:
        for item in self.pending:
            body: list[str] = []
            item.token.heredoc_line = self.line
            while True:
                if self.i >= len(self.s):
                    raise ShellSyntax(
                        f"here-document not closed (no line {item.delimiter!r})", item.token.line
                    )
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                text = self.s[self.i : end]
                self.i = end + 1
                self.line += 1
                check = text.lstrip("\t") if item.strip_tabs else text
                if check.rstrip() == item.delimiter:
                    break
                body.append(check)
            item.token.heredoc = "\n".join(body)
        self.pending = []

    def _word(self) -> None:
        start, line = self.i, self.line
        self._scan_word()
        self.tokens.append(Token("word", self.s[start : self.i], line))

    def _scan_word(self) -> None:
        start = self.i
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "(" and self.i > start and self.s[self.i - 1] == "=":
                self._balanced(self.i)  # an array assignment: name=(a b c)
                continue
            if ch in _SPECIAL:
                return
            if ch == "\\":
                if self.peek(1) == "\n":
                    self.line += 1
                self.i += 2
            elif ch == "'":
                self._until("'", self.i + 1)
            elif ch == '"':
                self._double()
            elif ch == "`":
                self._until("`", self.i + 1)
            elif ch == "$" and self.peek(1) in ("(", "{"):
                self._balanced(self.i + 1)
            else:
                self.i += 1

    def _until(self, quote: str, j: int) -> None:
        line = self.line
        while j < len(self.s) and self.s[j] != quote:
            if self.s[j] == "\\" and quote != "'":
                j += 1
            if j < len(self.s) and self.s[j] == "\n":
                self.line += 1
            j += 1
        if j >= len(self.s):
            raise ShellSyntax(f"unterminated {quote} quote", line)
        self.i = j + 1

    def _double(self) -> None:
        line = self.line
        self.i += 1
        while self.i < len(self.s) and self.s[self.i] != '"':
            ch = self.s[self.i]
            if ch == "\\":
                self.i += 2
                continue
            if ch == "$" and self.peek(1) in ("(", "{"):
                self._balanced(self.i + 1)
                continue
            if ch == "`":
                self._until("`", self.i + 1)
                continue
            if ch == "\n":
                self.line += 1
            self.i += 1
        if self.i >= len(self.s):
            raise ShellSyntax('unterminated " quote', line)
        self.i += 1

    def _balanced(self, j: int) -> None:
        """Skip ``(...)`` / ``{...}`` starting at ``j`` (quotes inside respected)."""
        line = self.line
        open_ch = self.s[j]
        close = ")" if open_ch == "(" else "}"
        depth = 0
        while j < len(self.s):
            ch = self.s[j]
            if ch == "\\":
                j += 2
                continue
            if ch in "'\"":
                end = self.s.find(ch, j + 1)
                if end < 0:
                    break
                self.line += self.s.count("\n", j, end)
                j = end + 1
                continue
            if ch == "\n":
                self.line += 1
            if ch == open_ch:
                depth += 1
            elif ch == close:
                depth -= 1
                if depth == 0:
                    self.i = j + 1
                    return
            j += 1
        raise ShellSyntax(f"unterminated ${open_ch}", line)


def tokenize(text: str, first_line: int = 1) -> list[Token]:
    """The tokens of ``text``; ShellSyntax for an unterminated quote or here-document."""
    return _Lexer(text, first_line).run()

"""Expand one shell word with the variables known so far, without running anything.

What is expanded: quotes, backslashes, ``$NAME`` / ``${NAME}`` of variables the script
assigned a literal value, ``${NAME:-default}`` when NAME is known, positional parameters of
a function call, ``$((...))`` integer arithmetic over known values, brace expansion
(``{0..7}``, ``{a,b}``) and field splitting of unquoted expansions (``for i in $NICS``).

What is not (the field then holds :data:`UNKNOWN` where the value would be, and the reason is
recorded): command substitution (``$(...)``, backticks), variables the script never assigned
literally (the environment, ``read``, a loop over command output), ``$1`` outside a function
call, other ``${...}`` operators and arrays. A field with an unquoted ``*``, ``?`` or ``[``
is a glob: the file names it matches on the host are not known (:func:`is_glob`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

UNKNOWN = "\x00"
"""Stands for a part of a word whose value is not known."""
GLOB = "\x01"
"""Marks an unquoted glob character in an expanded field."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACE_RANGE = re.compile(r"\{(-?\d+)\.\.(-?\d+)\}")
_BRACE_LIST = re.compile(r"\{([^{}$\s'\"]*,[^{}$\s'\"]*)\}")
_MAX_FIELDS = 4096


@dataclass
class Env:
    """Variables (None = assigned a value that is not known), positional parameters."""

    vars: dict[str, str | None] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)
    args: list[str] | None = None
    """Positional parameters ($1 ...); None = the script's own arguments (not known)."""

    def copy(self) -> Env:
        """A copy for a subshell or a function call."""
        return Env(dict(self.vars), dict(self.why), None if self.args is None else list(self.args))

    def unknown(self, name: str, why: str) -> None:
        """Mark ``name`` as holding a value that is not known."""
        self.vars[name] = None
        self.why[name] = why


class Expander:
    """Expands words in one environment; collects why parts are unknown."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.reasons: list[str] = []

    def fields(self, raw: str) -> list[str]:
        """The fields a word expands to (brace expansion, then splitting)."""
        out: list[str] = []
        for word in _braces(raw):
            out.extend(self._fields(word))
            if len(out) > _MAX_FIELDS:
                self.reasons.append("too many words")
                return [UNKNOWN]
        return out

    def text(self, raw: str) -> str:
        """The word as one string (assignments, here-document lines: no splitting)."""
        return " ".join(self._fields(raw, split=False))

    def _fields(self, raw: str, split: bool = True) -> list[str]:
        parts: list[tuple[str, bool]] = []  # (text, may split)
        i = 0
        quoted = False
        while i < len(raw):
            ch = raw[i]
            if ch == "\\" and not quoted:
                parts.append((raw[i + 1 : i + 2], False))
                i += 2
            elif ch == "'" and not quoted:
                end = raw.find("'", i + 1)
                end = len(raw) if end < 0 else end
                parts.append((raw[i + 1 : end], False))
                i = end + 1
            elif ch == "$" and raw[i + 1 : i + 2] == "'" and not quoted:
                end = raw.find("'", i + 2)
                end = len(raw) if end < 0 else end
                parts.append((raw[i + 2 : end], False))
                i = end + 1
            elif ch == '"':
                quoted = not quoted
                i += 1
            elif ch == "\\" and quoted:
                nxt = raw[i + 1 : i + 2]
                parts.append((nxt if nxt in '$`"\\' else "\\" + nxt, False))
                i += 2
            elif ch == "$":
                value, i = self._dollar(raw, i)
                parts.append((value, not quoted))
            elif ch == "`":
                end = raw.find("`", i + 1)
                i = len(raw) if end < 0 else end + 1
                self.reasons.append("command substitution `...`")
                parts.append((UNKNOWN, False))
            else:
                glob = ch in "*?[" and not quoted
                parts.append((GLOB + ch if glob else ch, False))
                i += 1
        return _join(parts, split)

    def _dollar(self, raw: str, i: int) -> tuple[str, int]:
        nxt = raw[i + 1 : i + 2]
        if raw.startswith("$((", i):
            end = _close(raw, i + 1)
            return self._arith(raw[i + 3 : end - 1]), end + 1
        if nxt == "(":
            end = _close(raw, i + 1)
            self.reasons.append(f"command substitution {raw[i : end + 1][:60]}")
            return UNKNOWN, end + 1
        if nxt == "{":
            end = raw.find("}", i)
            end = len(raw) if end < 0 else end
            return self._braced(raw[i + 2 : end]), end + 1
        match = _NAME.match(raw, i + 1)
        if match is not None:
            return self._var(match.group(0)), match.end()
        if nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
            return self._special(nxt), i + 2
        return "$", i + 1

    def _var(self, name: str) -> str:
        if name not in self.env.vars:
            self.reasons.append(f"${name} is not set by the script (environment)")
            return UNKNOWN
        value = self.env.vars[name]
        if value is None:
            self.reasons.append(f"${name}: {self.env.why.get(name, 'value not known')}")
            return UNKNOWN
        return value

    def _special(self, ch: str) -> str:
        args = self.env.args
        if ch.isdigit() and ch != "0" and args is not None:
            n = int(ch)
            return args[n - 1] if n <= len(args) else ""
        if ch in "@*" and args is not None:
            return " ".join(args)
        if ch == "#" and args is not None:
            return str(len(args))
        self.reasons.append(f"${ch} (the script's arguments or run-time state)")
        return UNKNOWN

    def _braced(self, inner: str) -> str:
        match = _NAME.fullmatch(inner)
        if match is not None:
            return self._var(inner)
        if inner.isdigit():
            return self._special(inner) if len(inner) == 1 else self._unknown(inner)
        op = re.fullmatch(r"([A-Za-z_]\w*):?[-=](.*)", inner)
        if op is not None:
            name, default = op.group(1), op.group(2)
            value = self.env.vars.get(name, UNKNOWN)
            if name in self.env.vars and value is not None:
                return value or self.text(default)
            return self._var(name)
        return self._unknown(inner)

    def _unknown(self, inner: str) -> str:
        self.reasons.append(f"${{{inner}}} is not expanded")
        return UNKNOWN

    def _arith(self, expr: str) -> str:
        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            known = self.env.vars.get(name)
            return known if known is not None and re.fullmatch(r"-?\d+", known) else "x"

        text = re.sub(r"\$\{?([A-Za-z_]\w*)\}?|\b([A-Za-z_]\w*)\b", value, expr)
        result = _evaluate(text)
        if result is None:
            self.reasons.append(f"arithmetic $(({expr.strip()})) over values not known")
            return UNKNOWN
        return str(result)


def _close(raw: str, j: int) -> int:
    """Index of the ``)`` that closes the ``(`` at ``j``."""
    depth = 0
    while j < len(raw):
        if raw[j] == "(":
            depth += 1
        elif raw[j] == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(raw) - 1


def _join(parts: list[tuple[str, bool]], split: bool) -> list[str]:
    fields: list[str] = []
    current = ""
    started = False
    for text, splittable in parts:
        if not (split and splittable):
            current += text
            started = True
            continue
        pieces = re.split(r"[ \t\n]+", text)
        for n, piece in enumerate(pieces):
            if n > 0 and (current or started):
                fields.append(current)
                current, started = "", False
            current += piece
            started = started or bool(piece)
    if current or started:
        fields.append(current)
    return [f for f in fields if f or not split] if split else fields or [""]


def _braces(raw: str) -> list[str]:
    """Brace expansion of an unquoted word (``p{0..3}`` -> p0 p1 p2 p3)."""
    if "'" in raw or '"' in raw or "{" not in raw or "${" in raw:
        return [raw]
    match = _BRACE_RANGE.search(raw)
    if match is not None:
        low, high = int(match.group(1)), int(match.group(2))
        step = 1 if high >= low else -1
        if abs(high - low) > _MAX_FIELDS:
            return [raw]
        head, tail = raw[: match.start()], raw[match.end() :]
        return [w for n in range(low, high + step, step) for w in _braces(f"{head}{n}{tail}")]
    match = _BRACE_LIST.search(raw)
    if match is not None:
        head, tail = raw[: match.start()], raw[match.end() :]
        return [w for item in match.group(1).split(",") for w in _braces(head + item + tail)]
    return [raw]


_BINOPS: dict[type[ast.operator], Callable[[int, int], int | None]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None,
    ast.RShift: lambda a, b: a >> b if 0 <= b < 64 else None,
    ast.BitOr: lambda a, b: a | b,
    ast.BitAnd: lambda a, b: a & b,
}


def _evaluate(text: str) -> int | None:
    """An integer expression of literals and + - * / % << >> | &, or None."""
    text = text.replace("/", "//")
    if not re.fullmatch(r"[\d\s+\-*/%<>|&()]+", text) or len(text) > 200:
        return None
    try:
        tree = ast.parse(text, mode="eval")
        value = _node(tree.body)
    except (SyntaxError, ArithmeticError, TypeError):
        return None
    return value if value is not None and abs(value) < 2**63 else None


def _node(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _node(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _node(node.left), _node(node.right)
        if left is None or right is None:
            return None
        return _BINOPS[type(node.op)](left, right)
    return None


def is_unknown(text: str) -> bool:
    """True when part of ``text`` is not known."""
    return UNKNOWN in text


def is_glob(text: str) -> bool:
    """True when ``text`` has an unquoted glob character."""
    return GLOB in text


def plain(text: str) -> str:
    """``text`` without glob marks (for messages and literal use)."""
    return text.replace(GLOB, "").replace(UNKNOWN, "?")

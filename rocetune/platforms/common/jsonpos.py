"""A JSON reader that keeps the line of every key and reports duplicate keys.

The standard library parser loses positions and silently keeps the last duplicate key;
config_db.json files are edited by hand, so both matter for findings that point at lines.

Two passes, both linear: the values (and every syntax error, with its line and column) come
from the C ``json`` decoder; then one regular-expression scan over the already validated
text visits only strings and the structural characters ``{ } [ ] ,`` to give each key path
(and each array element) its line and to spot duplicate keys. Scalar values are never
visited by the scan, so a large config costs a few Python steps per key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rocetune.errors import ParseError

JsonPath = tuple[str | int, ...]

_MAX_DEPTH = 200
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"\s*(?:(:)|([,}\]]))?|[{}\[\],]')
"""A key (a string and its colon: group 1), a string value with the delimiter after it
(group 2; none after a top-level string), or a structural character."""
_NON_WS = re.compile(r"[^ \t\n\r]")
_CONSTANTS = {"NaN", "Infinity", "-Infinity"}


@dataclass
class JsonDoc:
    """A parsed document: plain Python values plus line numbers by path."""

    value: Any
    lines: dict[JsonPath, int] = field(default_factory=dict)
    duplicates: list[tuple[JsonPath, int]] = field(default_factory=list)

    def line(self, *path: str | int) -> int | None:
        """Line of the key at ``path`` (or of its nearest recorded parent)."""
        p: JsonPath = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.lines.get((), None)


def _fail(text: str, file: str, msg: str, pos: int) -> ParseError:
    pos = min(pos, len(text))
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return ParseError(f"invalid JSON: {msg}", file=file, line=line, column=column)


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _decode(text: str, file: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        msg = exc.msg.lower().removesuffix(" at").removesuffix(" starting")
        if exc.pos >= len(text):
            msg = "unexpected end of file"
        raise _fail(text, file, msg, exc.pos) from None
    except RecursionError:
        raise _fail(text, file, "nesting too deep", 0) from None
    except ValueError as exc:  # NaN / Infinity: valid Python, not JSON
        word = str(exc.args[0]) if exc.args else "constant"
        pos = _constant_pos(text, word)
        raise _fail(text, file, f"unexpected word {word!r}", pos) from None


def _constant_pos(text: str, word: str) -> int:
    """Position of ``word`` outside strings (the decoder does not tell)."""
    pattern = re.compile(r'"(?:[^"\\]|\\.)*"|' + re.escape(word), re.S)
    for m in pattern.finditer(text):
        if m.group(0) in _CONSTANTS:
            return m.start()
    return 0


@dataclass
class _Frame:
    path: JsonPath
    is_object: bool
    index: int = 0
    """Arrays: index of the next element."""
    keys: set[str] = field(default_factory=set)
    """Objects: keys seen so far in this object (duplicates; the keys under a later
    duplicate are new keys of a new object, as in the decoded value)."""


def _key(token: str) -> str:
    end = token.rindex('"')
    if "\\" not in token:
        return token[1:end]
    decoded: str = json.loads(token[: end + 1])
    return decoded


def _scan(text: str, file: str, doc: JsonDoc) -> None:
    """Record key and array-element lines and duplicate keys (the text is valid JSON)."""
    stack: list[_Frame] = []
    child: JsonPath = ()
    line, last = 1, 0
    lines, dups, count = doc.lines, doc.duplicates, text.count
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if m.group(1) is not None:  # a key
            pos = m.start()
            line += count("\n", last, pos)
            last = pos
            frame = stack[-1]
            key = _key(token)
            child = (*frame.path, key)
            if key in frame.keys:
                dups.append((child, line))
            else:
                frame.keys.add(key)
                lines[child] = line
            continue
        ch = m.group(2) or token[0]
        if ch == '"':
            continue
        if ch == ",":
            if not stack[-1].is_object:
                line, last = _element(text, m.end(), stack[-1], lines, (line, last))
                child = (*stack[-1].path, stack[-1].index - 1)
        elif ch in "}]":
            stack.pop()
        elif ch in "{[":
            if len(stack) >= _MAX_DEPTH:
                raise _fail(text, file, "nesting too deep", m.start())
            stack.append(_Frame(child if stack else (), ch == "{"))
            if ch == "[":
                line, last = _element(text, m.end(), stack[-1], lines, (line, last))
                child = (*stack[-1].path, stack[-1].index - 1)


def _element(
    text: str, pos: int, frame: _Frame, lines: dict[JsonPath, int], at: tuple[int, int]
) -> tuple[int, int]:
    """Record the line of the array element that starts after ``pos`` (if any).

    ``at`` is (line, position) of the last counted point; the updated pair is returned.
    """
    line, last = at
    m = _NON_WS.search(text, pos)
    if m is None or m.group(0) == "]":
        return line, last
    start = m.start()
    line += text.count("\n", last, start)
    lines[(*frame.path, frame.index)] = line
    frame.index += 1
    return line, start


def parse_json(text: str, file: str) -> JsonDoc:
    """Parse ``text``; raise ParseError with file, line and column on invalid JSON."""
    text = text.lstrip("\ufeff")
    doc = JsonDoc(value=_decode(text, file))
    _scan(text, file, doc)
    doc.lines.setdefault((), 1)
    return doc

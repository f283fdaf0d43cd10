"""A JSON reader that keeps the line of every key and reports duplicate keys.

The standard library parser loses positions and silently keeps the last duplicate key;
config_db.json files are edited by hand, so both matter for findings that point at lines.
"""

from __future__ import annotations

import bisect
import json.decoder
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rocetune.errors import ParseError

JsonPath = tuple[str | int, ...]

_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_MAX_DEPTH = 200


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


class _Reader:
    def __init__(self, text: str, file: str) -> None:
        self.s = text
        self.file = file
        self.doc = JsonDoc(value=None)
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos_line(self, pos: int) -> tuple[int, int]:
        idx = bisect.bisect_right(self._line_starts, pos) - 1
        return idx + 1, pos - self._line_starts[idx] + 1

    def fail(self, msg: str, pos: int) -> ParseError:
        line, col = self.pos_line(min(pos, len(self.s)))
        return ParseError(f"invalid JSON: {msg}", file=self.file, line=line, column=col)

    def ws(self, pos: int) -> int:
        m = _WS.match(self.s, pos)
        return m.end() if m else pos

    def value(self, pos: int, path: JsonPath, depth: int) -> tuple[Any, int]:
        if depth > _MAX_DEPTH:
            raise self.fail("nesting too deep", pos)
        pos = self.ws(pos)
        if pos >= len(self.s):
            raise self.fail("unexpected end of file", pos)
        ch = self.s[pos]
        if ch == "{":
            return self.obj(pos + 1, path, depth)
        if ch == "[":
            return self.arr(pos + 1, path, depth)
        if ch == '"':
            return self.string(pos)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(word, pos):
                return val, pos + len(word)
        m = _NUMBER.match(self.s, pos)
        if m and m.end() > pos:
            if m.group(2) or m.group(3):
                return float(m.group(0)), m.end()
            return int(m.group(0)), m.end()
        raise self.fail(f"unexpected character {ch!r}", pos)

    def string(self, pos: int) -> tuple[str, int]:
        try:
            return _scanstring(self.s, pos + 1, True)
        except ValueError as exc:
            raise self.fail("bad string", pos) from exc

    def obj(self, pos: int, path: JsonPath, depth: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        pos = self.ws(pos)
        if self.s.startswith("}", pos):
            return out, pos + 1
        while True:
            pos = self.ws(pos)
            if not self.s.startswith('"', pos):
                raise self.fail("expected a quoted key", pos)
            key_line = self.pos_line(pos)[0]
            key, pos = self.string(pos)
            pos = self.ws(pos)
            if not self.s.startswith(":", pos):
                raise self.fail("expected ':'", pos)
            child = (*path, key)
            val, pos = self.value(pos + 1, child, depth + 1)
            if key in out:
                self.doc.duplicates.append((child, key_line))
            else:
                self.doc.lines[child] = key_line
            out[key] = val
            pos = self.ws(pos)
            if self.s.startswith(",", pos):
                pos += 1
                continue
            if self.s.startswith("}", pos):
                return out, pos + 1
            raise self.fail("expected ',' or '}'", pos)

    def arr(self, pos: int, path: JsonPath, depth: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        pos = self.ws(pos)
        if self.s.startswith("]", pos):
            return out, pos + 1
        while True:
            pos = self.ws(pos)
            child = (*path, len(out))
            self.doc.lines[child] = self.pos_line(pos)[0]
            val, pos = self.value(pos, child, depth + 1)
            out.append(val)
            pos = self.ws(pos)
            if self.s.startswith(",", pos):
                pos += 1
                continue
            if self.s.startswith("]", pos):
                return out, pos + 1
            raise self.fail("expected ',' or ']'", pos)


def parse_json(text: str, file: str) -> JsonDoc:
    """Parse ``text``; raise ParseError with file, line and column on invalid JSON."""
    reader = _Reader(text.lstrip("\ufeff"), file)
    value, pos = reader.value(0, (), 0)
    pos = reader.ws(pos)
    if pos != len(reader.s):
        raise reader.fail("extra data after the document", pos)
    reader.doc.value = value
    reader.doc.lines.setdefault((), 1)
    return reader.doc

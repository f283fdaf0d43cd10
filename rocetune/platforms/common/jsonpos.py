"""A JSON reader that keeps the line of every key and reports duplicate keys.

The standard library parser loses positions and silently keeps the last duplicate key;
config_db.json files are edited by hand, so both matter for findings that point at lines.

Two passes, both linear: the values (and every syntax error, with its line and column) come
from the C ``json`` decoder; then the keys get their lines. A document of objects only
(CONFIG_DB) is placed by counting the newlines before each ``":`` in C and pairing them with
the decoded keys in order (:func:`_line_scan`, one Python step per key), or else by one
regular-expression match per key (:func:`_fast_scan`); anything else (arrays, duplicate
keys) by one regular-expression scan over the already validated text that visits only
strings and the structural characters ``{ } [ ] ,`` to give each key path (and each array
element) its line and to spot duplicate keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from typing import Any

from rocetune.errors import ParseError

JsonPath = tuple[str | int, ...]

_MAX_DEPTH = 200
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"\s*(?:(:)|([,}\]]))?|[{}\[\],]')
"""A key (a string and its colon: group 1), a string value with the delimiter after it
(group 2; none after a top-level string), or a structural character."""
_KEY_VALUE = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"\s*(?:(:)\s*(?:"[^"\\]*(?:\\.[^"\\]*)*")?)?')
"""A string (group 1: its text as written) and, when it is a key (group 2: its colon), the
string value after it."""
_NON_WS = re.compile(r"[^ \t\n\r]")
_SPACED_COLON = re.compile(r'"[ \t\r\n]+:')
"""A key written with white space before its colon (or a string that starts so)."""
_CONSTANTS = {"NaN", "Infinity", "-Infinity"}
NOT_DECODED: Any = object()
"""No value decoded before (:func:`parse_json`)."""
_DECODED_DEPTH = 32
"""Objects nested at most this deep in a document :func:`parse_json` takes decoded: far
from the recursion limit, where decoding the text here could have failed."""


class JsonNode:
    """Lines of one object's keys (or one array's elements) and the nodes of its children."""

    __slots__ = ("kids", "lines")

    def __init__(self) -> None:
        self.lines: dict[str | int, int] = {}
        """Line of each key (array: of each element), in document order."""
        self.kids: dict[str | int, JsonNode] = {}
        """Node of each child that is an object or an array."""


@dataclass
class JsonDoc:
    """A parsed document: plain Python values plus line numbers by path."""

    value: Any
    root: JsonNode = field(default_factory=JsonNode)
    duplicates: list[tuple[JsonPath, int]] = field(default_factory=list)

    def node(self, *path: str | int) -> JsonNode | None:
        """The node of the object or array at ``path`` (None when there is none)."""
        node: JsonNode | None = self.root
        for part in path:
            if node is None:
                return None
            node = node.kids.get(part)
        return node

    def line(self, *path: str | int) -> int | None:
        """Line of the key at ``path`` (or of its nearest recorded parent)."""
        best: int | None = 1
        node: JsonNode | None = self.root
        for part in path:
            if node is None:
                break
            line = node.lines.get(part)
            if line is None:
                break
            best = line
            node = node.kids.get(part)
        return best

    @property
    def lines(self) -> dict[JsonPath, int]:
        """Line of every key path (and array element), the document itself at ``()``."""
        out: dict[JsonPath, int] = {(): 1}
        todo: list[tuple[JsonPath, JsonNode]] = [((), self.root)]
        while todo:
            path, node = todo.pop()
            for key, line in node.lines.items():
                out[(*path, key)] = line
            todo.extend(((*path, key), kid) for key, kid in node.kids.items())
        return out


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
    node: JsonNode
    is_object: bool
    index: int = 0
    """Arrays: index of the next element."""
    seen: set[str] | None = None
    """Keys seen so far, for an object written again under a duplicate key (and the objects
    below it): its node is the earlier object's, so its lines are updated and the keys only
    the earlier object has keep theirs (None: the node's own keys)."""


def _key(token: str) -> str:
    end = token.rindex('"')
    if "\\" not in token:
        return token[1:end]
    decoded: str = json.loads(token[: end + 1])
    return decoded


def _scan(text: str, file: str, doc: JsonDoc) -> None:
    """Record key and array-element lines and duplicate keys (the text is valid JSON)."""
    stack: list[_Frame] = []
    child: str | int | None = None
    again = False  # the last key was a duplicate, or is in an object written again
    line, last = 1, 0
    dups, count = doc.duplicates, text.count
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if m.group(1) is not None:  # a key
            pos = m.start()
            line += count("\n", last, pos)
            last = pos
            frame = stack[-1]
            key = child = _key(token)
            seen = frame.seen
            if key in (frame.node.lines if seen is None else seen):
                dups.append(((*frame.path, key), line))
                again = True
            else:
                if seen is not None:
                    seen.add(key)
                frame.node.lines[key] = line
                again = seen is not None
            continue
        ch = m.group(2) or token[0]
        if ch == '"':
            continue
        if ch == ",":
            top = stack[-1]
            if not top.is_object:
                line, last = _element(text, m.end(), top, (line, last))
                child = top.index - 1
        elif ch in "}]":
            stack.pop()
        elif ch in "{[":
            if len(stack) >= _MAX_DEPTH:
                raise _fail(text, file, "nesting too deep", m.start())
            frame = _open(stack[-1] if stack else None, child, again, doc.root, ch == "{")
            stack.append(frame)
            if ch == "[":
                line, last = _element(text, m.end(), frame, (line, last))
                child = frame.index - 1


def _open(
    parent: _Frame | None, child: str | int | None, again: bool, root: JsonNode, is_object: bool
) -> _Frame:
    """The frame of an object or array that opens as ``child`` of ``parent`` (the document
    when None). ``again``: ``child`` is a duplicate key, or a key of an object written
    again; its node is then the earlier one's, updated (see :attr:`_Frame.seen`)."""
    if parent is None:
        return _Frame((), root, is_object)
    assert child is not None
    kids = parent.node.kids
    reused = again if parent.is_object else parent.seen is not None
    earlier = kids.get(child) if reused else None
    node = kids[child] = earlier or JsonNode()
    path = (*parent.path, child)
    return _Frame(path, node, is_object, seen=None if earlier is None else set())


def _element(text: str, pos: int, frame: _Frame, at: tuple[int, int]) -> tuple[int, int]:
    """Record the line of the array element that starts after ``pos`` (if any).

    ``at`` is (line, position) of the last counted point; the updated pair is returned.
    """
    line, last = at
    m = _NON_WS.search(text, pos)
    if m is None or m.group(0) == "]":
        return line, last
    start = m.start()
    line += text.count("\n", last, start)
    frame.node.lines[frame.index] = line
    frame.index += 1
    return line, start


class _Fallback(Exception):
    """The fast key scan cannot place this document's keys (arrays, duplicates...)."""


def _fast_scan(text: str, value: dict[str, Any]) -> JsonNode:
    """The node tree of a document of objects only, without duplicate keys.

    The keys in the text, in order, are the keys of the decoded value walked depth first
    (``dict`` keeps the order of the text): one regular-expression match per key (a string
    value after it is taken by the same match), matched as the walk goes (no list of all
    strings is ever held). Anything else (an array, a string that is no key, a duplicate
    key: more keys in the text than in the value, a key that differs) raises
    :class:`_Fallback`, and the full token scan places the lines.
    """
    matches = _KEY_VALUE.finditer(text)
    count = text.count
    at = [1, 0]  # line, position counted up to

    def walk(obj: dict[str, Any]) -> JsonNode:
        node = JsonNode()
        own, kids = node.lines, node.kids
        for key, child in obj.items():
            m = next(matches, None)
            if m is None or m.group(2) is None:
                raise _Fallback  # fewer keys than the value, or a string that is no key
            raw = m.group(1)
            if raw != key and not _same([raw], [key]):
                raise _Fallback
            pos = m.start()
            at[0] += count("\n", at[1], pos)
            at[1] = pos
            own[key] = at[0]
            kind = type(child)
            if kind is dict:
                kids[key] = walk(child)
            elif kind is list:
                raise _Fallback
        return node

    try:
        root = walk(value)
    except RecursionError:
        raise _Fallback from None
    if next(matches, None) is not None:
        raise _Fallback
    return root


def _line_scan(text: str, value: dict[str, Any], depth: int = -1) -> JsonNode | None:
    """The node tree of a document of objects only, without a regular expression; None when
    the text is not one this can place (then :func:`_fast_scan`).

    With no escaped quote in the text, a ``":`` is the end of a key or the start of a
    string that starts with a colon (a string's own quotes are escaped; a string value is
    never followed by a colon). With no key written ``"k" :`` either, every key ends in one,
    so when the text has exactly as many as the value has keys (more: a duplicate key, or a
    string that starts with a colon), they are the keys in the order of the text: the
    order of the decoded value walked depth first. The line of each is counted in C (the
    newlines between one and the next); placing them is one Python step per key. A value
    nested more than ``depth`` objects deep (negative: any depth) is not placed.
    """
    if ("\\" in text and '\\"' in text) or _SPACED_COLON.search(text):
        return None  # (a one-character search first: a two-character one is ~100x slower)
    lines = accumulate(chain.from_iterable(_newlines_before_keys(text)), initial=1)
    next(lines)  # the first line, before any key
    try:
        root = _place(value, lines, depth)
    except (StopIteration, _Fallback, RecursionError):
        return None  # fewer keys in the text than in the value, an array
    if next(lines, None) is not None:
        return None  # more keys in the text than in the value
    return root


_WINDOW = 1 << 16
"""Characters split at a time (a whole config split at once held a copy of it: the peak of
a parse rose by its size)."""


def _newlines_before_keys(text: str) -> Iterator[list[int]]:
    """The newlines between each ``":`` of ``text`` and the one before it (the first: since
    the start), in lists, counted in C a window of text at a time. Windows end at a newline,
    which no ``":`` spans."""
    carry, start, size = 0, 0, len(text)
    while start < size:
        end = start + _WINDOW
        if end >= size:
            end = size
        else:
            cut = text.rfind("\n", start, end)
            end = cut + 1 if cut >= 0 else (text.find("\n", end) + 1 or size)
        counts = list(map(str.count, text[start:end].split('":'), repeat("\n")))
        after = counts.pop()  # after the window's last key: before the next window's first
        if counts:
            counts[0] += carry
            carry = after
            yield counts
        else:
            carry += after
        start = end


def _place(obj: dict[str, Any], lines: Iterator[int], depth: int) -> JsonNode:
    """:func:`_line_scan`'s walk: the next lines of ``lines`` to the keys of ``obj``
    (StopIteration: ``lines`` ran out; _Fallback: objects nested more than ``depth``)."""
    node = JsonNode()
    own, kids = node.lines, node.kids
    for key, child in obj.items():
        own[key] = next(lines)
        kind = type(child)
        if kind is dict:
            if not depth:
                raise _Fallback
            kids[key] = _place(child, lines, depth - 1)
        elif kind is list:
            raise _Fallback  # element lines come from the token scan
    return node


def _same(written: list[str], keys: Iterable[str]) -> bool:
    """The keys as written (JSON escapes not decoded) are ``keys``."""
    out = list(keys)
    if len(out) != len(written):
        return False
    for raw, key in zip(written, out, strict=True):
        if raw != key and ("\\" not in raw or json.loads(f'"{raw}"') != key):
            return False
    return True


def parse_json(text: str, file: str, *, decoded: Any = NOT_DECODED) -> JsonDoc:
    """Parse ``text``; raise ParseError with file, line and column on invalid JSON.

    ``decoded``: what :func:`json.loads` gave for this text elsewhere (a platform's sniff
    decodes the file it recognises), taken instead of decoding it again when the text is a
    document of objects only, at most :data:`_DECODED_DEPTH` deep, that :func:`_line_scan`
    places (where decoding it here could not fail); any other text is decoded here as if
    none were given (NaN, Infinity and nesting errors are this decoder's)."""
    text = text.lstrip("\ufeff")
    if decoded is not NOT_DECODED and type(decoded) is dict:
        placed = _line_scan(text, decoded, _DECODED_DEPTH)
        if placed is not None:
            return JsonDoc(value=decoded, root=placed)
    doc = JsonDoc(value=_decode(text, file))
    if type(doc.value) is dict:
        placed = _line_scan(text, doc.value)
        if placed is not None:
            doc.root = placed
            return doc
        try:
            doc.root = _fast_scan(text, doc.value)
            return doc
        except _Fallback:
            doc.root = JsonNode()
    _scan(text, file, doc)
    return doc

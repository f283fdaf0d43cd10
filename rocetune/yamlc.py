"""Fast YAML reading that keeps line and column: libyaml (PyYAML's C parser), read as ruamel reads.

ruamel.yaml is pure Python and about 30x slower than libyaml on the same text, which made it
the largest part of an audit of NVUE switches and of a big inventory. This module composes
the document with libyaml (``yaml.CSafeLoader``: the node graph keeps every start mark, so
every key keeps its file line) and resolves plain scalars as ruamel's round-trip loader does
(YAML 1.2 core schema: ``on``/``yes`` stay strings, ``010`` is 10, ``2025-12-31`` a date).

It only takes documents it reads exactly as ruamel would. Anything else raises
:class:`Unusual` and the caller reads the text with ruamel as before: libyaml missing, a
``%YAML`` directive, anything that may be a tag (``!`` after a space), merge keys,
duplicate keys, complex keys, numbers ruamel spells its own way (``1_000``, ``0x1F``,
``0o17``), timestamps with a time, tabs anywhere, and every syntax error (so error messages,
lines and columns stay ruamel's). Aliases are kept as shared nodes; callers that expand them
count what they expand (an alias bomb is one small graph).

``import yaml`` happens on first use, never at import time.
"""

from __future__ import annotations

import contextlib
import datetime
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

PLAIN = "?"
"""Tag given to an untagged plain scalar at compose time (resolved here, YAML 1.2)."""
STR = "tag:yaml.org,2002:str"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INF = frozenset({".inf", ".Inf", ".INF"})
_NAN = frozenset({".nan", ".NaN", ".NAN"})
_NUMERIC_START = frozenset("-+.0123456789")

# What this module converts itself (no underscores, decimal only).
_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(
    r"[-+]?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|\.[0-9]+(?:[eE][-+][0-9]+)?)"
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# What ruamel's YAML 1.2 resolver also takes as a number or a timestamp: left to ruamel.
_OTHER_NUMBER = re.compile(
    r"[-+]?(?:0b[0-1_]+|0o?[0-7_]+|[0-9_]+|0x[0-9a-fA-F_]+"
    r"|[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|\.[0-9_]+(?:[eE][-+][0-9]+)?|\.(?:inf|Inf|INF))"
    r"|[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+).*"
)
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)
_TAG = re.compile(r"(?:^|[\s,\[{:?-])!")


class Unusual(Exception):
    """The document uses something this reader leaves to ruamel (the message says what)."""


@cache
def _loader() -> Any:
    """The libyaml loader class with untagged plain scalars marked :data:`PLAIN`, or None."""
    try:
        import yaml
    except ImportError:
        return None
    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        return None
    scalar_node = yaml.ScalarNode

    class Loader(base):  # type: ignore[misc,valid-type]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is scalar_node and implicit[0]:
                return PLAIN
            return super().resolve(kind, value, implicit)

    return Loader


def available() -> bool:
    """True when PyYAML with libyaml is installed."""
    return _loader() is not None


def _checked_loader(text: str) -> Any:
    """A libyaml loader on the text; raise Unusual when the text needs ruamel."""
    loader_class = _loader()
    if loader_class is None:
        raise Unusual("PyYAML with libyaml is not installed")
    if "%" in text and _DIRECTIVE.search(text):
        raise Unusual("YAML directive")
    if "!" in text and _TAG.search(text):
        raise Unusual("tag (ruamel and libyaml differ on tag syntax)")
    if "\t" in text:
        raise Unusual("tab (libyaml takes tabs as separators where ruamel refuses them)")
    return loader_class(text)


def compose(text: str) -> Any:
    """The node graph of a one-document YAML text (None when empty); raise Unusual."""
    loader = _checked_loader(text)
    import yaml

    try:
        return _compose(loader, yaml)
    except yaml.YAMLError as exc:
        raise Unusual(f"libyaml: {exc}") from None
    finally:
        loader.dispose()


class Node:
    """A node of the composed graph: its tag, its value (a string; a list of nodes; a list
    of (key node, value node)) and where it starts (0-based). PyYAML's own nodes keep two
    marks of six attributes each: ~750 bytes a node, 46x the text of an NVUE config."""

    __slots__ = ("column", "line", "tag", "value")

    def __init__(self, tag: str, value: Any, line: int, column: int) -> None:
        self.tag, self.value, self.line, self.column = tag, value, line, column

    @property
    def start_mark(self) -> Node:
        """Spelled like PyYAML's node: ``node.start_mark.line`` / ``.column``."""
        return self


def _compose(loader: Any, yaml: Any) -> Node | None:
    """libyaml's events -> the graph of :class:`Node` (what ``get_single_node`` composes,
    with tags resolved by the loader; an alias is the node of its anchor)."""
    get_event = loader.get_event
    get_event()  # stream start
    if isinstance(loader.peek_event(), yaml.StreamEndEvent):
        return None
    get_event()  # document start
    root = _Composer(loader, yaml).document()
    get_event()  # document end
    if not isinstance(loader.peek_event(), yaml.StreamEndEvent):
        raise Unusual("more than one document")
    return root


class _Composer:
    """One document's events -> nodes, the open collections on a stack."""

    def __init__(self, loader: Any, yaml: Any) -> None:
        self.get_event, self.resolve = loader.get_event, loader.resolve
        self.yaml = yaml
        self.anchors: dict[str, Node] = {}

    def node(self, event: Any, kind: Any) -> Node:
        """The node an event starts (an alias: its anchor's node)."""
        yaml = self.yaml
        if kind is yaml.AliasEvent:
            found = self.anchors.get(event.anchor)
            if found is None:
                raise Unusual(f"undefined alias {event.anchor}")
            return found
        mark, tag = event.start_mark, event.tag
        if kind is yaml.ScalarEvent:
            if tag is None or tag == "!":
                tag = self.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = Node(tag, event.value, mark.line, mark.column)
        else:
            if kind is yaml.MappingStartEvent:
                what = yaml.MappingNode
            elif kind is yaml.SequenceStartEvent:
                what = yaml.SequenceNode
            else:
                raise Unusual(f"unexpected {kind.__name__}")
            if tag is None or tag == "!":
                tag = self.resolve(what, None, event.implicit)
            node = Node(tag, [], mark.line, mark.column)
        if event.anchor is not None:
            if event.anchor in self.anchors:
                raise Unusual(f"duplicate anchor {event.anchor}")
            self.anchors[event.anchor] = node
        return node

    def document(self) -> Node:
        yaml = self.yaml
        map_start, seq_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
        ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
        stack: list[Node] = []  # open collections
        keys: list[Node | None] = []  # per open mapping: its key awaiting a value
        maps: list[bool] = []  # per open collection: whether it is a mapping
        while True:
            event = self.get_event()
            kind = type(event)
            if kind in ends:
                node = stack.pop()
                if maps.pop():
                    keys.pop()
                if not stack:
                    return node
                continue
            node = self.node(event, kind)
            if stack:
                if maps[-1]:
                    key = keys[-1]
                    if key is None:
                        keys[-1] = node
                    else:
                        stack[-1].value.append((key, node))
                        keys[-1] = None
                else:
                    stack[-1].value.append(node)
            if kind is map_start or kind is seq_start:
                stack.append(node)
                maps.append(kind is map_start)
                if kind is map_start:
                    keys.append(None)
            elif not stack:
                return node


class Events:
    """libyaml's parse events of a text, for readers that build their values straight from
    them (no node graph: a composed graph is ~20x the text). Same checks as :func:`compose`
    (raise Unusual); every libyaml error is raised as Unusual too. ``kinds`` are PyYAML's
    event classes; close with :meth:`dispose`."""

    def __init__(self, text: str) -> None:
        import yaml

        self.kinds = yaml
        self._loader = _checked_loader(text)
        self._get, self._peek = self._loader.get_event, self._loader.peek_event
        self.raw_get = self._get
        """The next event, libyaml's errors raised as they are (``kinds.YAMLError``): for a
        reader's inner loop, which turns them into Unusual once, outside."""
        self._resolve, self._scalar_node = self._loader.resolve, yaml.ScalarNode

    def get(self) -> Any:
        """The next event."""
        try:
            return self._get()
        except self.kinds.YAMLError as exc:
            raise Unusual(f"libyaml: {exc}") from None

    def peek(self) -> Any:
        """The next event, left in the stream."""
        try:
            return self._peek()
        except self.kinds.YAMLError as exc:
            raise Unusual(f"libyaml: {exc}") from None

    def scalar(self, event: Any) -> Any:
        """The value of a scalar event as :func:`scalar` gives it for its node."""
        tag = event.tag
        if tag is None or tag == "!":
            tag = self._resolve(self._scalar_node, event.value, event.implicit)
        return scalar_of(tag, event.value)

    def dispose(self) -> None:
        self._loader.dispose()


def scalar(node: Any) -> Any:
    """The value of a scalar node as ruamel's round-trip loader gives it (plain Python
    types: str, int, float, bool, None, datetime.date); raise Unusual otherwise."""
    return scalar_of(node.tag, node.value)


def scalar_of(tag: str, value: str) -> Any:
    """:func:`scalar` of a scalar with this (resolved) tag and text."""
    if tag == STR:
        return value
    if tag != PLAIN:
        raise Unusual(f"tag {tag}")
    if not value or value[0] in _NUMERIC_START:
        return _number(value)
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if value in ("<<", "="):
        raise Unusual(f"key {value}")
    return value


def _number(value: str) -> Any:
    if not value or value == "~":
        return None
    if _INT.fullmatch(value):
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    if value in _INF or (value[1:] in _INF and value[0] in "+-"):
        return float("-inf") if value[0] == "-" else float("inf")
    if value in _NAN:
        return float("nan")
    if _DATE.fullmatch(value):
        try:
            return datetime.date(int(value[:4]), int(value[5:7]), int(value[8:10]))
        except ValueError:
            raise Unusual(f"date {value}") from None
    if _OTHER_NUMBER.fullmatch(value):
        raise Unusual(f"number {value}")
    return value


def pairs(node: Any) -> Iterator[tuple[Any, Any, Any]]:
    """(key value, key node, value node) of a mapping node; raise Unusual on a complex or a
    duplicate key (ruamel refuses duplicates: let it say so)."""
    seen: set[Any] = set()
    for key_node, value_node in node.value:
        if key_node.tag in (SEQ, MAP):
            raise Unusual("complex key")
        key = scalar(key_node)
        if key in seen:
            raise Unusual("duplicate key")
        seen.add(key)
        yield key, key_node, value_node


class Lines:
    """Positions of a loaded mapping or sequence, spelled like ruamel's ``.lc`` (0-based)."""

    __slots__ = ("_keys", "_values", "col", "line")

    def __init__(self, line: int, col: int) -> None:
        self.line, self.col = line, col
        self._keys: dict[Any, tuple[int, int]] = {}
        self._values: dict[Any, tuple[int, int]] = {}

    def key(self, key: Any) -> tuple[int, int]:
        """(line, column) of a mapping key."""
        return self._keys[key]

    def value(self, key: Any) -> tuple[int, int]:
        """(line, column) of a mapping value (or a sequence item)."""
        return self._values[key]

    def item(self, index: Any) -> tuple[int, int]:
        """(line, column) of a sequence item."""
        return self._values[index]


class PosMap(dict[Any, Any]):
    """A mapping read by :func:`load`, with ``.lc`` positions."""

    lc: Lines


class PosSeq(list[Any]):
    """A sequence read by :func:`load`, with ``.lc`` positions."""

    lc: Lines


def load(text: str) -> Any:
    """The document as PosMap/PosSeq/scalars (aliases become shared objects); raise Unusual."""
    node = compose(text)
    if node is None:
        return None
    return _build(node, {})


def _build(node: Any, done: dict[int, Any]) -> Any:
    seen = done.get(id(node))
    if seen is not None:
        return seen
    mark = node.start_mark
    if node.tag == MAP:
        out_map = PosMap()
        out_map.lc = lines = Lines(mark.line, mark.column)
        done[id(node)] = out_map
        for key, key_node, value_node in pairs(node):
            lines._keys[key] = (key_node.start_mark.line, key_node.start_mark.column)
            lines._values[key] = (value_node.start_mark.line, value_node.start_mark.column)
            out_map[key] = _build(value_node, done)
        return out_map
    if node.tag == SEQ:
        out_seq = PosSeq()
        out_seq.lc = lines = Lines(mark.line, mark.column)
        done[id(node)] = out_seq
        for index, item in enumerate(node.value):
            lines._values[index] = (item.start_mark.line, item.start_mark.column)
            out_seq.append(_build(item, done))
        return out_seq
    return scalar(node)


def adopt(node: Any) -> Any:
    """A document read by ruamel's round-trip loader as PosMap/PosSeq (its ``.lc`` positions
    copied), so callers handle one kind of tree whichever reader read it."""
    return _adopt(node, {})


def _adopt(node: Any, done: dict[int, Any]) -> Any:
    lc = getattr(node, "lc", None)
    if lc is None or not isinstance(node, dict | list):
        return node
    seen = done.get(id(node))
    if seen is not None:
        return seen
    lines = Lines(lc.line, lc.col)
    if isinstance(node, dict):
        out_map = PosMap()
        out_map.lc = lines
        done[id(node)] = out_map
        for key, value in node.items():
            for table, where in ((lines._keys, lc.key), (lines._values, lc.value)):
                with contextlib.suppress(KeyError, IndexError, TypeError):
                    table[key] = tuple(where(key))  # none for a merged key
            out_map[key] = _adopt(value, done)
        return out_map
    out_seq = PosSeq()
    out_seq.lc = lines
    done[id(node)] = out_seq
    for index, item in enumerate(node):
        with contextlib.suppress(KeyError, IndexError, TypeError):
            lines._values[index] = tuple(lc.item(index))
        out_seq.append(_adopt(item, done))
    return out_seq


def alias_events(text: str) -> Iterator[tuple[str, int, int]]:
    """(anchor, 0-based line, column) of every alias in the text, read with libyaml;
    raise Unusual when libyaml is missing or the text is not YAML."""
    if "*" not in text:
        return
    loader_class = _loader()
    if loader_class is None:
        raise Unusual("PyYAML with libyaml is not installed")
    import yaml

    loader = loader_class(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            mark = event.start_mark
            if isinstance(event, yaml.AliasEvent) and mark is not None:
                yield str(event.anchor), mark.line, mark.column
    except yaml.YAMLError as exc:
        raise Unusual(f"libyaml: {exc}") from None
    finally:
        loader.dispose()

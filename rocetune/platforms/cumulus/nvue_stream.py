"""Read a list of NVUE revision items straight from libyaml's parse events (no node graph).

:mod:`.nvue_yaml` used to compose the whole document first (``yamlc.compose``: the graph
alone is ~20x the text) and then convert it. Here every value is built as its events arrive,
in document order, so the values, key lines, Unparsed items, alias budget and errors are the
ones the composed reader gives (it visits the nodes in the same order):

- only a list of revision items is read here (what ``nv config show`` writes); any other
  document, and any document with an anchor (a node that may be reached twice), returns
  None and is read from the composed graph as before;
- Unparsed items are kept aside and recorded only once the whole document was read (a
  document handed to ruamel afterwards records them once, as before);
- when the alias budget runs out, the rest of the events are still read: a syntax error,
  an alias or a second document later in the text means the composed reader would have
  handed the text to ruamel (``yamlc.Unusual``), so that is raised instead.
"""

from __future__ import annotations

from array import array
from typing import Any

from rocetune import yamlc
from rocetune.errors import ParseError
from rocetune.platforms.cumulus.tree import ConfigTree, Issues, Shape, deep_merge

NODES_PER_LINE = 20
"""Alias budget: a document may expand to at most this many values per line of text (plus
:data:`NODES_BASE`). NVUE never writes anchors; a hand-written file that shares a block with
``&a``/``*a`` stays far below it, while a nested alias bomb (a kilobyte that expands to 10^9
values) is refused at once instead of exhausting memory."""
NODES_BASE = 10_000
_ShapeKey = tuple[tuple[str, ...], tuple[int, ...], tuple[Shape | None, ...], bool]
_Entries = tuple[dict[str, Any], list[str], list[int], list[Shape | None], list[Any]]
_NEW = object()
"""Not in a cache (None is a value)."""
_SHARED_KEYS = 16
"""Shapes of at most this many keys are looked up to be shared (a port's; not the list of
all ports, which is one of a kind)."""


class Budget:
    """How many more values the document may expand to."""

    def __init__(self, text: str, file: str) -> None:
        self.left = NODES_BASE + NODES_PER_LINE * (text.count("\n") + 1)
        self.file = file
        self.release = "&" not in text
        """No anchor, so no node is reached twice: a node's children are dropped once it is
        read (the composed graph is ~20x the text; held whole next to the values it was)."""

    def spend(self, node: Any) -> None:
        """One value read from ``node`` (a libyaml node or a ruamel value)."""
        mark = getattr(node, "start_mark", None)
        line = mark.line if mark is not None else getattr(getattr(node, "lc", None), "line", None)
        self.spend_at(line)

    def spend_at(self, line: int | None) -> None:
        """One value read at this 0-based line."""
        self.left -= 1
        if self.left < 0:
            msg = (
                "YAML aliases expand this document far beyond its size (an alias bomb?);"
                " refusing to read it"
            )
            raise ParseError(msg, file=self.file, line=line + 1 if line is not None else None)


class _Anchored(Exception):
    """The document has an anchor: the composed reader shares the anchored node."""


def load_events(body: str, file: str, issues: Issues) -> ConfigTree | None:
    """The tree of a revision-item list read from events; None for any other document (or
    one with anchors); raise yamlc.Unusual (ruamel reads it) or ParseError (alias budget)."""
    events = yamlc.Events(body)
    try:
        return _Reader(events, Budget(body, file)).document(issues)
    except _Anchored:
        return None
    except events.kinds.YAMLError as exc:
        raise yamlc.Unusual(f"libyaml: {exc}") from None
    finally:
        events.dispose()


class _Reader:
    def __init__(self, events: yamlc.Events, budget: Budget) -> None:
        self.events, self.get, self.budget = events, events.raw_get, budget
        kinds = events.kinds
        self.scalar_kind, self.alias_kind = kinds.ScalarEvent, kinds.AliasEvent
        self.map_start, self.map_end = kinds.MappingStartEvent, kinds.MappingEndEvent
        self.seq_start, self.seq_end = kinds.SequenceStartEvent, kinds.SequenceEndEvent
        self.found: list[tuple[str, str, int]] = []  # Unparsed items, recorded at the end
        # The objects read so far, so equal ones are held once (ids: of shared objects, which
        # the shared objects holding them keep alive while this reader lives).
        self.mappings: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.shapes: dict[_ShapeKey, Shape] = {}
        self.strings: dict[str, str] = {}
        self.names: dict[str, str] = {}  # key text -> its key_name
        # Untagged plain scalars by their text, read once (resolving and converting the text
        # was most of a key's cost): a key's (value, name), a value's plain value. Floats are
        # left out: a NaN is equal to no other, and one object would make it a duplicate key.
        self.plain_keys: dict[str, tuple[Any, str]] = {}
        self.plain_values: dict[str, Any] = {}

    def document(self, issues: Issues) -> ConfigTree | None:
        get, peek, kinds = self.get, self.events.peek, self.events.kinds
        tree = ConfigTree()
        get()  # stream start
        if isinstance(peek(), kinds.StreamEndEvent):
            return tree
        get()  # document start
        first = peek()
        if type(first) is not self.seq_start or first.anchor is not None:
            return None
        get()
        try:
            index = 0
            while True:
                event = get()
                kind = type(event)
                if kind is self.seq_end:
                    break
                self.check(event, kind)
                if kind is self.map_start:
                    self.item(tree)
                else:
                    line = event.start_mark.line + 1
                    self.found.append((f"[{index}]", "revision item is not a mapping", line))
                    self.skip(kind)
                index += 1
            get()  # document end
            if not isinstance(peek(), kinds.StreamEndEvent):
                raise yamlc.Unusual("more than one document")
        except ParseError:
            self.drain()
            raise
        for item, reason, line in self.found:
            issues.add(item, reason, line)
        return tree

    def check(self, event: Any, kind: Any) -> None:
        """An anchor: leave the document to the composed reader; an alias (no anchor was
        seen, so it is undefined): as the composer, hand the text to ruamel."""
        if kind is self.alias_kind:
            raise yamlc.Unusual(f"undefined alias {event.anchor}")
        if getattr(event, "anchor", None) is not None:
            raise _Anchored

    def key(self, event: Any, seen: set[Any]) -> Any:
        """The value of a mapping key event (``yamlc.pairs``' checks)."""
        kind = type(event)
        self.check(event, kind)
        if kind is not self.scalar_kind:
            raise yamlc.Unusual("complex key")
        key = self.events.scalar(event)
        if key in seen:
            raise yamlc.Unusual("duplicate key")
        seen.add(key)
        return key

    def skip(self, kind: Any) -> None:
        """The rest of a node whose start event was read (checked, not converted)."""
        if kind is not self.map_start and kind is not self.seq_start:
            return
        depth = 1
        while depth:
            event = self.get()
            kind = type(event)
            self.check(event, kind)
            if kind is self.map_start or kind is self.seq_start:
                depth += 1
            elif kind is self.map_end or kind is self.seq_end:
                depth -= 1

    def drain(self) -> None:
        """Read the rest of the stream for what the composer would have refused."""
        kinds = self.events.kinds
        documents = 0
        while True:
            event = self.get()
            kind = type(event)
            if kind is kinds.StreamEndEvent:
                break
            if kind is kinds.DocumentStartEvent:
                documents += 1
            self.check(event, kind)
        if documents:
            raise yamlc.Unusual("more than one document")

    def item(self, tree: ConfigTree) -> None:
        """One revision item (its mapping start read)."""
        get, scalar = self.get, self.events.scalar
        seen: set[Any] = set()
        while True:
            event = get()
            if type(event) is self.map_end:
                return
            name = key_name(self.key(event, seen))
            key_line = event.start_mark.line + 1
            value = get()
            kind = type(value)
            self.check(value, kind)
            if name == "header" and kind is self.map_start:
                tree.header.update(self.header())
            elif name == "set" and kind is self.map_start:
                content, shape = self.value(value, kind, 0)
                deep_merge(tree.root, content)
                if shape is not None:
                    tree.shapes.append(shape)
            elif name == "set" and kind is self.scalar_kind and scalar(value) is None:
                continue
            elif name == "unset" and kind is self.map_start:
                apply_unset(self.value(value, kind, 0)[0], tree.root)
            else:
                self.found.append((name, "unknown NVUE revision item or wrong type", key_line))
                self.skip(kind)

    def header(self) -> dict[str, str]:
        get, scalar = self.get, self.events.scalar
        out: dict[str, str] = {}
        seen: set[Any] = set()
        while True:
            event = get()
            if type(event) is self.map_end:
                return out
            name = key_name(self.key(event, seen))
            value = get()
            kind = type(value)
            self.check(value, kind)
            if kind is not self.scalar_kind:
                raise yamlc.Unusual("nested header value")
            out[name] = str(scalar(value))

    def value(self, event: Any, kind: Any, ref: int) -> tuple[Any, Shape | None]:
        """The plain value of the node ``event`` starts and the :class:`Shape` of its keys'
        lines (offsets from ``ref``, the line of the key that holds it). Equal mappings and
        shapes are one object each (:meth:`share`), strings one per text."""
        self.budget.spend_at(event.start_mark.line)
        if kind is self.scalar_kind:
            value = plain_scalar(self.events.scalar(event))
            if type(value) is str:
                value = self.strings.setdefault(value, value)
            return value, None
        if kind is self.map_start:
            return self.mapping(ref)
        if kind is self.seq_start:
            return self.sequence(ref)
        raise yamlc.Unusual(f"unexpected {kind.__name__}")

    def mapping(self, ref: int) -> tuple[dict[str, Any], Shape | None]:
        """:meth:`value` of a mapping (its start event read)."""
        event = self.get()
        if type(event) is self.map_end:  # {}: most of a port's mappings (``up: {}``)
            return self.mappings.setdefault((), {}), None
        out, keys, offsets, children, tokens = self.entries(event, ref)
        names = tuple(keys)
        # one object per distinct mapping: the same names with the same tokens
        shared = self.mappings.setdefault((names, tuple(tokens)), out)
        return shared, self.shape(names, offsets, children, True)

    def entries(self, event: Any, ref: int) -> _Entries:
        """The entries of a mapping (its first key ``event`` read): the mapping, its names,
        their offsets from ``ref``, the shapes and the _token() of their values. Untagged
        keys, scalars and mappings, nearly all of a document, are read inline (the reader's
        inner loop), each plain text resolved once (:attr:`plain_keys`, :attr:`plain_values`)."""
        get, scalar_kind, map_start, map_end = (
            self.get,
            self.scalar_kind,
            self.map_start,
            self.map_end,
        )
        budget, strings, plain_keys, plain_values = (
            self.budget,
            self.strings,
            self.plain_keys,
            self.plain_values,
        )
        keys: list[str] = []
        offsets: list[int] = []
        children: list[Shape | None] = []
        tokens: list[Any] = []
        out: dict[str, Any] = {}
        seen: set[Any] = set()
        value: Any
        while (kind := type(event)) is not map_end:
            # the key: as self.key()
            if kind is not scalar_kind or event.anchor is not None:
                self.refuse_key(event, kind)
            key, name = (
                plain_keys.get(event.value) if event.tag is None and event.implicit[0] else None
            ) or self.new_key(event)
            if key in seen:
                raise yamlc.Unusual("duplicate key")
            seen.add(key)
            line = event.start_mark.line + 1
            # the value: as self.value()
            event = get()
            kind = type(event)
            if event.anchor is not None:  # an anchor or an alias
                self.check(event, kind)
            shape: Shape | None = None
            if kind is map_start or (kind is scalar_kind and event.tag is None):
                if budget.left <= 0:
                    budget.spend_at(event.start_mark.line)  # raises
                budget.left -= 1
                if kind is map_start:
                    value, shape = self.mapping(line)
                    token: Any = id(value)
                elif not event.implicit[0]:  # quoted: its text
                    value = token = strings.setdefault(event.value, event.value)
                else:
                    value = plain_values.get(event.value, _NEW)
                    if value is _NEW:
                        value = self.new_value(event)
                    token = value if type(value) is str else _token(value)
            else:
                value, shape = self.value(event, kind, line)
                token = _token(value)
            if name in out:  # two keys read as one name: the later one wins
                i = keys.index(name)
                offsets[i], children[i], tokens[i] = line - ref, shape, token
            else:
                keys.append(name)
                offsets.append(line - ref)
                children.append(shape)
                tokens.append(token)
            out[name] = value
            event = get()
        return out, keys, offsets, children, tokens

    def refuse_key(self, event: Any, kind: Any) -> None:
        """Raise for a key that is not a scalar or has an anchor (as :meth:`key`)."""
        self.check(event, kind)
        raise yamlc.Unusual("complex key")

    def new_key(self, event: Any) -> tuple[Any, str]:
        """(value, key_name) of a key event not in :attr:`plain_keys` (kept there when it is
        an untagged plain scalar)."""
        key = self.events.scalar(event)
        name = self.names.get(key) if type(key) is str else None
        if name is None:
            name = key_name(key)
            if type(key) is str:
                self.names[key] = name
        if event.tag is None and event.implicit[0] and type(key) is not float:
            self.plain_keys[event.value] = (key, name)
        return key, name

    def new_value(self, event: Any) -> Any:
        """:meth:`value` of an untagged plain scalar not in :attr:`plain_values` (kept there)."""
        value = plain_scalar(self.events.scalar(event))
        if type(value) is str:
            value = self.strings.setdefault(value, value)
        if type(value) is not float:
            self.plain_values[event.value] = value
        return value

    def sequence(self, ref: int) -> tuple[list[Any], Shape | None]:
        """:meth:`value` of a sequence (its start event read)."""
        get, seq_end = self.get, self.seq_end
        keys: list[str] = []
        offsets: list[int] = []
        children: list[Shape | None] = []
        items: list[Any] = []
        while True:
            event = get()
            kind = type(event)
            if kind is seq_end:
                return items, self.shape(tuple(keys), offsets, children, False)
            if event.anchor is not None:  # an anchor or an alias
                self.check(event, kind)
            line = event.start_mark.line + 1
            value, shape = self.value(event, kind, line)
            keys.append(str(len(items)))
            offsets.append(line - ref)
            children.append(shape)
            items.append(value)

    def shape(
        self,
        keys: tuple[str, ...],
        offsets: list[int],
        children: list[Shape | None],
        recorded: bool,
    ) -> Shape | None:
        """The one :class:`Shape` of these keys, offsets and child shapes (None: no keys)."""
        if not keys:
            return None
        if len(keys) > _SHARED_KEYS:  # one of a kind (the ports): offsets as 4-byte numbers
            return Shape(keys, array("i", offsets), tuple(children), recorded)
        # The child shapes compare and hash by identity (Shape defines no __eq__), as their
        # ids would; a Shape is made only for a signature not seen yet.
        sig = (keys, tuple(offsets), tuple(children), recorded)
        found = self.shapes.get(sig)
        if found is None:
            found = self.shapes[sig] = Shape(*sig)
        return found


def _token(value: Any) -> Any:
    """What tells a value apart from the other values of the same key, for sharing equal
    mappings: a text or None itself, a mapping its id (the nested mappings are already
    shared), a list its id (lists are never shared), a number its type too (``1`` is not
    ``1.0`` nor ``true``), a float its text (``-0.0`` is ``0.0``; a NaN is equal to none)."""
    cls = type(value)
    if cls is str or value is None:
        return value
    if cls is dict:
        return id(value)
    if cls is list:
        return (cls, id(value))
    return (cls, repr(value) if cls is float else value)


def plain_scalar(value: Any) -> Any:
    """A scalar as the tree holds it: None, bool, int, float, else its text."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def key_name(key: Any) -> str:
    """A mapping key as the tree holds it (``true``/``false`` for booleans)."""
    if isinstance(key, bool):
        return str(key).lower()
    # Not sys.intern: the interpreter's table of interned strings keeps a slot for each one
    # freed since its last resize, so interning every port's keys grew it by ~1 MB at some
    # run or other (a resize inside the lint of one 256-port switch: 7x -> 29x its config).
    # The event reader holds each key text once per document (Reader.names).
    return str(key)


def apply_unset(patch: Any, target: dict[str, Any]) -> None:
    """Remove from ``target`` the keys an ``unset`` item names."""
    if not isinstance(patch, dict):
        return
    for key, value in patch.items():
        if key not in target:
            continue
        child = target[key]
        if isinstance(value, dict) and value and isinstance(child, dict):
            child = target[key] = dict(child)  # copied first: it may be shared (deep_merge)
            apply_unset(value, child)
        else:
            del target[key]

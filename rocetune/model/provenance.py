"""Where model values came from: model path -> file and line.

Parsers fill a :class:`Provenance` per device; rules and reports read it to point a finding
at the line it is about.

A switch of 256 ports records some 20 paths per port (``ports.Ethernet0.mtu``, ...). Kept
as one string and one :class:`SourceRef` each, they were a third of what a parsed device
holds. So a path is stored split in two (:func:`_cut`): its parent (``ports.Ethernet0.``,
one node per port, found by the port's name) holds a small table of leaves (``mtu``,
``ecn.3``; the port's own path ``ports.Ethernet0`` is its leaf None); ports whose leaves
came in the same order share one leaf -> slot index (a *shape*, as interpreters lay out
objects), so a port's own table is an array of 8-byte codes (file number, line), and a
:class:`SourceRef` is made when a path is looked up. Lookups and :meth:`Provenance.items`
give the same paths and locations as a plain ``path -> SourceRef`` dict.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import eq
from typing import Any

_FILE_BITS = 20
"""Codes: ``(line + 1) << _FILE_BITS | file number``; a line of None is 0."""
_MAX_FILES = 1 << _FILE_BITS
_MAX_LINE = 1 << 42
_SHAPE_MAX = 160
"""A parent with more leaves (``unparsed.0`` ... ``unparsed.N``) keeps a dict of its own."""
_MEMBERS = ("ports.", "nics.")
"""Paths below a member (a port, a NIC) are kept in a table of members by name, not under
a parent string: a port's node is found by its name, which is the model's own string when
the platform records the port with :meth:`Provenance.add_member` (no ``ports.Ethernet0.``
string and no leaf ``Ethernet0`` of a parent ``ports.`` per port: ~190 bytes each)."""
Leaf = str | None
"""A leaf below a parent: None is a member's own path (``ports.Ethernet0``)."""
_PATTERNS_MAX = 1024
"""Pooled patterns of packed codes per Provenance at most (see :meth:`Provenance._pack`)."""
_GROUP_BITS = 12
_GROUP_MASK = (1 << _GROUP_BITS) - 1
"""A packed node is one int in its table: its first code << _GROUP_BITS | the number of its
(shape, pattern) pair (at most 4,096 pairs; then nodes stay unpacked)."""
_SHAPES_MAX = 4096
"""Shapes per Provenance at most: then new parents keep dicts of their own (bounded memory
on any input)."""
_CHAINS_MAX = 1024
"""Walks along the shapes kept per Provenance at most (see :meth:`Provenance.add_leaves`)."""


def _cut(path: str) -> tuple[int, str, Leaf]:
    """Where ``path`` is kept: (member kind, key, leaf).

    Below a port or NIC (kind 0 or 1), the key is the member's name (up to the dot after
    the first part of its name) and the leaf its field with any keys below it
    (``Ethernet0`` + ``ecn.3``; None for ``ports.Ethernet0`` itself), so a port is one node
    whatever the depth of its paths. Elsewhere (kind -1) the key is the parent up to the
    last dot and the leaf the rest. Any split gives the same answers; this one only decides
    what is stored together (``ports.swp1.100.mtu``, a name with a dot, is ``swp1`` +
    ``100.mtu``)."""
    if path.startswith("ports."):
        kind, start = 0, 6
    elif path.startswith("nics."):
        kind, start = 1, 5
    else:
        cut = path.rfind(".") + 1
        return -1, path[:cut], path[cut:]
    dot = path.find(".", start)
    if dot < 0:
        return kind, path[start:], None
    return kind, path[start:dot], path[dot + 1 :]


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a model value came from."""

    file: str
    line: int | None = None


class _Shape:
    """Leaf names in the order a parent recorded them -> their slot (shared by parents).

    The shapes of one chain (each one leaf more than the one before) share one ``index``
    dict: a leaf belongs to a shape when its slot is below the shape's ``size``. A chain of
    n leaves costs n entries, not n * n / 2; a shape that branches copies its part."""

    __slots__ = ("index", "next", "size")

    def __init__(self, index: dict[Leaf, int], size: int) -> None:
        self.index = index
        self.size = size
        self.next: dict[Leaf, _Shape] = {}

    def slot(self, leaf: Leaf) -> int | None:
        slot = self.index.get(leaf)
        return slot if slot is not None and slot < self.size else None

    def leaves(self) -> Iterator[tuple[Leaf, int]]:
        size = self.size
        for leaf, slot in self.index.items():
            if slot >= size:
                return  # the index is in slot order
            yield leaf, slot

    def extended(self, leaf: Leaf) -> _Shape:
        """The shape with ``leaf`` after this one's leaves (new: not in :attr:`next` yet)."""
        index = self.index
        if len(index) != self.size or leaf in index:  # not the chain's tip: copy my part
            index = dict(self.leaves())
        index[leaf] = self.size
        nxt = self.next[leaf] = _Shape(index, self.size + 1)
        return nxt


def _walk(shape: _Shape, leaves: Iterable[Leaf]) -> _Shape | None:
    """The shape reached from ``shape`` when each leaf takes the next slot, as
    :meth:`Provenance.add_many` adds it; None when a leaf is not one a shape before was
    extended by (new to this chain, or recorded already)."""
    for leaf in leaves:
        nxt = shape.next.get(leaf)
        if nxt is None:
            return None
        shape = nxt
    return shape


class _Node:
    """The leaves recorded under one parent path: a shared shape and its codes, or a dict.

    A node whose codes follow a pattern shared with the nodes of its shape before it is
    kept *packed*, as one int in its table (:meth:`Provenance._pack`): per slot the pattern
    has ``code << 1`` (the same line for every such node: a global map's) or
    ``(code - base) << 1 | 1`` (a line of the node's own block, at the same distance from
    its first, ``base``)."""

    __slots__ = ("codes", "own", "shape")

    def __init__(self, shape: _Shape | None) -> None:
        self.shape = shape
        self.codes: array[int] = array("q")
        self.own: dict[Leaf, Any] | None = None if shape is not None else {}

    def leaves(self) -> Iterator[tuple[Leaf, Any]]:
        if self.own is not None:
            yield from self.own.items()
            return
        assert self.shape is not None
        codes = self.codes
        for leaf, slot in self.shape.leaves():
            yield leaf, codes[slot]


class _Unspelled:
    """The pattern of a node whose packing was ruled out without spelling it (see
    :meth:`Provenance._pack`): spelled only when the next node of its shape may have it.
    Holds copies of the codes it is spelled from as they were then: either node may be
    recorded again before the next one comes."""

    __slots__ = ("codes", "template")

    def __init__(self, codes: array[int], template: array[int]) -> None:
        self.codes = codes[:]
        self.template = template[:]

    def __len__(self) -> int:
        return len(self.codes)

    def slot(self, i: int) -> int:
        """The pattern's code of slot ``i``."""
        return _spell_slot(self.codes, self.template, i)

    def spelled(self) -> tuple[int, ...]:
        """The whole pattern (the tuple :meth:`Provenance._pack` would have made)."""
        return tuple(_spell(self.codes, self.template))


def _spell(codes: array[int], template: array[int]) -> list[int]:
    """The pattern of a node's ``codes`` against the ``template`` (the codes of the node of
    its shape before it): per slot the code itself (even) where it is the template's, else
    its distance from the node's first code (odd)."""
    base = codes[0]
    return [c << 1 if c == t else (c - base) << 1 | 1 for c, t in zip(codes, template, strict=True)]


def _spell_slot(codes: array[int], template: array[int], i: int) -> int:
    """Slot ``i`` of :func:`_spell` alone."""
    c = codes[i]
    return c << 1 if c == template[i] else (c - codes[0]) << 1 | 1


_Pattern = tuple[int, ...] | _Unspelled
"""The pattern of the node of a shape packed last (:attr:`Provenance._recent`)."""


def _slot(pattern: _Pattern, i: int) -> int:
    """Slot ``i`` of a pattern, spelled or not."""
    return pattern.slot(i) if isinstance(pattern, _Unspelled) else pattern[i]


_Entry = _Node | int
"""What a table holds per key: a node, or a packed node (an int)."""


class _Refs(Mapping[str, SourceRef]):
    """``path -> SourceRef`` of the paths recorded one by one (a read-only view)."""

    __slots__ = ("_prov",)

    def __init__(self, prov: Provenance) -> None:
        self._prov = prov

    def __getitem__(self, path: str) -> SourceRef:
        ref = self._prov._exact(path)
        if ref is None:
            raise KeyError(path)
        return ref

    def __iter__(self) -> Iterator[str]:
        for path, _ in self._prov._recorded():
            yield path

    def __len__(self) -> int:
        return self._prov._count


class Provenance:
    """Model path (``ports.Ethernet0.pfc_rx``) -> source location.

    Lookups fall back to the longest recorded prefix of the path, so a parser may record
    a port once and refine individual fields where it knows the exact line.

    The entries of a map many ports bind (a DSCP map: 64 lines) are recorded once per map,
    not once per port: ``maps[path]`` is a table ``key -> SourceRef`` shared by every port
    bound to that map, and ``path.KEY`` is found there.
    """

    __slots__ = (
        "_chains",
        "_count",
        "_file_no",
        "_files",
        "_group_no",
        "_groups",
        "_interned",
        "_open",
        "_open_at",
        "_patterns",
        "_recent",
        "_root",
        "_shapes",
        "_tables",
        "_tree",
        "maps",
    )

    def __init__(
        self,
        refs: Mapping[str, SourceRef] | None = None,
        maps: dict[str, Mapping[str, SourceRef]] | None = None,
    ) -> None:
        self.maps: dict[str, Mapping[str, SourceRef]] = maps if maps is not None else {}
        self._tree: dict[str, _Entry] = {}
        """Parent path -> node, of the paths not below a member."""
        self._tables: tuple[dict[str, _Entry], ...] = ({}, {}, self._tree)
        """Per kind of :func:`_cut` (0 ports, 1 NICs, -1 the rest): key -> node."""
        self._files: list[str] = []
        self._file_no: dict[str, int] = {}
        self._root = _Shape({}, 0)
        self._shapes = 1
        self._count = 0
        self._interned: dict[tuple[str, int | None], SourceRef] = {}
        self._open: _Node | None = None
        """The node recorded last (not packed: records come port by port)."""
        self._open_at: tuple[dict[str, _Entry], str] = (self._tree, "")
        """Where :attr:`_open` is held (its table and key)."""
        self._groups: list[tuple[_Shape, tuple[int, ...]]] = []
        """The (shape, pattern) pairs of packed nodes, by number."""
        self._group_no: dict[tuple[int, int], int] = {}
        """(id of the shape, id of the pattern) -> its number in :attr:`_groups`."""
        self._recent: dict[_Shape, tuple[array[int], _Pattern | None]] = {}
        """Shape -> the codes of the node of that shape packed last, and its pattern if that
        one was not pooled (yet)."""
        self._patterns: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._chains: dict[tuple[_Shape, tuple[str, ...]], _Shape] = {}
        """(shape, leaves) -> the shape reached by adding the leaves in order, each new
        and in an order seen before (see :meth:`add_leaves`)."""
        for path, ref in (refs or {}).items():
            self.set(path, ref.file, ref.line)

    @property
    def refs(self) -> Mapping[str, SourceRef]:
        """The paths recorded with :meth:`add`/:meth:`set` (map entries not spelled out)."""
        return _Refs(self)

    def __repr__(self) -> str:
        return f"Provenance({len(self.refs)} refs, {len(self.maps)} maps)"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Provenance):
            return NotImplemented
        return dict(self._recorded()) == dict(other._recorded()) and self.maps == other.maps

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, Any]:
        """The tables as they are (shapes numbered, codes as bytes): spelling every path out
        and recording it again made a 64-port switch's pickle ~25x slower both ways (a
        process pool sends every parsed device's provenance to the parent)."""
        number: dict[int, int] = {id(self._root): 0}
        shapes = [self._root]
        indexes: dict[int, int] = {}
        flat: list[tuple[int, int, list[tuple[Leaf, int]]]] = []
        for shape in shapes:  # grows while walked: every shape reachable from the root
            nexts = []
            for leaf, nxt in shape.next.items():
                if id(nxt) not in number:
                    number[id(nxt)] = len(shapes)
                    shapes.append(nxt)
                nexts.append((leaf, number[id(nxt)]))
            flat.append((indexes.setdefault(id(shape.index), len(indexes)), shape.size, nexts))
        index_list: list[dict[Leaf, int]] = [{} for _ in indexes]
        for shape in shapes:
            index_list[indexes[id(shape.index)]] = shape.index
        tree = [
            (
                kind,
                key,
                number[id(node.shape)] if node.shape is not None else -1,
                node.codes.tobytes(),
                node.own,
            )
            for kind in (-1, 0, 1)
            for key, entry in self._tables[kind].items()
            for node in (self._node_of(entry),)
        ]
        return {
            "v": 3,
            "files": self._files,
            "maps": self.maps,
            "indexes": index_list,
            "shapes": flat,
            "tree": tree,
            "count": self._count,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "refs" in state:  # the spelled-out form
            Provenance.__init__(self, state["refs"], state["maps"])
            return
        if state.get("v") != 3:
            raise ValueError("provenance tables of another layout")
        Provenance.__init__(self, None, state["maps"])
        self._files = list(state["files"])
        self._file_no = {file: i for i, file in enumerate(self._files)}
        indexes = state["indexes"]
        shapes = [_Shape(indexes[index], size) for index, size, _ in state["shapes"]]
        for shape, (_, _, nexts) in zip(shapes, state["shapes"], strict=True):
            shape.next = {leaf: shapes[i] for leaf, i in nexts}
        self._root = shapes[0]
        self._shapes = len(shapes)
        self._count = state["count"]
        for kind, key, shape_no, codes, own in state["tree"]:
            node = _Node(shapes[shape_no] if shape_no >= 0 else None)
            self._tables[kind][key] = node
            node.codes = array("q", codes)
            node.own = own

    def _code(self, file: str, line: int | None) -> int | None:
        number = self._file_no.get(file)
        if number is None:
            if len(self._files) >= _MAX_FILES:
                return None
            number = self._file_no[file] = len(self._files)
            self._files.append(file)
        if line is None:
            return number
        if not 0 <= line < _MAX_LINE:
            return None
        return (line + 1) << _FILE_BITS | number

    def _decode(self, code: int) -> SourceRef:
        line = code >> _FILE_BITS  # a new SourceRef per lookup: nothing grows on reading
        return SourceRef(self._files[code & (_MAX_FILES - 1)], line - 1 if line else None)

    def _ref(self, file: str, line: int | None) -> SourceRef:
        """One shared SourceRef per (file, line): map tables point many keys at one line."""
        key = (file, line)
        ref = self._interned.get(key)
        if ref is None:
            ref = self._interned[key] = SourceRef(file, line)
        return ref

    def _record(self, path: str, file: str, line: int | None, overwrite: bool) -> None:
        kind, key, leaf = _cut(path)
        self._put(self._tables[kind], key, leaf, file, line, overwrite=overwrite)

    def _node_of(self, entry: _Entry) -> _Node:
        """The node of a table entry (a packed one spelled out: a new node)."""
        if type(entry) is not int:
            return entry  # type: ignore[return-value]
        shape, pattern = self._groups[entry & _GROUP_MASK]
        base = entry >> _GROUP_BITS
        node = _Node(shape)
        node.codes = array("q", [base + (c >> 1) if c & 1 else c >> 1 for c in pattern])
        return node

    def _put(
        self,
        table: dict[str, _Entry],
        key: str,
        leaf: Leaf,
        file: str,
        line: int | None,
        *,
        overwrite: bool,
    ) -> None:
        """Record ``leaf`` of the node ``table[key]`` (made when new)."""
        node = self._opened(table, key)
        number = self._file_no.get(file)
        shape = node.shape  # None: the node keeps a dict of its own
        if shape is not None and number is not None and line is not None and 0 <= line < _MAX_LINE:
            code = (line + 1) << _FILE_BITS | number
            nxt = shape.next.get(leaf)
            if nxt is not None:  # the common case: a new leaf in the order seen before
                node.shape = nxt
                node.codes.append(code)
                self._count += 1
                return
            slot = shape.index.get(leaf)
            if slot is not None and slot < shape.size:
                if overwrite:
                    node.codes[slot] = code
                return
            self._new_leaf(node, shape, leaf, code)
            return
        self._record_other(node, leaf, file, line, overwrite)

    def _opened(self, table: dict[str, _Entry], key: str) -> _Node:
        """The node ``table[key]`` to record in (made when new, spelled out when packed);
        the node recorded before is packed when it is another one."""
        entry = table.get(key)
        if entry is None:
            node = _Node(self._root if self._shapes < _SHAPES_MAX else None)
            table[key] = node
        elif type(entry) is int:
            node = table[key] = self._node_of(entry)
        else:
            node = entry  # type: ignore[assignment]
        if node is not self._open:
            self._reopen(node, table, key)
        return node

    def _reopen(self, node: _Node, table: dict[str, _Entry], key: str) -> None:
        """``node`` (``table[key]``, spelled out) is recorded now: pack the node recorded
        before (its port is complete, as a rule)."""
        last = self._open
        if last is not None:
            packed = self._pack(last)
            if packed is not None:
                where, name = self._open_at
                where[name] = packed
        self._open = node
        self._open_at = (table, key)

    def _pack(self, node: _Node) -> int | None:
        """Share ``node``'s codes with the nodes of its shape that came before it, where they
        follow one pattern (ports configured alike: ~20 codes each, 230 -> 0 bytes). Slots
        whose code equals the one of the node packed before are taken as they are, the
        others relative to the node's first code; a pattern is pooled when two nodes in a
        row have it (a node whose codes follow none keeps its array).

        The pattern is made a tuple only when it is not the one of the node before: a tuple
        made per port and dropped for the pooled one stayed in CPython's free list of its
        size (one per port, ~200 bytes, held until the end of the run).

        While no pattern is pooled, a node can only be packed when its pattern is the one
        of the node before, so one slot (the last) that differs rules it out: the pattern is
        not spelled then, only kept to be spelled when the next node may have it
        (:class:`_Unspelled`). Where ports are not written in one block of lines each (a
        SONiC port's lines are spread over its tables, at distances that differ per port),
        no node is ever packed: this made every one cost ~5 us (a list and a tuple of all
        its codes); the nodes packed, and how, are the same either way.

        Returns the packed node (an int: its first code and the number of its shape and
        pattern; no node object, ~100 bytes a port), None when it stays as it is."""
        shape, codes = node.shape, node.codes
        if shape is None or not codes:
            return None
        recent = self._recent.get(shape)
        self._recent[shape] = (codes, None)
        if recent is None:
            return None
        template, before = recent
        if len(template) != len(codes):  # that node was recorded again since: grew
            return None
        if not self._patterns:  # only the pattern of the node before can be pooled
            last = len(codes) - 1
            probe = _spell_slot(codes, template, last)
            if before is None or len(before) != len(codes) or _slot(before, last) != probe:
                self._recent[shape] = (codes, _Unspelled(codes, template))
                return None
        candidate = before.spelled() if isinstance(before, _Unspelled) else before
        spelled = _spell(codes, template)
        if (
            candidate is not None
            and len(candidate) == len(spelled)
            and all(map(eq, candidate, spelled))
        ):
            pattern = candidate
        else:
            pattern = tuple(spelled)
        pooled = self._patterns.get(pattern)
        if pooled is None:
            if pattern != candidate or len(self._patterns) >= _PATTERNS_MAX:
                self._recent[shape] = (codes, pattern)
                return None
            pooled = self._patterns[pattern] = pattern
        self._recent[shape] = (codes, pooled)  # the next node compares with it at once
        pair = (id(shape), id(pooled))
        number = self._group_no.get(pair)
        if number is None:
            if len(self._groups) > _GROUP_MASK:
                return None
            number = self._group_no[pair] = len(self._groups)
            self._groups.append((shape, pooled))
        return codes[0] << _GROUP_BITS | number

    def _new_leaf(self, node: _Node, shape: _Shape, leaf: Leaf, code: int) -> None:
        self._count += 1
        if shape.size >= _SHAPE_MAX or self._shapes >= _SHAPES_MAX:
            node.own = dict(node.leaves())
            node.own[leaf] = code
            node.shape, node.codes = None, array("q")
            return
        node.shape = shape.extended(leaf)
        self._shapes += 1
        node.codes.append(code)

    def _record_other(
        self, node: _Node, leaf: Leaf, file: str, line: int | None, overwrite: bool
    ) -> None:
        """A first file, a line of None, a node with its own dict or a location the codes
        cannot hold (then the node keeps SourceRefs)."""
        code = self._code(file, line)
        if code is None:
            self._own_refs(node)
        shape = node.shape
        if shape is not None:
            assert code is not None
            slot = shape.slot(leaf)
            if slot is not None:
                if overwrite:
                    node.codes[slot] = code
                return
            nxt = shape.next.get(leaf)
            if nxt is not None:
                node.shape = nxt
                node.codes.append(code)
                self._count += 1
                return
            self._new_leaf(node, shape, leaf, code)
            return
        own = node.own
        assert own is not None
        if leaf in own:
            if overwrite:
                own[leaf] = self._own_value(file, line, code)
            return
        own[leaf] = self._own_value(file, line, code)
        self._count += 1

    def _own_value(self, file: str, line: int | None, code: int | None) -> Any:
        return code if code is not None else SourceRef(file, line)

    def _own_refs(self, node: _Node) -> None:
        if node.own is None:
            node.own = dict(node.leaves())
            node.shape, node.codes = None, array("q")

    def _value(self, value: Any) -> SourceRef:
        return value if isinstance(value, SourceRef) else self._decode(value)

    def _exact(self, path: str) -> SourceRef | None:
        kind, key, leaf = _cut(path)
        node = self._tables[kind].get(key)
        if node is None:
            return None
        if type(node) is int:  # packed: its pattern's slot, relative to its first code
            group, pattern = self._groups[node & _GROUP_MASK]
            slot = group.index.get(leaf)
            if slot is None or slot >= group.size:
                return None
            code = pattern[slot]
            code = (node >> _GROUP_BITS) + (code >> 1) if code & 1 else code >> 1
            return self._decode(code)
        assert isinstance(node, _Node)
        shape = node.shape
        if shape is not None:
            slot = shape.index.get(leaf)
            if slot is None or slot >= shape.size:
                return None
            return self._decode(node.codes[slot])
        assert node.own is not None
        value = node.own.get(leaf)
        return None if value is None else self._value(value)

    def _recorded(self) -> Iterator[tuple[str, SourceRef]]:
        for parent, entry in self._tree.items():
            for leaf, value in self._node_of(entry).leaves():
                yield f"{parent}{leaf}", self._value(value)
        for kind, table in zip(_MEMBERS, self._tables[:2], strict=True):
            for name, entry in table.items():
                path = kind + name
                for leaf, value in self._node_of(entry).leaves():
                    yield path if leaf is None else f"{path}.{leaf}", self._value(value)

    def add(self, path: str, file: str, line: int | None) -> None:
        """Record where ``path`` was defined (the first record wins)."""
        self._record(path, file, line, False)

    def add_member(self, kind: str, name: str, file: str, line: int | None) -> None:
        """``add(kind + name, file, line)`` for a port (``kind`` ``ports.``) or a NIC
        (``nics.``): the member's node is keyed by ``name`` itself when it is made here, so
        a platform that passes the model's name holds one string per port, not three."""
        number = _MEMBERS.index(kind)
        if "." in name:  # a name with a dot is kept under the part before it (_cut)
            self._record(kind + name, file, line, False)
            return
        self._put(self._tables[number], name, None, file, line, overwrite=False)

    def add_runs(self, parent: str, fields: Iterable[tuple[str, tuple[str, int | None]]]) -> None:
        """``add(parent + field, file, line)`` for each ``(field, (file, line))``, in order:
        each run of fields from one file goes to :meth:`add_many` at once."""
        run: list[tuple[str, int | None]] = []
        run_file = ""
        for field, (file, line) in fields:
            if run and file != run_file:
                self.add_many(parent, run_file, run)
                run = []
            run_file = file
            run.append((field, line))
        if run:
            self.add_many(parent, run_file, run)

    def add_many(self, parent: str, file: str, leaves: Sequence[tuple[str, int | None]]) -> None:
        """``add(parent + leaf, file, line)`` for each ``(leaf, line)``, in order: what a port
        builder records for one port (``ports.Ethernet0.`` + ``mtu``, ``ecn.3``, ...) at the
        cost of one lookup of the port, not one split and lookup per path."""
        start = 6 if parent.startswith("ports.") else 5 if parent.startswith("nics.") else -1
        if start < 0 or parent.find(".", start) != len(parent) - 1:
            for leaf, line in leaves:  # a parent + leaf may split elsewhere: path by path
                self._record(parent + leaf, file, line, False)
            return
        if not leaves:
            return  # no node for a port without a record (as add would not make one)
        table, key = self._tables[0 if start == 6 else 1], parent[start:-1]
        node = self._opened(table, key)
        codes = node.codes
        number = self._file_no.get(file)
        for leaf, line in leaves:
            shape = node.shape
            if (
                shape is not None
                and number is not None
                and line is not None
                and 0 <= line < _MAX_LINE
            ):
                nxt = shape.next.get(leaf)
                if nxt is not None:  # as in _record: a new leaf in the order seen before
                    node.shape = nxt
                    codes.append((line + 1) << _FILE_BITS | number)
                    self._count += 1
                    continue
                slot = shape.index.get(leaf)
                if slot is not None and slot < shape.size:
                    continue  # recorded already: the first record wins
            self._put(table, key, leaf, file, line, overwrite=False)  # every other case
            codes = node.codes  # _record may have replaced the node's array
            number = self._file_no.get(file)

    def add_leaves(
        self, parent: str, file: str, leaves: tuple[str, ...], lines: Sequence[int | None]
    ) -> None:
        """``add_many(parent, file, zip(leaves, lines))`` for the leaves of a member that
        come as those of members before it (the ports of a switch configured alike): where
        each leaf takes the next slot of a shape seen before, the walk along the shapes is
        looked up once per (shape, leaves) and the codes are made in one go; anything else
        goes to :meth:`add_many`."""
        if not self._along_shapes(parent, file, leaves, lines):
            self.add_many(parent, file, list(zip(leaves, lines, strict=True)))

    def _along_shapes(
        self, parent: str, file: str, leaves: tuple[str, ...], lines: Sequence[int | None]
    ) -> bool:
        """:meth:`add_leaves` where the leaves walk a chain of shapes seen before (False:
        nothing recorded, :meth:`add_many` must do it)."""
        start = 6 if parent.startswith("ports.") else 5 if parent.startswith("nics.") else -1
        number = self._file_no.get(file)
        if (
            start < 0
            or parent.find(".", start) != len(parent) - 1
            or number is None
            or not leaves
            or None in lines
            or len(lines) != len(leaves)
        ):
            return False
        known: Sequence[int] = lines  # type: ignore[assignment]  # no None (checked above)
        if min(known) < 0 or max(known) >= _MAX_LINE:
            return False
        table, key = self._tables[0 if start == 6 else 1], parent[start:-1]
        node = self._opened(table, key)
        shape = node.shape
        if shape is None:
            return False
        end = self._chains.get((shape, leaves))
        if end is None:
            end = _walk(shape, leaves)  # (not kept when None: add_many may make it)
            if end is None:
                return False
            if len(self._chains) < _CHAINS_MAX:
                self._chains[shape, leaves] = end
        node.shape = end
        node.codes.extend([(line + 1) << _FILE_BITS | number for line in known])
        self._count += len(leaves)
        return True

    def set(self, path: str, file: str, line: int | None) -> None:
        """Record where ``path`` was defined (overwrite)."""
        self._record(path, file, line, True)

    def table(self, file: str, lines: Mapping[Any, int | None]) -> dict[str, SourceRef]:
        """The shareable table of a map's entries (key -> line; keys without a line left out)."""
        return {str(k): self._ref(file, line) for k, line in lines.items() if line is not None}

    def add_map(self, path: str, table: Mapping[str, SourceRef]) -> None:
        """Record that ``path.KEY`` was defined at ``table[KEY]`` (the first record wins)."""
        if table and path not in self.maps:
            self.maps[path] = table

    def lookup(self, path: str | None) -> SourceRef | None:
        """Return the location of ``path`` or of its longest known prefix."""
        while path:
            ref = self._exact(path)
            if ref is not None:
                return ref
            parent, _, key = path.rpartition(".")
            if self.maps:
                table = self.maps.get(parent)
                ref = table.get(key) if table is not None else None
                if ref is not None:
                    return ref
            path = parent
        return self._exact("")

    def items(self) -> Iterator[tuple[str, SourceRef]]:
        """Every recorded path and its location (map entries spelled out)."""
        yield from self._recorded()
        for path, table in self.maps.items():
            for key, ref in table.items():
                if self._exact(f"{path}.{key}") is None:
                    yield f"{path}.{key}", ref

"""The vendor shape shared by both NVUE readers: a key tree with a line for every key.

``nv config show -o yaml`` (:mod:`.nvue_yaml`) and ``nv set`` command text
(:mod:`.commands_text`) both produce a :class:`ConfigTree`: the applied ``set`` content as
plain dicts with string keys (``{"qos": {"pfc": {"default-global": {...}}}}``) and the line
where each key path was written. Values stay as NVUE wrote them (``"on"``, ``9216``,
``"100G"``); :mod:`.values` reads them. A key whose value is ``{}`` is a presence key
(``pfc-watchdog: {}``) or a collection member (``switch-priority: {3: {}}``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rocetune.model.device import Feature
from rocetune.platforms.common.unparsed import UnparsedCollector
from rocetune.platforms.cumulus.scope import path_of, scope

KeyPath = tuple[str, ...]


@dataclass
class ConfigTree:
    """The applied configuration: nested dicts plus the line of every key path."""

    root: dict[str, Any] = field(default_factory=dict)
    lines: dict[KeyPath, int] = field(default_factory=dict)
    header: dict[str, str] = field(default_factory=dict)
    """The ``- header:`` item of a revision list (model, version, rev-id), as strings."""
    skipped_lines: list[int] = field(default_factory=list)
    """Lines of a command text that are neither configuration nor reported: prose, command
    output, read-only commands (:mod:`.commands_text`)."""
    shapes: list[Shape] = field(default_factory=list)
    """Key lines of the ``set`` items read from libyaml events (:mod:`.nvue_stream`), one
    :class:`Shape` per item in file order, used instead of :attr:`lines` (a later item's line
    wins, as it does in :attr:`lines`): a dict of every key path was ~8x the text."""

    def line(self, path: KeyPath) -> int | None:
        """Return the line of ``path`` or of its nearest recorded parent."""
        if self.shapes:
            if len(self.shapes) == 1:
                return self.shapes[0].walk(path)[0]
            while path:
                found = self.key_line(path)
                if found is not None:
                    return found
                path = path[:-1]
            return None
        while path:
            found = self.lines.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return None

    def key_line(self, path: KeyPath) -> int | None:
        """Return the line of ``path`` (None when it was not recorded)."""
        for shape in reversed(self.shapes):
            found, whole = shape.walk(path)
            if whole:
                return found
        return self.lines.get(path)

    def line_items(self) -> Iterator[tuple[KeyPath, int]]:
        """Every recorded (key path, line), as :attr:`lines` would hold them."""
        found: dict[KeyPath, int] = dict(self.lines)
        for shape in self.shapes:
            found.update(shape.items((), 0))
        return iter(found.items())

    def get(self, path: KeyPath) -> Any:
        """Return the value at ``path`` or None when any step is missing or not a dict."""
        node: Any = self.root
        for key in path:
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        return node


@dataclass
class Issues(UnparsedCollector):
    """The Unparsed items (RT001) of one NVUE file (:class:`UnparsedCollector`): each item
    gets the ports and features its key path says (:mod:`.scope`)."""

    def add(
        self,
        item: str,
        reason: str,
        line: int | None,
        *,
        features: tuple[Feature, ...] | None = None,
        ports: tuple[str, ...] | None = None,
        path: KeyPath | None = None,
    ) -> None:
        """Record one item the parser did not understand (``path``: its key path, else the
        path the item text names)."""
        key_path = path if path is not None else path_of(item)
        self.record(
            item, reason, line, features=features, ports=ports, guess=lambda: scope(key_path)
        )

    def invalid(self, path: KeyPath, value: object, expected: str, line: int | None) -> None:
        """Record a value of the wrong type or outside its range."""
        self.add(dotted(path), f"invalid value {value!r} (expected {expected})", line, path=path)

    def subtree(self, tree: ConfigTree, path: KeyPath, reason: str) -> None:
        """Record every leaf under ``path`` (or ``path`` itself when it is a leaf)."""
        for leaf in leaves(tree.get(path), path):
            self.add(dotted(leaf), reason, tree.line(leaf), path=leaf)


def dotted(path: KeyPath) -> str:
    """Render a key path the way a user searches the YAML: ``qos.pfc.default-global.rx``."""
    return ".".join(path)


def leaves(node: Any, path: KeyPath) -> Iterator[KeyPath]:
    """Yield the key paths of every leaf (non-dict value or empty dict) under ``node``."""
    if isinstance(node, dict) and node:
        for key, child in node.items():
            yield from leaves(child, (*path, key))
    else:
        yield path


def deep_merge(target: dict[str, Any], source: dict[str, Any]) -> None:
    """Merge ``source`` into ``target``: dicts merge key by key, other values replace. A
    nested dict of ``target`` is copied before it changes: equal subtrees may be one object
    (:mod:`.nvue_stream` reads them once)."""
    for key, value in source.items():
        current = target.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            current = target[key] = dict(current)
            deep_merge(current, value)
        else:
            target[key] = value


class Shape:
    """Where the keys of one mapping (or the items of one sequence) were written: ``keys`` in
    order, each one's line as an offset from the line of the key that holds the mapping
    (the ``set`` item's content: from 0), and the shape of each value (None: a scalar or an
    empty collection). Sequence items (``recorded`` False) have no line of their own; their
    offset places the keys of a mapping item. Equal shapes are one object (a port's keys lie
    as the other ports' do), so a port's lines take a few bytes instead of a dict entry, a
    key path and a line number per key."""

    __slots__ = ("_index", "children", "keys", "offsets", "recorded")

    def __init__(
        self,
        keys: tuple[str, ...],
        offsets: Sequence[int],
        children: tuple[Shape | None, ...],
        recorded: bool,
    ) -> None:
        self.keys, self.offsets, self.children, self.recorded = keys, offsets, children, recorded
        self._index: dict[str, int] | None = None

    def find(self, key: str) -> int | None:
        """The position of ``key`` (None when absent)."""
        keys = self.keys
        if len(keys) <= 8:
            return keys.index(key) if key in keys else None
        if self._index is None:
            self._index = {k: i for i, k in enumerate(keys)}
        return self._index.get(key)

    def walk(self, path: KeyPath) -> tuple[int | None, bool]:
        """(the line of the longest recorded prefix of ``path``, whether that is ``path``)."""
        shape: Shape | None = self
        line: int | None = None
        here = 0
        last = False
        for key in path:
            if shape is None:
                return line, False
            i = shape.find(key)
            if i is None:
                return line, False
            here += shape.offsets[i]
            last = shape.recorded
            if last:
                line = here
            shape = shape.children[i]
        return line, last

    def items(self, path: KeyPath, base: int) -> Iterator[tuple[KeyPath, int]]:
        """Every recorded (key path, line) under ``path`` (its key on line ``base``)."""
        for key, offset, child in zip(self.keys, self.offsets, self.children, strict=True):
            here, where = base + offset, (*path, key)
            if self.recorded:
                yield where, here
            if child is not None:
                yield from child.items(where, here)

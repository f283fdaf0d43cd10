"""Helpers shared by the QoS resolvers: typed reads that record Unparsed items, profiles."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rocetune.platforms.cumulus import values
from rocetune.platforms.cumulus.defaults import RoceDefaults
from rocetune.platforms.cumulus.tree import ConfigTree, Issues, KeyPath

Line = int | None
UNKNOWN_KEY = "invalid: not a key of the NVUE QoS schema"


@dataclass
class Part:
    """Port fields a resolved profile contributes, with the line that set each one."""

    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, Line] = field(default_factory=dict)

    def put(self, name: str, value: Any, line: Line) -> None:
        """Set one port field and where it came from."""
        self.values[name] = value
        self.lines[name] = line


@dataclass
class Ctx:
    """The configuration tree, the issue collector and the RoCE expansion in force."""

    tree: ConfigTree
    issues: Issues
    roce: RoceDefaults | None = None
    roce_line: Line = None

    def line(self, path: KeyPath) -> Line:
        """Return the line of ``path`` (or its nearest parent)."""
        return self.tree.line(path)

    def integer(self, path: KeyPath, value: Any, low: int = 0, high: int = 2**32) -> int | None:
        """Read an integer in ``low..high`` or record it as invalid."""
        number = values.as_int(value)
        if number is None or not low <= number <= high:
            self.issues.invalid(path, value, f"an integer {low}..{high}", self.line(path))
            return None
        return number

    def number(self, path: KeyPath, value: Any, high: float = 1e12) -> float | None:
        """Read a non-negative number up to ``high`` or record it as invalid."""
        number = values.as_number(value)
        if number is None or number > high:
            self.issues.invalid(path, value, f"a number 0..{high:g}", self.line(path))
            return None
        return number

    def switch(self, path: KeyPath, value: Any) -> bool | None:
        """Read enable/disable (on/off, enabled/disabled) or record it as invalid."""
        flag = values.as_switch(value)
        if flag is None:
            self.issues.invalid(path, value, "enable or disable", self.line(path))
        return flag

    def ids(self, path: KeyPath, value: Any, high: int) -> list[int] | None:
        """Expand an id list (``3``, ``0-3,5-7``) in ``0..high`` or record it as invalid."""
        found = values.expand_ids(value, 0, high)
        if found is None:
            self.issues.invalid(path, value, f"ids 0..{high}", self.line(path))
        return found

    def unknown_keys(self, path: KeyPath, node: dict[str, Any], known: frozenset[str]) -> None:
        """Record every key of ``node`` that is not in ``known``."""
        for key in node:
            if key not in known:
                self.issues.subtree(self.tree, (*path, key), UNKNOWN_KEY)

    def mapping(self, path: KeyPath) -> dict[str, Any] | None:
        """Return the dict at ``path``; None (and an issue) when it has another type."""
        node = self.tree.get(path)
        if node is None:
            return {} if self._present(path) else None
        if not isinstance(node, dict):
            self.issues.invalid(path, node, "a mapping", self.line(path))
            return None
        return node

    def profiles(self, kind: str) -> Iterator[tuple[str, dict[str, Any], KeyPath]]:
        """Yield (name, settings, path) for every profile under ``qos.<kind>``."""
        return self.children(("qos", kind))

    def children(self, path: KeyPath) -> Iterator[tuple[str, dict[str, Any], KeyPath]]:
        """Yield (key, settings, path) for every child mapping of the mapping at ``path``."""
        node = self.mapping(path)
        for key in node or {}:
            child = (*path, key)
            settings = self.mapping(child)
            if settings is not None:
                yield key, settings, child

    def members(
        self, path: KeyPath, high: int
    ) -> Iterator[tuple[list[int], dict[str, Any], KeyPath]]:
        """Yield (ids, settings, path) for every member of the collection at ``path``."""
        node = self.mapping(path)
        for key in node or {}:
            child = (*path, key)
            ids = self.ids(child, key, high)
            settings = self.mapping(child)
            if ids is not None and settings is not None:
                yield ids, settings, child

    def valid_ids(self, path: KeyPath, high: int) -> bool:
        """True when ``path`` is absent or a collection whose every key is an id list."""
        node = self.tree.get(path)
        if node is None:
            return True
        if not isinstance(node, dict):
            return False
        return all(values.expand_ids(key, 0, high) is not None for key in node)

    def id_set(self, path: KeyPath, high: int) -> tuple[int, ...] | None:
        """Read a set of ids given as a collection (``{3: {}}``) or a scalar (``3``, ``0-3``)."""
        node = self.tree.get(path)
        if isinstance(node, dict):
            found: set[int] = set()
            for key in node:
                ids = self.ids((*path, key), key, high)
                if ids is None:
                    return None
                found.update(ids)
            return tuple(sorted(found))
        ids = self.ids(path, node, high)
        return tuple(ids) if ids is not None else None

    def _present(self, path: KeyPath) -> bool:
        parent = self.tree.get(path[:-1])
        return isinstance(parent, dict) and path[-1] in parent

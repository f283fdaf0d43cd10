"""Where model values came from: model path -> file and line.

Parsers fill a :class:`Provenance` per device; rules and reports read it to point a finding
at the line it is about.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a model value came from."""

    file: str
    line: int | None = None


@dataclass
class Provenance:
    """Model path (``ports.Ethernet0.pfc_rx``) -> source location.

    Lookups fall back to the longest recorded prefix of the path, so a parser may record
    a port once and refine individual fields where it knows the exact line.

    The entries of a map many ports bind (a DSCP map: 64 lines) are recorded once per map,
    not once per port: ``maps[path]`` is a table ``key -> SourceRef`` shared by every port
    bound to that map, and ``path.KEY`` is found there.
    """

    refs: dict[str, SourceRef] = field(default_factory=dict)
    maps: dict[str, Mapping[str, SourceRef]] = field(default_factory=dict)
    _interned: dict[tuple[str, int | None], SourceRef] = field(
        default_factory=dict, repr=False, compare=False
    )

    def _ref(self, file: str, line: int | None) -> SourceRef:
        """One shared SourceRef per (file, line): many model paths point at the same line."""
        key = (file, line)
        ref = self._interned.get(key)
        if ref is None:
            ref = self._interned[key] = SourceRef(file, line)
        return ref

    def add(self, path: str, file: str, line: int | None) -> None:
        """Record where ``path`` was defined (the first record wins)."""
        if path not in self.refs:
            self.refs[path] = self._ref(file, line)

    def set(self, path: str, file: str, line: int | None) -> None:
        """Record where ``path`` was defined (overwrite)."""
        self.refs[path] = self._ref(file, line)

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
            ref = self.refs.get(path)
            if ref is not None:
                return ref
            parent, _, key = path.rpartition(".")
            if self.maps:
                table = self.maps.get(parent)
                ref = table.get(key) if table is not None else None
                if ref is not None:
                    return ref
            path = parent
        return self.refs.get("")

    def items(self) -> Iterator[tuple[str, SourceRef]]:
        """Every recorded path and its location (map entries spelled out)."""
        yield from self.refs.items()
        for path, table in self.maps.items():
            for key, ref in table.items():
                if f"{path}.{key}" not in self.refs:
                    yield f"{path}.{key}", ref

"""Where model values came from: model path -> file and line.

Parsers fill a :class:`Provenance` per device; rules and reports read it to point a finding
at the line it is about.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    """

    refs: dict[str, SourceRef] = field(default_factory=dict)
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

    def lookup(self, path: str | None) -> SourceRef | None:
        """Return the location of ``path`` or of its longest known prefix."""
        while path:
            ref = self.refs.get(path)
            if ref is not None:
                return ref
            path = path.rpartition(".")[0]
        return self.refs.get("")

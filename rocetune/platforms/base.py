"""The platform driver contract: what every platform package provides.

A driver is the only code that knows a vendor's syntax. It names the commands to collect,
recognises a saved config file of its platform, and parses a snapshot into a vendor-neutral
:class:`~rocetune.model.Device` plus a provenance table (model path -> file and line).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rocetune.model import Device
    from rocetune.snapshot import Command, Snapshot


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


@dataclass(frozen=True)
class ParseResult:
    """A parsed device and where its values came from."""

    device: Device
    provenance: Provenance


class PlatformDriver(Protocol):
    """What a platform package exports (see rocetune/platforms/<p>/__init__.py)."""

    name: ClassVar[str]
    """Inventory platform key, e.g. ``sonic``."""
    kind: ClassVar[Literal["switch", "host"]]

    def commands(self, nics: Sequence[str] = ()) -> tuple[Command, ...]:
        """Return the commands to collect, in collection order.

        ``nics`` are the inventory's NIC names of a host (validated netdev names); switch
        platforms ignore them.
        """
        ...

    def followup_commands(self, snapshot: Snapshot) -> tuple[Command, ...]:
        """Commands whose arguments come from outputs already collected (e.g. the RDMA
        device or PCI address of a netdev); () when the platform needs none."""
        ...

    def sniff(self, path: str, text: str) -> Command | None:
        """Return the command a saved file stands for, or None if it is not this platform's."""
        ...

    def parse(self, snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
        """Parse a snapshot into a device; raise ParseError(file, line) on unreadable input."""
        ...


class SwitchCommands:
    """Commands of a switch platform: a fixed list, known up front, no follow-ups.

    Drivers set ``COMMANDS``; the NIC names a host would need are ignored.
    """

    COMMANDS: ClassVar[tuple[Command, ...]] = ()

    def commands(self, nics: Sequence[str] = ()) -> tuple[Command, ...]:
        """Return the commands to collect, in collection order."""
        del nics
        return self.COMMANDS

    def followup_commands(self, snapshot: Snapshot) -> tuple[Command, ...]:
        """None: every command is known up front."""
        del snapshot
        return ()

"""The platform driver contract: what every platform package provides.

A driver is the only code that knows a vendor's syntax. It names the commands to collect,
recognises a saved config file of its platform, and parses a snapshot into a vendor-neutral
:class:`~rocetune.model.Device` plus a provenance table (model path -> file and line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from rocetune.model.provenance import Provenance, SourceRef

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rocetune.model import Device
    from rocetune.platforms.transaction import Transaction, TxContext
    from rocetune.snapshot import Command, Snapshot


# Provenance and SourceRef belong to the model; parsers import them from the contract too.
__all__ = ["ParseResult", "PlatformDriver", "Provenance", "SourceRef", "SwitchCommands"]


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

    def transaction(self, context: TxContext) -> Transaction | None:
        """The apply driver for one device (:mod:`rocetune.platforms.transaction`), or None
        when ``rocetune apply`` does not support the platform yet."""
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

    def transaction(self, context: TxContext) -> Transaction | None:
        """None until the platform package provides an apply driver (override it)."""
        del context
        return None

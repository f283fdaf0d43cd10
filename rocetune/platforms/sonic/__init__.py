"""SONiC platform driver: CONFIG_DB JSON -> vendor-neutral Device.

Modules: :mod:`.commands` (what to collect), :mod:`.detect` (recognise a saved file),
:mod:`.tables` (JSON -> raw tables), ``norm_*`` + :mod:`.shape` (typed SONiC shape),
:mod:`.resolve`, :mod:`.build_port`, :mod:`.build` (-> model), :mod:`.parse` (entry point),
:mod:`.asic` (ASIC family), :mod:`.pfc_priority` (the optional ``show pfc priority``). The
semantics decisions are in each module's docstring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rocetune.platforms.base import SwitchCommands
from rocetune.platforms.sonic.commands import COMMANDS, CONFIG_DB
from rocetune.platforms.sonic.detect import looks_like_config_db
from rocetune.platforms.sonic.parse import parse_snapshot

if TYPE_CHECKING:
    from rocetune.platforms.base import ParseResult
    from rocetune.platforms.transaction import Transaction, TxContext
    from rocetune.snapshot import Command, Snapshot

__all__ = ["SonicDriver"]


class SonicDriver(SwitchCommands):
    """Driver for SONiC switches (``platform: sonic`` in the inventory)."""

    name: ClassVar[str] = "sonic"
    kind: ClassVar[Literal["switch", "host"]] = "switch"
    COMMANDS = COMMANDS

    def sniff(self, path: str, text: str) -> Command | None:
        """Return the config_db command when ``text`` is a SONiC CONFIG_DB JSON file."""
        return CONFIG_DB if looks_like_config_db(text) else None

    def parse(self, snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
        """Parse a snapshot; only invalid JSON raises ParseError."""
        return parse_snapshot(snapshot, name, role)

    def transaction(self, context: TxContext) -> Transaction | None:
        """The apply driver (:mod:`rocetune.platforms.sonic.transaction`)."""
        from rocetune.platforms.sonic.transaction import SonicTransaction

        return SonicTransaction(context)

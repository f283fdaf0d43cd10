"""Arista EOS platform driver: ``show running-config`` (+ LLDP, interface status JSON).

Input: the running configuration (``show running-config``, or ``show running-config all``;
also AVD intended configs), optionally ``show lldp neighbors detail | json`` (or the brief
``show lldp neighbors | json``) for ``Device.lldp`` and ``show interfaces status | json`` for
the operational speed of ports whose speed is not configured.

Modules: :mod:`.commands` (what to collect, sniffing), :mod:`.blocks` (text -> indented line
tree, Unparsed collector), :mod:`.reader` and :mod:`.qos_lines` (the vendor shape of
:mod:`.shape`), :mod:`.values` (names, ranges, speeds, units), :mod:`.ports` (the neutral
model and every semantic decision with its source), :mod:`.operational` (JSON outputs) and
:mod:`.parse` (orchestration and provenance).

Sources: S18 (AVD ``eos_cli_config_gen`` priority-flow-control/qos docs and molecule configs)
and S19 (Arista EOS manual, DCBX and Flow Control) of roce-knowledge.md; defaults that could
not be confirmed are marked **[unverified]** where they are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rocetune.platforms.base import SwitchCommands
from rocetune.platforms.eos import commands
from rocetune.platforms.eos.parse import parse_snapshot

if TYPE_CHECKING:
    from rocetune.platforms.base import ParseResult
    from rocetune.snapshot import Command, Snapshot

__all__ = ["EosDriver"]


class EosDriver(SwitchCommands):
    """Driver for Arista EOS switches (``platform: eos`` in the inventory)."""

    name: ClassVar[str] = "eos"
    kind: ClassVar[Literal["switch", "host"]] = "switch"
    COMMANDS = commands.COMMANDS

    def sniff(self, path: str, text: str) -> Command | None:
        """Return the command a saved EOS file stands for, or None; never raises."""
        del path
        return commands.sniff(text)

    def parse(self, snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
        """Parse a snapshot into a switch; ParseError when the running-config is missing."""
        return parse_snapshot(snapshot, name, role)

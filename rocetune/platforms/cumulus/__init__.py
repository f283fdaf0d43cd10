"""NVIDIA Cumulus Linux 5.x (NVUE) platform driver.

Input: the applied NVUE configuration (``nv config show -o yaml``; the same tree from JSON or
from an ``nv set`` command list), optionally ``nv show interface -o json`` (operational link
speed/MTU/state) and ``nv show qos roce -o json`` (facts, runtime PFC priorities, LLDP
application TLV). Other Cumulus files are recognised and reported as unsupported (RT001),
never passed silently.

Modules: :mod:`.commands` (what to collect, sniffing), :mod:`.nvue_yaml` and
:mod:`.commands_text` (raw vendor shape), :mod:`.defaults` (documented defaults and the
``nv set qos roce`` expansion, with sources), :mod:`.qos` / :mod:`.qos_queues` (effective
profiles), :mod:`.interfaces` / :mod:`.ports` (the neutral model), :mod:`.operational`,
:mod:`.unsupported` and :mod:`.parse` (orchestration and provenance).

NVUE shape facts and their sources:

- ``nv config show -o yaml`` is a list ``- header: {model, nvue-api-version, rev-id,
  version}`` / ``- set: {...}``; interface keys may be ranges and lists (``swp51-54``,
  ``swp2,6``, ``swp1,51-54``); ``link: {mtu, speed, state: {up: {}}}`` (public NVUE exports
  in NVIDIA example repositories; CumulusNetworks/docs EVPN/MLAG examples).
- ``qos`` keys and profile structure: CumulusNetworks/docs nvue-reference QoS.md and the
  ``nvidia.nvue`` Ansible ``qos`` module (S3): roce {enable|state, mode, cable-length},
  pfc-watchdog {polling-interval, robustness}, pfc/link-pause <profile> {switch-priority,
  rx, tx, cable-length, port-buffer, xoff-threshold, xon-threshold}, congestion-control
  <profile> traffic-class <tc> {ecn, red, min-threshold, max-threshold, probability},
  egress-scheduler <profile> traffic-class <tc> {mode, bw-percent}, egress-queue-mapping
  default-global switch-priority <sp> {traffic-class}, mapping <profile> {trust, dscp, pcp,
  port-default-sp}, traffic-pool <name> {memory-percent, switch-priority},
  advance-buffer-config default-global {...}; per interface ``qos <feature> profile <name>``
  and ``qos pfc-watchdog [state]``.
- Defaults and the RoCE expansion: :mod:`.defaults` (S1, S2, NVUE reference).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rocetune.platforms.base import ParseResult, SwitchCommands
from rocetune.platforms.cumulus import commands
from rocetune.platforms.cumulus.parse import parse_snapshot
from rocetune.platforms.transaction import Transaction, TxContext
from rocetune.snapshot import Command, Snapshot

__all__ = ["CumulusDriver"]


class CumulusDriver(SwitchCommands):
    """Driver for NVIDIA Cumulus Linux 5.x switches configured with NVUE."""

    name: ClassVar[str] = "cumulus"
    kind: ClassVar[Literal["switch", "host"]] = "switch"
    COMMANDS = commands.COMMANDS

    def sniff(self, path: str, text: str) -> Command | None:
        """Return the command a saved Cumulus file stands for, or None; never raises."""
        del path
        return commands.sniff(text)

    def parse(self, snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
        """Parse a snapshot into a switch; raise ParseError(file, line) on unreadable input."""
        return parse_snapshot(snapshot, name, role)

    def transaction(self, context: TxContext) -> Transaction | None:
        """The apply driver (:mod:`rocetune.platforms.cumulus.transaction`)."""
        from rocetune.platforms.cumulus.transaction import CumulusTransaction

        return CumulusTransaction(context)

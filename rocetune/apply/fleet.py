"""What apply needs from the rest of rocetune, as one injected object (:class:`Fleet`).

``rocetune.apply`` sits beside collect, render and the engine and imports none of them:
:mod:`rocetune.api.applying` builds the :class:`Fleet` from the real machinery (SSH sessions
and re-collection, the plan's replay and hash, the rule engine, the platform redactors), and
tests build one over in-process lab engines. The orchestrator decides policy; the fleet only
answers questions about devices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rocetune.model import Device, Finding, Intent, PortCounters
from rocetune.platforms.transaction import Transaction, TxContext
from rocetune.session import Session
from rocetune.snapshot import Snapshot


class Unreachable(Exception):
    """A device could not be reached or its session broke (classified reason in the text)."""


@dataclass(frozen=True)
class Node:
    """One device of the inventory, as the wave planner sees it."""

    name: str
    platform: str
    role: str | None = None
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Topology:
    """Devices and the cabled links between them (inventory links plus LLDP)."""

    nodes: dict[str, Node] = field(default_factory=dict)
    links: tuple[tuple[str, str], ...] = ()
    """Device pairs with at least one link between them."""


@dataclass(frozen=True)
class CounterRead:
    """Counters read from a device, with what could not be read (named for the gate)."""

    counters: list[PortCounters] | None
    note: str = ""


class Fleet(Protocol):
    """Answers about devices: sessions, snapshots, models, findings, counters."""

    intent: Intent
    topology: Topology

    def open(self, device: str) -> Session:
        """An open session to ``device`` (host key verified); Unreachable when it fails."""
        ...

    def collect(self, device: str) -> Snapshot:
        """A fresh collection of ``device`` (the collect machinery); Unreachable on failure."""
        ...

    def config_hash(self, device: str, snapshot: Snapshot) -> str:
        """The plan's running-config hash of a snapshot (the same function the plan used)."""
        ...

    def model(self, device: str, snapshot: Snapshot) -> Device:
        """The snapshot parsed the way the audit parses it."""
        ...

    def replay(
        self, device: str, snapshot: Snapshot, changes: Sequence[dict[str, object]]
    ) -> Snapshot:
        """``snapshot`` with the plan's changes replayed (what the device should run after)."""
        ...

    def lint(self, device: str, snapshot: Snapshot) -> list[Finding]:
        """Findings of the fabric with this device as in ``snapshot`` that concern it."""
        ...

    def counters(self, device: str, session: Session) -> list[PortCounters] | CounterRead | None:
        """PFC pause/drop/watchdog counters now, or None when the platform has no reader
        (a :class:`CounterRead` also says what was not read and why)."""
        ...

    def verify(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """Run ``verify`` on the given host pairs; the problems found ([] = passed)."""
        ...

    def transaction(self, device: str, context: TxContext) -> Transaction | None:
        """The platform's apply driver for ``device`` (None: the platform has none yet)."""
        ...

    def redact(self, device: str, text: str) -> str:
        """Remove secrets from a device output before it is recorded."""
        ...

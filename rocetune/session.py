"""The session contract: run commands on one device over an open connection.

:mod:`rocetune.collect` implements it (netmiko and exec-channel transports) and uses it to
collect snapshots; :mod:`rocetune.verify` uses it to run perftest and read counters. Both
depend on this module, not on each other.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Output:
    """What one command returned."""

    text: str
    error: str | None = None
    """None when the command succeeded, else the device's error (first line)."""
    seconds: float = 0.0
    truncated_at: int | None = None
    """The output cap (bytes) when the output went past it: ``text`` holds what came before
    the cap, cut after its last complete line; what followed was not read."""
    blocks: Iterator[str] | None = None
    """A truncated output of a session asked for blocks (collection): its text in blocks of
    whole lines, consumed once (``text`` is then empty), so it is never held whole twice."""


class Session(Protocol):
    """An open connection to one device."""

    def run(self, command: str) -> Output:
        """Run one command; raise on a broken session (classified by the caller)."""
        ...

    def run_many(self, commands: Sequence[str]) -> list[Output]:
        """Run independent commands (possibly at the same time); outputs in order."""
        ...

    def close(self) -> None:
        """Close the connection (never raises)."""
        ...

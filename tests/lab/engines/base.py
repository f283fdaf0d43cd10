"""The engine contract of the SSH lab and its virtual clock.

The lab server calls :meth:`Engine.handle` for every command line a connection sends (shell
or exec), before its canned answers; :meth:`Engine.prompt` gives that connection's prompt
after each command (engines with CLI modes change it: ``leaf1(config-s-x)#``).

Time: engines read :class:`VirtualClock`, which runs ``rate`` times faster than real time
from the moment the lab starts, plus any jump a test asks for. A 5-minute commit timer at
``rate=60`` fires after 5 real seconds; a test that wants it now sends the engine's own
control command (each engine documents it) to advance the clock. Timers fire lazily, on the
next :meth:`Engine.tick` (the server ticks before every command and every 50 ms).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol


class VirtualClock:
    """Seconds since the lab started, scaled by ``rate`` and shifted by ``advance``."""

    def __init__(self, rate: float = 1.0) -> None:
        self.rate = rate
        self._start = time.monotonic()
        self._offset = 0.0

    def now(self) -> float:
        """Virtual seconds since start."""
        return (time.monotonic() - self._start) * self.rate + self._offset

    def advance(self, seconds: float) -> None:
        """Jump the clock forward (never backward: timers would fire twice)."""
        self._offset += max(0.0, seconds)


@dataclass(frozen=True)
class Reply:
    """An engine's answer to one command."""

    text: str = ""
    """What the command prints (stdout); newlines are converted for the terminal."""
    stderr: str = ""
    """Exec channels only: what goes to stderr."""
    exit_status: int = 0
    """Exec channels only."""
    disconnect: bool = False
    """Drop the connection after writing half of ``text`` (a fault)."""
    delay_s: float = 0.0
    """Real seconds to wait before answering (a slow commit)."""


class Engine(Protocol):
    """A stateful device behind the lab's SSH listener."""

    def prompt(self, conn: int) -> str | None:
        """The prompt of connection ``conn`` now, or None for the profile's prompt."""
        ...

    def handle(self, conn: int, command: str) -> Reply | None:
        """Answer ``command`` from connection ``conn``; None: not mine (canned answers)."""
        ...

    def connection_lost(self, conn: int) -> None:
        """Connection ``conn`` went away (drop its modes; sessions may stay open)."""
        ...

    def tick(self) -> None:
        """Fire the timers that are due on the virtual clock."""
        ...

"""The options of one apply run, the clock, and the progress observer."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

from rocetune.apply.gates import CounterLimits
from rocetune.apply.states import DeviceState, RunState
from rocetune.apply.window import Budget, Window


class Clock(Protocol):
    """Wall time in epoch seconds and a way to wait (tests pass a virtual one)."""

    def now(self) -> float:
        """Epoch seconds."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        """Epoch seconds."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        """Wait."""
        time.sleep(max(0.0, seconds))


class Observer(Protocol):
    """Receives progress (the CLI draws it with rich)."""

    def run_state(self, state: RunState, detail: str) -> None:
        """The run moved (``CANARY``, ``WAVE`` with its number, an end state)."""
        ...

    def device_state(self, device: str, state: DeviceState, reason: str) -> None:
        """A device moved."""
        ...


class NullObserver:
    """Progress nobody watches."""

    def run_state(self, state: RunState, detail: str) -> None:
        """Ignored."""

    def device_state(self, device: str, state: DeviceState, reason: str) -> None:
        """Ignored."""


@dataclass(frozen=True)
class ApplyOptions:
    """What the command line asked for (``rocetune apply --help``)."""

    change_id: str
    window: Window
    devices: tuple[str, ...] = ()
    """Only these devices of the plan (empty: every device with changes)."""
    canary: int = 1
    """Canary devices per (platform, role); 0: no canary."""
    waves: tuple[str, ...] = ("1", "10%", "100%")
    max_fail: int = 0
    """Failed devices a wave tolerates; one more halts the run and rolls the wave back."""
    confirm_within_s: float = 300.0
    """The device-side revert timer: confirm must come before it fires."""
    allow_disruptive: bool = False
    verify_pairs: tuple[tuple[str, str], ...] = ()
    dry_run: bool = False
    parallel: int = 20
    """Devices of one wave worked on at the same time."""
    budget: Budget = field(default_factory=lambda: Budget(300.0))
    lease_s: float = 4 * 3600.0
    """How long the runs-directory lease lasts before another controller may take it."""
    margin_s: float = 10.0
    """A confirm is not sent when the device timer has less than this left (it may fire
    during the confirm): the device is rolled back instead."""
    poll_s: float = 2.0
    """How often a rollback proof re-collects, and a fired timer is polled for."""
    rollback_proofs: int = 3
    """Re-collections tried before a rollback that does not show is declared STUCK."""
    counter_limits: CounterLimits = field(default_factory=CounterLimits)
    """How much the PFC/drop/watchdog counters may grow between the baseline and the
    re-read after arming (the counter gate)."""
    counters_settle_s: float = 0.0
    """Seconds to wait after arming before re-reading (so the counters see traffic under
    the new config); the timer must leave room for it."""
    shard: str | None = None
    """``I/N``: only the plan's devices of shard I of N (:mod:`rocetune.shard`)."""

    @property
    def settle_poll_s(self) -> float:
        """How often the settle wait asks the device whether its commit is still pending:
        a quarter of the wait, at least ``poll_s`` and at most 15 s (a 60 s wait asks 3
        times). A timer that fires early ends the wait then, not at its end."""
        return max(self.poll_s, min(self.counters_settle_s / 4, 15.0))

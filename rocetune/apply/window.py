"""Maintenance windows and durations: ``--window START/DURATION``, ``--confirm-within 5m``.

A window is ``2026-12-05T01:00Z/PT2H`` (ISO 8601 start and duration) or ``…/2h30m`` (the short
form the other options use). Times are UTC epoch seconds throughout (the clock is injected, so
tests run on a virtual one). A wave starts only when the window still has room for its
estimate plus the device timer plus a rollback (:meth:`Window.room_for`); a run never starts
outside its window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from rocetune.errors import ConfigError

_SHORT = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_ISO = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


def parse_duration(text: str, what: str = "duration") -> float:
    """``90s``, ``5m``, ``2h30m``, ``300`` (seconds) or ISO ``PT2H``/``P1DT2H`` -> seconds."""
    raw = text.strip()
    if raw.isdigit():
        return float(raw)
    short = _SHORT.match(raw.lower())
    if short and any(short.groups()):
        h, m, s = (int(g or 0) for g in short.groups())
        return float(h * 3600 + m * 60 + s)
    iso = _ISO.match(raw.upper())
    if iso and any(iso.groups()):
        d, h, m, s = (int(g or 0) for g in iso.groups())
        return float(d * 86400 + h * 3600 + m * 60 + s)
    msg = f"{what}: {text!r} is not a duration (examples: 300, 5m, 2h30m, PT2H)"
    raise ConfigError(msg)


def parse_time(text: str) -> float:
    """An ISO 8601 time (``2026-12-05T01:00Z``; no zone means UTC) -> epoch seconds."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(raw)
    except ValueError:
        msg = f"window start {text!r} is not an ISO 8601 time (example: 2026-12-05T01:00Z)"
        raise ConfigError(msg) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def iso(ts: float) -> str:
    """Epoch seconds -> ``2026-12-05T01:00:00Z``."""
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Window:
    """A maintenance window [start, end) in epoch seconds."""

    start: float
    end: float

    @classmethod
    def parse(cls, text: str) -> Window:
        """``START/DURATION``."""
        start, sep, duration = text.partition("/")
        if not sep:
            msg = f"--window {text!r}: give START/DURATION (example: 2026-12-05T01:00Z/PT2H)"
            raise ConfigError(msg)
        begin = parse_time(start)
        length = parse_duration(duration, "--window duration")
        if length <= 0:
            raise ConfigError(f"--window {text!r}: the duration must be positive")
        return cls(begin, begin + length)

    @classmethod
    def now(cls, now: float, duration_s: float) -> Window:
        """``--now``: a window opening now."""
        return cls(now, now + duration_s)

    def open_at(self, now: float) -> bool:
        """Whether ``now`` is inside the window."""
        return self.start <= now < self.end

    def remaining(self, now: float) -> float:
        """Seconds left (0 outside or after the window)."""
        return max(0.0, self.end - now) if now >= self.start else 0.0

    def room_for(self, now: float, needed_s: float) -> bool:
        """Whether a step needing ``needed_s`` seconds fits in what is left."""
        return self.open_at(now) and self.remaining(now) >= needed_s

    def __str__(self) -> str:
        return f"{iso(self.start)}/{iso(self.end)}"


@dataclass(frozen=True)
class Budget:
    """What one device's apply costs in the window, in seconds (the wave estimate)."""

    timer_s: float
    """The device-side revert timer (``--confirm-within``)."""
    per_device_s: float = 60.0
    """Precheck, stage, arm and the gates of one device (measured runs refine it)."""
    rollback_s: float = 60.0
    """A rollback and the re-collection that proves it."""

    def wave(self, devices: int, parallel: int) -> float:
        """A wave of ``devices`` run ``parallel`` at a time: its estimate + timer + rollback."""
        rounds = -(-max(devices, 1) // max(parallel, 1))
        return rounds * self.per_device_s + self.timer_s + self.rollback_s

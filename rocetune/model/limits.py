"""What a platform accepts: the limits a platform package declares and rules read.

Each platform package declares its :class:`PlatformLimits` on its driver value
(``rocetune/platforms/<p>/__init__.py``); parsing stamps them on the device
(:attr:`Device.mtu_max`, :attr:`Device.watchdog_limits`), so rules and the tuner read them from
the model and never import a platform.
"""

from __future__ import annotations

from pydantic import Field

from rocetune.model.base import Model


class WatchdogLimits(Model):
    """Valid PFC watchdog timers of one platform (ms; ranges are inclusive)."""

    detection_ms: tuple[float, float] | None = None
    restoration_ms: tuple[float, float] | None = None
    poll_ms: tuple[float, float] | None = None
    poll_max_fraction: float = Field(default=1.0, gt=0, le=1)
    """The poll interval must be <= this fraction of the detection (and restoration) time."""
    poll_bounds_restoration: bool = True
    """Whether the restoration time also bounds the poll interval."""
    detection_multiple_of_poll: bool = False
    """Cumulus: detection = polling-interval x robustness (an integer >= 1)."""
    source: str = ""


class PlatformLimits(Model):
    """The limits of one platform; None = not known (rules then use generic checks)."""

    mtu_max: int | None = None
    """The largest port MTU (IP MTU, the unit of ``Port.mtu``; docs/mtu.md)."""
    watchdog: WatchdogLimits | None = None
    """Valid PFC watchdog timer ranges (RT206)."""

"""ECN thresholds: the per-speed envelope (RT304) and the ECN-before-PFC bound (RT305).

Envelope (roce-knowledge.md §3.4). ECN thresholds are buffer depths, and the same queue
depth drains in half the time at twice the speed, so thresholds are compared per unit of
port speed. The intent gives the envelope in KB (1000 B) per 25 Gb/s; its defaults are
HPCC's DCQCN setting (S38): Kmin = 100 KB x C/25G, Kmax = 400 KB x C/25G. At a port speed
C the envelope is ``[low, high] = [min_kb_per_25g, max_kb_per_25g] x 1000 B x C/25G`` and
the marking ramp ``[Kmin, Kmax]`` must lie inside it:

- Kmin below ``low`` marks while the queue is still shallow: DCQCN cuts senders on
  ordinary bursts and the port cannot reach line rate;
- Kmin or Kmax above ``high`` marks late: the queue is deep before senders slow down, so
  PFC (RT305) or tail drops act first.

A tolerance absorbs ASIC granularity (Spectrum programs 159,744 B for 150,000 B, +6.5 %,
S1) and KiB/KB mixing (+2.4 %).

ECN before PFC (§3.4, S37, S2 ``qos_infra.conf``, S15). With dynamic thresholds a buffer
user with factor alpha may take ``alpha x free`` bytes of its pool; when it is the only
user growing, ``used = alpha x (pool - used)``, so it stops at ``alpha / (1 + alpha)`` of
the pool: that is where a lossless ingress PG leaves the shared buffer and the switch sends
XOFF. With a static threshold the PG stops at that number of bytes. DCQCN needs marking to
start (Kmin) and ideally to be complete (Kmax) below that point. This is a heuristic upper
bound: the exact point depends on how many ingress PGs feed the egress queue **[heuristic]**.

Pure functions of numbers: no model objects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KB = 1000
"""The intent's KB: 1000 bytes."""
REFERENCE_SPEED_MBPS = 25_000
"""The envelope is given per 25 Gb/s."""
HPCC_KMIN_KB_PER_25G = 100.0
"""HPCC's DCQCN Kmin per 25 Gb/s (S38)."""
HPCC_KMAX_KB_PER_25G = 400.0
"""HPCC's DCQCN Kmax per 25 Gb/s (S38)."""


def scale(speed_mbps: int) -> float:
    """Port speed in units of 25 Gb/s (4.0 for 100G)."""
    if speed_mbps <= 0:
        msg = "speed_mbps must be > 0"
        raise ValueError(msg)
    return speed_mbps / REFERENCE_SPEED_MBPS


def kb_per_25g(threshold_bytes: float, speed_mbps: int) -> float:
    """A threshold in KB per 25 Gb/s of ``speed_mbps`` (150,000 B at 100G -> 37.5)."""
    return threshold_bytes / KB / scale(speed_mbps)


@dataclass(frozen=True)
class EcnEnvelope:
    """The accepted ECN threshold range of one port speed, in bytes."""

    speed_mbps: int
    low_bytes: float
    high_bytes: float

    def below(self, value: float, tolerance_pct: float = 0.0) -> bool:
        """True when ``value`` is under the low edge by more than the tolerance."""
        return value < self.low_bytes * (1 - tolerance_pct / 100)

    def above(self, value: float, tolerance_pct: float = 0.0) -> bool:
        """True when ``value`` is over the high edge by more than the tolerance."""
        return value > self.high_bytes * (1 + tolerance_pct / 100)

    def summary(self) -> str:
        """``400000-1600000 B at 100G``."""
        return f"{self.low_bytes:.0f}-{self.high_bytes:.0f} B at {self.speed_mbps / 1000:g}G"


def ecn_envelope(speed_mbps: int, min_kb_per_25g: float, max_kb_per_25g: float) -> EcnEnvelope:
    """The envelope of a port speed from the intent's per-25G edges."""
    if not 0 < min_kb_per_25g < max_kb_per_25g:
        msg = "need 0 < min_kb_per_25g < max_kb_per_25g"
        raise ValueError(msg)
    factor = scale(speed_mbps) * KB
    return EcnEnvelope(speed_mbps, min_kb_per_25g * factor, max_kb_per_25g * factor)


def scaled_thresholds(
    speed_mbps: int,
    kmin_kb_per_25g: float = HPCC_KMIN_KB_PER_25G,
    kmax_kb_per_25g: float = HPCC_KMAX_KB_PER_25G,
) -> tuple[int, int]:
    """(Kmin, Kmax) in bytes for a port speed (HPCC scaling by default; 100G -> 400 KB/1.6 MB)."""
    env = ecn_envelope(speed_mbps, kmin_kb_per_25g, kmax_kb_per_25g)
    return round(env.low_bytes), round(env.high_bytes)


@dataclass(frozen=True)
class PfcBound:
    """Where a lossless PG stops taking shared buffer and sends XOFF, in bytes."""

    limit_bytes: float
    kind: str
    """``dynamic`` or ``static``."""
    summary: str
    """How the limit was computed, for a finding."""


def dynamic_share(alpha: float) -> float:
    """The share of a pool one growing user with factor ``alpha`` ends at: a/(1+a)."""
    if alpha < 0 or math.isnan(alpha):
        msg = "alpha must be >= 0"
        raise ValueError(msg)
    if math.isinf(alpha):
        return 1.0
    return alpha / (1 + alpha)


def dynamic_bound(pool_bytes: float, alpha: float, pool: str = "pool") -> PfcBound:
    """The XOFF point of a PG with dynamic threshold ``alpha`` in a pool of ``pool_bytes``."""
    share = dynamic_share(alpha)
    alpha_text = "inf" if math.isinf(alpha) else f"{alpha:g}"
    return PfcBound(
        limit_bytes=share * pool_bytes,
        kind="dynamic",
        summary=(
            f"alpha/(1+alpha) x {pool} = {alpha_text}/(1+{alpha_text}) x {pool_bytes:.0f} B"
            f" = {share * pool_bytes:.0f} B"
        ),
    )


def static_bound(static_th_bytes: int) -> PfcBound:
    """The XOFF point of a PG with a static shared-buffer limit."""
    return PfcBound(
        limit_bytes=float(static_th_bytes),
        kind="static",
        summary=f"static PG limit {static_th_bytes} B",
    )

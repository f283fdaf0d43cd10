"""The fabric's declared lossless plan (the intent every rule compares against)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from rocetune.model.base import Model

Priority = int
"""An IEEE 802.1p priority, 0..7."""


def _check_priorities(values: tuple[int, ...]) -> tuple[int, ...]:
    for v in values:
        if not 0 <= v <= 7:
            msg = f"priority {v} is outside 0..7"
            raise ValueError(msg)
    return tuple(sorted(set(values)))


def _check_dscps(values: tuple[int, ...]) -> tuple[int, ...]:
    for v in values:
        if not 0 <= v <= 63:
            msg = f"DSCP {v} is outside 0..63"
            raise ValueError(msg)
    return tuple(sorted(set(values)))


class CnpIntent(Model):
    """Where congestion notification packets travel: DSCP and 802.1p priority."""

    dscp: int = Field(default=48, ge=0, le=63)
    """DSCP of congestion notification packets (CNPs) the NICs send; default 48."""
    priority: int = Field(default=6, ge=0, le=7)
    """802.1p priority (and traffic class) CNPs travel on: strict, lossy; default 6."""


DEFAULT_SWITCH_MTU = 9216
"""The switch MTU target on a device whose platform's largest MTU is not known."""


class MtuIntent(Model):
    """MTUs in bytes, all IP (L3) MTUs: host netdev, switch port, RoCE path MTU.

    Every platform rocetune reads counts its MTU without the Ethernet header, FCS and VLAN
    tag (docs/mtu.md), so host and switch MTUs compare directly.
    """

    host: int = Field(default=9000, gt=0)
    """Host netdev MTU (IP MTU) in bytes; default 9000."""
    switch: int | None = Field(default=None, gt=0)
    """The switch port MTU target; None (the default) = the platform's largest MTU
    (:attr:`Device.mtu_max` from the platform's limits: 9214 on EOS, 9216 elsewhere). A value
    above a platform's largest is capped there (the switch would reject it)."""
    roce: Literal[256, 512, 1024, 2048, 4096] = 4096
    """RoCE path MTU (``active_mtu`` of the RDMA port) in bytes; default 4096."""

    def switch_for(self, mtu_max: int | None) -> int:
        """The switch MTU target on a device whose largest MTU is ``mtu_max`` (see
        :attr:`switch`)."""
        want = self.switch if self.switch is not None else (mtu_max or DEFAULT_SWITCH_MTU)
        return min(want, mtu_max) if mtu_max is not None else want


class EcnIntent(Model):
    """ECN threshold envelope, in KB (1000 B) per 25 Gb/s of port speed (RT304).

    Defaults are the HPCC DCQCN scaling (Kmin 100 KB, Kmax 400 KB per 25G,
    roce-knowledge.md §3.4, S38).
    """

    min_kb_per_25g: float = Field(default=100, gt=0)
    """Lowest ECN minimum threshold (Kmin) in KB per 25 Gb/s of port speed; default 100."""
    max_kb_per_25g: float = Field(default=400, gt=0)
    """Highest ECN maximum threshold (Kmax) in KB per 25 Gb/s of port speed; default 400."""


class WatchdogIntent(Model):
    """PFC watchdog policy (roce-knowledge.md §3.6; SONiC defaults 200/200 ms, drop)."""

    detection_ms: float = Field(default=200, gt=0)
    """PFC watchdog detection time in milliseconds; default 200."""
    restoration_ms: float = Field(default=200, gt=0)
    """PFC watchdog restoration time in milliseconds; default 200."""
    action: Literal["drop", "forward", "alert"] = "drop"
    """What the watchdog does to a stormed queue: drop, forward or alert; default drop."""


class VerifyIntent(Model):
    """Pass thresholds for perftest verification (roce-knowledge.md §6.4)."""

    min_bandwidth_fraction: float = Field(default=0.9, gt=0, le=1)
    """perftest bandwidth below this fraction of line rate fails verification; default 0.9."""
    max_latency_us: float = Field(default=5, gt=0)
    """perftest latency above this many microseconds fails verification; default 5."""


class Intent(Model):
    """The lossless plan. Defaults are the de-facto plan (roce-knowledge.md §2.0).

    RoCE DSCP 26 -> priority 3 (lossless); CNP DSCP 48 -> priority 6 (strict, lossy).
    """

    lossless_priorities: tuple[Priority, ...] = (3,)
    """802.1p priorities that must be lossless (PFC) end to end; default [3]."""
    roce_dscp: tuple[int, ...] = (26,)
    """DSCP values of RoCE traffic; each must map to a lossless priority; default [26]."""
    cnp: CnpIntent = CnpIntent()
    """Where CNPs travel (``dscp``, ``priority``)."""
    congestion_control: Literal["dcqcn", "none"] = "dcqcn"
    """``dcqcn`` (ECN marking on the lossless queues is required) or ``none``; default dcqcn."""
    mtu: MtuIntent = MtuIntent()
    """MTU targets: ``host``, ``switch``, ``roce``."""
    ecn: EcnIntent = EcnIntent()
    """ECN threshold envelope per 25 Gb/s (``min_kb_per_25g``, ``max_kb_per_25g``)."""
    pfc_watchdog: WatchdogIntent = WatchdogIntent()
    """PFC watchdog policy (``detection_ms``, ``restoration_ms``, ``action``)."""
    verify: VerifyIntent = VerifyIntent()
    """Pass thresholds of ``rocetune verify``."""
    lossless_min_bandwidth_pct: float = Field(default=50, ge=0, le=100)
    """Smallest ETS share, in percent, the lossless traffic classes get together; default 50."""
    max_lossless_priorities: int = Field(default=2, ge=1, le=8)
    """Most lossless priorities a port should carry (headroom per priority); default 2."""
    l2_overhead_bytes: int = Field(default=22, ge=0)
    """Ethernet header + FCS + one VLAN tag a port adds on top of its IP MTU (14 + 4 + 4, as
    SONiC's orchagent adds to ``PORT.mtu``). Switch and host MTUs are both IP MTUs and are
    compared directly (RT601); this only states the largest frame on the wire in messages."""
    cable_length_m: dict[str, float] = Field(default_factory=dict)
    """Default cable length in metres for links whose inventory entry gives no ``length_m``
    (links found by LLDP, or declared without a length); headroom rules size for it.

    Keys: a role pair ``"<role>-<role>"`` in either order (``host-leaf`` = ``leaf-host``),
    a single role (``spine``: any link with an end of that role) or ``default``. Lookup: the
    pair, else the longest single-role value of the two ends, else ``default``. A device
    without a role counts as its kind (``host`` or ``switch``). Empty (the default) means
    unknown: no length is guessed, and rules that need one report missing data (RT000).
    Example (SONiC's buffer templates' per-role defaults): ``{host-leaf: 5, leaf-spine: 40,
    spine-superspine: 300}``."""

    @field_validator("lossless_priorities")
    @classmethod
    def _lossless(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        v = _check_priorities(v)
        if not v:
            msg = "at least one lossless priority is required"
            raise ValueError(msg)
        return v

    @field_validator("roce_dscp")
    @classmethod
    def _roce_dscp(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        v = _check_dscps(v)
        if not v:
            msg = "at least one RoCE DSCP is required"
            raise ValueError(msg)
        return v

    @field_validator("cable_length_m")
    @classmethod
    def _cable_lengths(cls, v: dict[str, float]) -> dict[str, float]:
        for key, metres in v.items():
            if not key.strip() or not 0 < metres <= 100_000:
                msg = f"cable_length_m[{key!r}] = {metres}: expected a role key and 0 < m <= 100000"
                raise ValueError(msg)
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Intent:
        if self.cnp.dscp in self.roce_dscp:
            msg = f"CNP DSCP {self.cnp.dscp} is also a RoCE DSCP"
            raise ValueError(msg)
        if self.ecn.min_kb_per_25g >= self.ecn.max_kb_per_25g:
            msg = "ecn.min_kb_per_25g must be below ecn.max_kb_per_25g"
            raise ValueError(msg)
        return self

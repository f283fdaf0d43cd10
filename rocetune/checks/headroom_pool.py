"""RT504, shared headroom pool: is the pool's ``xoff`` enough for the PGs that draw on it?

With a shared headroom pool (SONiC ``BUFFER_POOL|ingress_lossless_pool xoff`` > 0; the model
of Broadcom XGS SKUs and of Spectrum with SHP) a lossless PG profile's ``xoff`` is not a
reservation but the most that PG may take from the pool; the pool's ``xoff`` is the memory
all of them share (SONiC dynamic buffer design, "shared headroom pool model"). SONiC sizes
the pool as the sum of the xoff of all lossless PGs divided by the over-subscribe ratio,
which must lie in [0, number of ports] (same document; buffermgrd computes it so when only
the ratio is configured). Broadcom publishes no formula for its pool size (the SKU templates
carry a number from an MMU spreadsheet), so these checks are estimates and warnings:

- the pool is smaller than one PG's own xoff limit: that PG cannot use its limit;
- the pool is smaller than Σ PG xoff / number of ports (an over-subscribe ratio larger than
  SONiC allows): less than one average port's headroom is left for all ports together;
- a configured over-subscribe ratio asks for more than the configured pool size gives.

The pool's xoff and the xoff of every lossless PG on it must be known; otherwise RT000 names
what is missing (Enterprise SONiC: both are runtime defaults of ``buffer init lossless``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rocetune.checks.base import Issue, Missing, Result
from rocetune.checks.helpers import profile_is_lossless
from rocetune.model import BufferPool, BufferProfile, Device, Severity

FORMULA = (
    "SONiC shared headroom pool: pool xoff = sum of the lossless PGs' xoff / "
    "over_subscribe_ratio, with the ratio in [0, number of ports] (sonic-net/SONiC "
    "doc/qos/dynamically-headroom-calculation.md)"
)


@dataclass(frozen=True)
class PoolUse:
    """The lossless PGs on one shared headroom pool."""

    pool: BufferPool
    pgs: tuple[tuple[str, int, BufferProfile], ...]
    """(port, PG, profile) of every lossless PG whose profile draws from the pool."""

    @property
    def ports(self) -> int:
        """Ports with at least one lossless PG on the pool."""
        return len({port for port, _, _ in self.pgs})

    @property
    def total_xoff(self) -> int:
        """Sum of the PGs' xoff limits."""
        return sum(prof.xoff_bytes or 0 for _, _, prof in self.pgs)


def pool_uses(dev: Device) -> list[PoolUse]:
    """Every ingress pool with a shared headroom size and the lossless PGs on it (also a
    Broadcom pool whose size is not known: Broadcom lossless buffers always share one)."""
    out = []
    for pool in (dev.buffer_pools or {}).values():
        unknown_shared = pool.shared_headroom_bytes is None and dev.asic == "broadcom"
        if pool.direction == "egress" or not (pool.shared_headroom_bytes or unknown_shared):
            continue
        pgs = tuple(
            (port.name, pg, prof)
            for port in dev.ports.values()
            for pg, prof in sorted((port.pg_buffers or {}).items())
            if prof.pool == pool.name and profile_is_lossless(prof)
        )
        out.append(PoolUse(pool, pgs))
    return out


def shared_headroom_checks(dev: Device) -> Iterator[Result]:
    """RT504 on each shared headroom pool of ``dev`` (see the module docstring)."""
    for use in pool_uses(dev):
        yield from _check(dev, use)


def _check(dev: Device, use: PoolUse) -> Iterator[Result]:
    pool, have = use.pool, use.pool.shared_headroom_bytes or 0
    path = f"buffer_pools.{pool.name}"
    if not use.pgs:
        return
    if pool.shared_headroom_bytes is None:
        item = (
            f"shared headroom size (xoff) of pool {pool.name}, which the {len(use.pgs)} lossless "
            f"PGs on {_ports(use.ports)} share (set at runtime by the platform's lossless "
            "defaults unless configured: `show buffer pool`)"
        )
        yield Missing(dev.name, item, path)
        return
    unknown = [(port, pg, prof) for port, pg, prof in use.pgs if prof.xoff_bytes is None]
    if unknown:
        port, pg, prof = unknown[0]
        why = prof.generated_at_runtime or f"profile {prof.name or '(unnamed)'}"
        item = (
            f"xoff of {len(unknown)} of the {len(use.pgs)} lossless PGs on shared headroom "
            f"pool {pool.name} (first: {port} PG {pg}, {why}), needed to judge the pool's "
            f"xoff {have} B"
        )
        yield Missing(dev.name, item, path)
        return
    biggest = max(use.pgs, key=lambda t: t[2].xoff_bytes or 0)
    if have < (biggest[2].xoff_bytes or 0):
        port, pg, prof = biggest
        yield _issue(
            dev,
            use,
            f"is smaller than the xoff limit {prof.xoff_bytes} B of {port} PG {pg} "
            f"(profile {prof.name or '(unnamed)'}): that PG can never use its headroom, so "
            "packets still arriving after XOFF are dropped",
            f">= {prof.xoff_bytes} B (the largest PG xoff limit on the pool)",
        )
        return
    floor = use.total_xoff / use.ports
    if have < floor:
        ratio = use.total_xoff / have
        yield _issue(
            dev,
            use,
            f"is below sum of PG xoff {use.total_xoff} B / {use.ports} ports = {floor:.0f} B: "
            f"an over-subscribe ratio of {ratio:.1f}, more than the number of ports SONiC "
            "allows, so less than one port's headroom is left for all ports pausing together",
            f">= {floor:.0f} B (estimate: {FORMULA})",
        )
        return
    ratio = (dev.headroom_params.over_subscribe_ratio if dev.headroom_params else None) or 0
    if ratio > 0 and have < use.total_xoff / ratio:
        need = use.total_xoff / ratio
        yield _issue(
            dev,
            use,
            f"is below sum of PG xoff {use.total_xoff} B / the configured over_subscribe_ratio "
            f"{ratio:g} = {need:.0f} B (the configured pool size takes precedence over the ratio)",
            f">= {need:.0f} B ({FORMULA})",
        )


def _ports(count: int) -> str:
    return f"{count} port" if count == 1 else f"{count} ports"


def _issue(dev: Device, use: PoolUse, what: str, expected: str) -> Issue:
    pool = use.pool
    return Issue(
        message=(
            f"shared headroom pool {pool.name} xoff {pool.shared_headroom_bytes} B (the headroom "
            f"all {len(use.pgs)} lossless PGs on {_ports(use.ports)} share; each PG's xoff is only "
            f"its limit into it) {what}"
        ),
        device=dev.name,
        observed=(
            f"pool xoff {pool.shared_headroom_bytes} B; {len(use.pgs)} lossless PGs, sum of xoff "
            f"{use.total_xoff} B"
        ),
        expected=expected,
        path=f"buffer_pools.{pool.name}",
        severity=Severity.WARNING,
    )

"""RT304/RT305: ECN thresholds against port speed and against the PFC trigger point.

Both rules look at the ECN profile of each lossless egress queue (found through the port's
maps, :func:`rocetune.checks.ecn.lossless_queues`) and take the numbers from
:mod:`rocetune.tune.ecn`. A queue without an ECN-marking profile is RT301's finding, not
theirs. With ``congestion_control: none`` there is no ECN to tune and both stay silent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from pydantic import Field

from rocetune.checks._chain import options_of, pg_of, queue_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    port_path,
)
from rocetune.checks.ecn import lossless_queues
from rocetune.checks.helpers import missing
from rocetune.model import BufferProfile, Device, EcnProfile, Port, Severity
from rocetune.tune.ecn import EcnEnvelope, PfcBound, dynamic_bound, ecn_envelope, kb_per_25g
from rocetune.tune.ecn import static_bound as static_limit


def marking_profile(
    dev: Device, port: Port, queue: int
) -> tuple[EcnProfile, int, int] | Missing | None:
    """(profile, Kmin, Kmax) of a marking queue; None when it does not mark (RT301)."""
    profile = (port.ecn or {}).get(queue)
    if profile is None or profile.ecn_mark is False:
        return None
    kmin, kmax = profile.min_threshold_bytes, profile.max_threshold_bytes
    if profile.ecn_mark is None or kmin is None or kmax is None:
        return missing(dev.name, port, f"ecn.{queue}", f"ECN thresholds of queue {queue}")
    return profile, kmin, kmax


class EcnScaleOptions(RuleOptions):
    """Options of RT304."""

    tolerance_pct: float = Field(default=10.0, ge=0, lt=100)
    """Accept thresholds this far outside the envelope: ASIC granularity (Spectrum programs
    159,744 B for 150,000 B, +6.5 %, S1) and KiB/KB mixing (+2.4 %)."""


class EcnThresholdScale(PortRule):
    """RT304: Kmin and Kmax of the lossless queue inside the intent envelope for the speed."""

    meta = RuleMeta(
        code="RT304",
        name="ecn-threshold-scale",
        severity=Severity.WARNING,
        scope="port",
        summary="Kmin/Kmax per Gb/s of port speed inside the intent's envelope",
        tags=("ecn", "dcqcn"),
        features=(
            "ecn",
            "speed",
        ),
    )
    options_model = EcnScaleOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Compare the thresholds of every marking lossless queue with the envelope
        (whether anything is found depends on the values and objects of the key below
        alone: the device and port name it)."""
        opts = options_of(ctx, EcnScaleOptions)
        what = ("RT304", port.speed_mbps, opts.tolerance_pct)
        inputs = (ctx.intent, port.ecn, port.priority_to_tc, port.tc_to_queue)
        return ctx.quiet(what, inputs, lambda: self._port(dev, port, ctx, opts))

    def _port(
        self, dev: Device, port: Port, ctx: CheckContext, opts: EcnScaleOptions
    ) -> Iterator[Result]:
        if ctx.intent.congestion_control == "none":
            return
        if port.ecn is None:
            yield missing(dev.name, port, "ecn", "ECN profiles of the egress queues")
            return
        for queue in lossless_queues(dev, port, ctx):
            if isinstance(queue, Missing):
                yield queue
                continue
            found = marking_profile(dev, port, queue)
            if found is None or isinstance(found, Missing):
                yield from [found] if found is not None else []
                continue
            if port.speed_mbps is None:
                yield missing(dev.name, port, "speed_mbps", "port speed")
                return
            env = ecn_envelope(
                port.speed_mbps, ctx.intent.ecn.min_kb_per_25g, ctx.intent.ecn.max_kb_per_25g
            )
            yield from _scale(dev, port, queue, found, env=env, tol=opts.tolerance_pct)


def _scale(
    dev: Device,
    port: Port,
    queue: int,
    found: tuple[EcnProfile, int, int],
    *,
    env: EcnEnvelope,
    tol: float,
) -> Iterator[Issue]:
    profile, kmin, kmax = found
    speed = port.speed_mbps or 1
    problems = []
    if env.below(kmin, tol):
        problems.append(f"Kmin {kmin} B is below {env.low_bytes:.0f} B (marks too early)")
    for name, value in (("Kmin", kmin), ("Kmax", kmax)):
        if env.above(value, tol):
            problems.append(f"{name} {value} B is above {env.high_bytes:.0f} B (marks too late)")
    if env.below(kmax, tol):
        problems.append(f"Kmax {kmax} B is below {env.low_bytes:.0f} B (the whole ramp is early)")
    if not problems:
        return
    per = f"{kb_per_25g(kmin, speed):.4g}/{kb_per_25g(kmax, speed):.4g} KB per 25G"
    yield Issue(
        message=(
            f"ECN profile {profile.name or '(unnamed)'} on lossless queue {queue} does not scale"
            f" with the {speed / 1000:g}G port speed: {'; '.join(problems)}. Thresholds too low"
            " cut DCQCN senders on ordinary bursts; too high let the queue grow until PFC acts"
        ),
        device=dev.name,
        port=port.name,
        observed=f"Kmin {kmin} B, Kmax {kmax} B ({per})",
        expected=f"Kmin and Kmax within {env.summary()} (intent ecn envelope, tolerance {tol:g} %)",
        path=port_path(port, f"ecn.{queue}"),
    )


class EcnBeforePfcOptions(RuleOptions):
    """Options of RT305."""

    threshold: Literal["kmin", "kmax"] = "kmax"
    """Which ECN threshold must lie below the PG's XOFF point: ``kmax`` (marking complete
    before PFC, the catalogue's ideal) or ``kmin`` (marking at least starts before PFC).
    Kmin at or above the point is always reported."""
    asic_buffer_bytes: int | None = Field(default=None, gt=0)
    """Total shared buffer of the ASIC, to size pools given only as a percentage (Cumulus
    traffic pools); not in any configuration."""


class EcnBeforePfc(PortRule):
    """RT305: ECN marks the lossless queue before its ingress PG reaches XOFF."""

    meta = RuleMeta(
        code="RT305",
        name="ecn-before-pfc",
        severity=Severity.WARNING,
        scope="port",
        summary="marking starts before the lossless PG reaches its XOFF point (Kmax below"
        " α/(1+α) of the lossless pool, or below the static limit)",
        tags=("ecn", "dcqcn", "buffers", "pfc"),
        features=(
            "ecn",
            "buffers",
        ),
    )
    options_model = EcnBeforePfcOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Compare the ECN thresholds of each lossless priority with its PG's limit
        (whether anything is found depends on the values and objects of the key below
        alone: the device and port name it)."""
        opts = options_of(ctx, EcnBeforePfcOptions)
        what = ("RT305", opts.threshold, opts.asic_buffer_bytes)
        inputs = (
            ctx.intent,
            port.ecn,
            port.pg_buffers,
            port.priority_to_tc,
            port.tc_to_queue,
            port.tc_to_pg,
            dev.buffer_pools,
        )
        return ctx.quiet(what, inputs, lambda: self._port(dev, port, ctx, opts))

    def _port(
        self, dev: Device, port: Port, ctx: CheckContext, opts: EcnBeforePfcOptions
    ) -> Iterator[Result]:
        if ctx.intent.congestion_control == "none":
            return
        if port.ecn is None or port.pg_buffers is None:
            field = "ecn" if port.ecn is None else "pg_buffers"
            what = "ECN profiles" if port.ecn is None else "ingress PG buffer profiles"
            yield missing(dev.name, port, field, what)
            return
        for prio in ctx.intent.lossless_priorities:
            queue, pg = queue_of(dev.name, port, prio), pg_of(dev.name, port, prio)
            if isinstance(queue, Missing) or isinstance(pg, Missing):
                yield from (x for x in (queue, pg) if isinstance(x, Missing))
                continue
            found = marking_profile(dev, port, queue)
            profile = port.pg_buffers.get(pg)
            if found is None or profile is None:
                continue  # RT301 / RT501 report a missing profile
            if isinstance(found, Missing):
                yield found
                continue
            bound = pfc_bound(dev, port, pg, profile, opts)
            if isinstance(bound, Missing):
                yield bound
                continue
            yield from _before(dev, port, (queue, pg), found, bound=bound, opts=opts)


def pfc_bound(
    dev: Device, port: Port, pg: int, profile: BufferProfile, opts: EcnBeforePfcOptions
) -> PfcBound | Missing:
    """Where the lossless PG ``pg`` sends XOFF (static limit or alpha share of its pool)."""
    if profile.static_th_bytes is not None:
        return static_limit(profile.static_th_bytes)
    path = f"pg_buffers.{pg}"
    if profile.alpha is None:
        return missing(dev.name, port, path, f"shared-buffer limit (alpha) of lossless PG {pg}")
    pools = dev.buffer_pools or {}
    pool = pools.get(profile.pool) if profile.pool else None
    size: float | None = None
    if pool is not None and pool.size_bytes is not None:
        size = pool.size_bytes
    elif pool is not None and pool.percent is not None and opts.asic_buffer_bytes:
        size = pool.percent / 100 * opts.asic_buffer_bytes
    if size is None:
        name = profile.pool or "(unknown)"
        what = f"size of buffer pool {name} of lossless PG {pg} (option asic_buffer_bytes)"
        return missing(dev.name, port, path, what)
    return dynamic_bound(size, profile.alpha, f"pool {profile.pool}")


def _before(
    dev: Device,
    port: Port,
    where: tuple[int, int],
    found: tuple[EcnProfile, int, int],
    *,
    bound: PfcBound,
    opts: EcnBeforePfcOptions,
) -> Iterator[Issue]:
    queue, pg = where
    profile, kmin, kmax = found
    limit = bound.limit_bytes
    if kmin >= limit:
        what = f"marking starts only at Kmin {kmin} B"
        effect = "PFC pauses the sender before DCQCN gets any ECN signal"
    elif opts.threshold == "kmax" and kmax > limit:
        what = f"marking reaches its maximum only at Kmax {kmax} B"
        effect = "PFC can pause the sender before DCQCN has slowed it fully"
    else:
        return
    yield Issue(
        message=(
            f"ECN on lossless queue {queue} ({profile.name or 'unnamed profile'}): {what}, but"
            f" lossless PG {pg} sends XOFF at about {limit:.0f} B ({bound.summary}); {effect}"
            " (a heuristic bound: several ingress PGs can feed one egress queue)"
        ),
        device=dev.name,
        port=port.name,
        observed=f"Kmin {kmin} B, Kmax {kmax} B",
        expected=f"{'Kmax' if opts.threshold == 'kmax' else 'Kmin'} < {limit:.0f} B"
        f" ({bound.kind} PG limit)",
        path=port_path(port, f"ecn.{queue}"),
    )

"""RT504/RT505: buffer limits of the ASIC, and where lossless traffic takes its buffer.

RT504 (device): the headroom a port reserves for its lossless PGs fits the ASIC's per-port
maximum, and the shared-buffer pools fit the buffer. The per-port maximum
(SAI ``SAI_PORT_ATTR_QOS_MAXIMUM_HEADROOM_SIZE``, which SONiC reads at runtime into
STATE_DB ``BUFFER_MAX_PARAM_TABLE``) and the ASIC's total buffer are in no configuration and
no public per-ASIC table was found, so they are options; without them those checks report
missing data. Headroom of one lossless PG profile = its reserved ``size``, or xon + xoff
when the size is not given. Pools: percentages (Cumulus traffic pools, SONiC dynamic model)
of one direction sum to <= 100 %; byte sizes of one direction sum to <= the ASIC buffer
(ingress and egress accounting are two views of the same memory, so each is checked alone).
A shared headroom pool's ``xoff`` is checked against the lossless PGs that draw on it
(:mod:`.headroom_pool`: estimates, warnings).

RT505 (port): the PG of every lossless priority draws from a lossless pool (and not from an
egress pool), and the egress queue of every lossless priority is not capped by a static
limit smaller than its pool (every published SONiC static ``egress_lossless_profile`` sets
``static_th`` to the whole egress lossless pool) or than the ``min_queue_static_bytes``
option.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pydantic import Field

from rocetune.checks._chain import options_of
from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    port_path,
)
from rocetune.checks.buffers import LosslessPg, lossless_pgs
from rocetune.checks.ecn import lossless_queues
from rocetune.checks.headroom_pool import shared_headroom_checks
from rocetune.checks.helpers import missing, profile_is_lossless
from rocetune.model import BufferPool, BufferProfile, Device, Port, Severity

_EPS = 1e-6


class HeadroomLimitsOptions(RuleOptions):
    """Options of RT504: ASIC facts that no configuration carries."""

    max_headroom_bytes: int | None = Field(default=None, gt=0)
    """Per-port maximum headroom of the ASIC (SAI_PORT_ATTR_QOS_MAXIMUM_HEADROOM_SIZE)."""
    asic_buffer_bytes: int | None = Field(default=None, gt=0)
    """Total shared buffer of the ASIC, for pools sized in bytes."""


def pg_headroom(profile: BufferProfile) -> int | None:
    """Headroom a lossless PG profile reserves: its size, else xon + xoff; None if unknown."""
    if profile.size_bytes is not None:
        return profile.size_bytes
    if profile.xon_bytes is None or profile.xoff_bytes is None:
        return None
    return profile.xon_bytes + profile.xoff_bytes


class HeadroomLimits(DeviceRule):
    """RT504: per-port headroom <= the ASIC maximum; pools <= 100 % / the ASIC buffer."""

    meta = RuleMeta(
        code="RT504",
        name="headroom-limits",
        severity=Severity.ERROR,
        scope="device",
        summary="total headroom per port <= the ASIC maximum; pool sizes/percentages <= 100 %",
        tags=("buffers", "headroom"),
        features=("buffers",),
    )
    options_model = HeadroomLimitsOptions

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Check every RoCE port's headroom, then the pools."""
        if dev.kind != "switch":
            return
        opts = options_of(ctx, HeadroomLimitsOptions)
        yield from shared_headroom_checks(dev)
        for port in ctx.roce_ports(dev):
            yield from _port_headroom(dev, port, opts)
        if dev.buffer_pools is None:
            yield Missing(dev.name, "buffer pools not in snapshot", "buffer_pools")
            return
        for direction in ("ingress", "egress", None):
            pools = [p for p in dev.buffer_pools.values() if p.direction == direction]
            yield from _percentages(dev, pools, direction)
            yield from _sizes(dev, pools, direction, opts.asic_buffer_bytes)


def _port_headroom(dev: Device, port: Port, opts: HeadroomLimitsOptions) -> Iterator[Result]:
    if port.pg_buffers is None:
        yield missing(dev.name, port, "pg_buffers", "ingress PG buffer profiles")
        return
    lossless = {pg: p for pg, p in port.pg_buffers.items() if profile_is_lossless(p)}
    if not lossless:
        return
    total = 0
    for pg, prof in sorted(lossless.items()):
        room = None if prof.computed_at_runtime else pg_headroom(prof)
        if room is None:
            yield missing(dev.name, port, f"pg_buffers.{pg}", f"headroom size of PG {pg}")
            return
        total += room
    limit = opts.max_headroom_bytes
    if limit is None:
        item = "per-port maximum headroom of the ASIC (option max_headroom_bytes)"
        yield Missing(dev.name, item, "asic")
        return
    if total <= limit:
        return
    pgs = ", ".join(str(pg) for pg in sorted(lossless))
    yield Issue(
        message=(
            f"lossless PGs {pgs} reserve {total} B of headroom, more than the {limit} B the ASIC"
            " allows per port: the switch rejects or truncates the buffer configuration, so"
            " the headroom that keeps these priorities lossless is not there"
        ),
        device=dev.name,
        port=port.name,
        observed=f"{total} B headroom",
        expected=f"<= {limit} B (option max_headroom_bytes)",
        path=port_path(port, "pg_buffers"),
    )


def _label(direction: str | None) -> str:
    return f"{direction} pools" if direction else "traffic pools"


def _percentages(dev: Device, pools: list[BufferPool], direction: str | None) -> Iterator[Result]:
    if not any(p.percent is not None for p in pools):
        return
    unknown = [p.name for p in pools if p.percent is None and p.size_bytes is None]
    total = sum(p.percent or 0 for p in pools)
    if total <= 100 + _EPS:
        if unknown:
            item = f"memory percent of {_label(direction)} {', '.join(sorted(unknown))}"
            yield Missing(dev.name, f"{item} not in snapshot", "buffer_pools")
        return
    parts = " + ".join(f"{p.name} {p.percent:g} %" for p in pools if p.percent is not None)
    yield Issue(
        message=(
            f"the {_label(direction)} take {total:g} % of the buffer ({parts}): more than"
            " exists, so the switch cannot give the lossless pool what the configuration"
            " promises (NVUE: the sum of memory-percent must not exceed 100)"
        ),
        device=dev.name,
        observed=f"{total:g} %",
        expected="<= 100 %",
        path=f"buffer_pools.{next(p.name for p in pools if p.percent is not None)}",
    )


def _sizes(
    dev: Device, pools: list[BufferPool], direction: str | None, asic: int | None
) -> Iterator[Result]:
    sized = [p for p in pools if p.size_bytes is not None]
    if not sized:
        return
    if asic is None:
        item = f"ASIC buffer size for the {_label(direction)} (option asic_buffer_bytes)"
        yield Missing(dev.name, item, "buffer_pools")
        return
    total = sum(p.size_bytes or 0 for p in sized)
    if total <= asic:
        return
    parts = " + ".join(f"{p.name} {p.size_bytes} B" for p in sized)
    yield Issue(
        message=(
            f"the {_label(direction)} add up to {total} B ({parts}), more than the {asic} B"
            " buffer of the ASIC: the pools overlap and lossless traffic can find its"
            " pool full before PFC reacts"
        ),
        device=dev.name,
        observed=f"{total} B",
        expected=f"<= {asic} B (option asic_buffer_bytes)",
        path=f"buffer_pools.{sized[0].name}",
    )


class LosslessPoolOptions(RuleOptions):
    """Options of RT505."""

    min_queue_static_bytes: int | None = Field(default=None, gt=0)
    """Smallest acceptable static limit of a lossless egress queue; None = the size of the
    queue profile's own pool (lossless egress queues may use their whole pool)."""


class LosslessPool(PortRule):
    """RT505: lossless PGs in a lossless ingress pool; lossless queues not capped small."""

    meta = RuleMeta(
        code="RT505",
        name="lossless-pool",
        severity=Severity.ERROR,
        scope="port",
        summary="lossless PGs draw from a lossless ingress pool; lossless egress queues are"
        " not capped by small static limits",
        tags=("buffers", "lossless"),
        features=("buffers",),
    )
    options_model = LosslessPoolOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Check the pool of each lossless PG and the limit of each lossless queue (whether
        anything is found depends on the values and objects of the key below alone: the
        device and port name it)."""
        opts = options_of(ctx, LosslessPoolOptions)
        inputs = (
            ctx.intent,
            port.priority_to_tc,
            port.tc_to_pg,
            port.pg_buffers,
            port.tc_to_queue,
            port.queue_buffers,
            dev.buffer_pools,
        )
        what = ("RT505", opts.min_queue_static_bytes)
        return ctx.quiet(what, inputs, lambda: self._port(dev, port, ctx, opts))

    def _port(
        self, dev: Device, port: Port, ctx: CheckContext, opts: LosslessPoolOptions
    ) -> Iterator[Result]:
        pgs, notes = lossless_pgs(dev, port, ctx)
        yield from notes
        for lpg in pgs:
            if lpg.profile is not None:
                yield from _pg_pool(dev, port, lpg, lpg.profile)
        yield from _queues(dev, port, ctx, opts)


def _pg_pool(dev: Device, port: Port, lpg: LosslessPg, prof: BufferProfile) -> Iterator[Result]:
    pools = dev.buffer_pools
    if pools is None:
        yield Missing(dev.name, "buffer pools not in snapshot", "buffer_pools")
        return
    if prof.pool is None:
        if pools and all(p.lossless is False for p in pools.values()):
            yield _pool_issue(dev, port, lpg, "no pool", "the device has no lossless pool")
        else:
            yield missing(dev.name, port, f"pg_buffers.{lpg.pg}", f"pool of {lpg.label}")
        return
    pool = pools.get(prof.pool)
    if pool is None or pool.lossless is None:
        what = f"pool {prof.pool}" if pool is None else f"lossless flag of pool {prof.pool}"
        yield Missing(dev.name, f"{port.name}: {what} not in snapshot", lpg.path(port))
    elif pool.direction == "egress":
        yield _pool_issue(dev, port, lpg, f"pool {pool.name}", "it is an egress pool")
    elif not pool.lossless:
        yield _pool_issue(dev, port, lpg, f"pool {pool.name}", "it is a lossy pool")


def _pool_issue(dev: Device, port: Port, lpg: LosslessPg, observed: str, why: str) -> Issue:
    return Issue(
        message=(
            f"lossless {lpg.label} draws from {observed}, but {why}: its buffer is then"
            " shared with (or sized for) lossy traffic, which can fill it so that the PG runs"
            " out of buffer and drops instead of pausing"
        ),
        device=dev.name,
        port=port.name,
        observed=observed,
        expected="a lossless ingress pool",
        path=lpg.path(port),
    )


def _queues(
    dev: Device, port: Port, ctx: CheckContext, opts: LosslessPoolOptions
) -> Iterator[Result]:
    for queue in lossless_queues(dev, port, ctx):
        if isinstance(queue, Missing):
            yield queue
            continue
        if port.queue_buffers is None:
            yield missing(dev.name, port, "queue_buffers", "egress queue buffer profiles")
            return
        prof = port.queue_buffers.get(queue)
        if prof is None or prof.static_th_bytes is None:
            continue  # no profile bound, or a dynamic limit
        limit, source = _queue_limit(dev, prof, opts)
        if limit is None:
            yield missing(dev.name, port, f"queue_buffers.{queue}", source)
        elif prof.static_th_bytes < limit:
            yield Issue(
                message=(
                    f"lossless egress queue {queue} is capped at a static {prof.static_th_bytes} B"
                    f" ({prof.name or 'unnamed profile'}), below {limit} B ({source}): lossless"
                    " packets are tail-dropped at egress before PFC can stop the senders"
                ),
                device=dev.name,
                port=port.name,
                observed=f"static_th {prof.static_th_bytes} B",
                expected=f">= {limit} B ({source})",
                path=port_path(port, f"queue_buffers.{queue}"),
            )


def _queue_limit(
    dev: Device, prof: BufferProfile, opts: LosslessPoolOptions
) -> tuple[int | None, str]:
    if opts.min_queue_static_bytes is not None:
        return opts.min_queue_static_bytes, "option min_queue_static_bytes"
    pool = (dev.buffer_pools or {}).get(prof.pool or "")
    if pool is None or pool.size_bytes is None:
        return None, f"size of pool {prof.pool or '(none)'} of the lossless queue profile"
    return pool.size_bytes, f"the size of its pool {pool.name}"

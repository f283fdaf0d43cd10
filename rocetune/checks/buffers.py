"""RT5xx buffer and headroom rules (roce-knowledge.md §3.5, R-SW-16/17).

The lossless ingress priority group of a priority is found through the port's maps
(priority -> ``priority_to_tc`` -> ``tc_to_pg``); its profile is ``Port.pg_buffers[pg]``.
The headroom requirement comes from :mod:`rocetune.tune.headroom` (SONiC's formula, S9/S10).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, cast

from pydantic import Field

from rocetune.checks._chain import link_length, options_of, pg_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    LinkRule,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import PortLike, missing, pfc_priorities, resolve_link
from rocetune.model import BufferProfile, Device, Link, Port, Severity
from rocetune.tune.headroom import HeadroomResult
from rocetune.tune.port_headroom import port_headroom

RUNTIME = "headroom computed at runtime by the switch (dynamic buffer model)"


@dataclass(frozen=True)
class LosslessPg:
    """A lossless ingress PG, the priorities it carries and its profile (the same object
    for every port with the same maps and profiles: :func:`lossless_pgs`)."""

    pg: int
    priorities: tuple[int, ...]
    profile: BufferProfile | None

    @property
    def label(self) -> str:
        """``PG 3 (priority 3)`` for messages."""
        return f"PG {self.pg} (priority {fmt_set(self.priorities).strip('{}')})"

    def path(self, port: Port) -> str:
        """The model path of this PG's profile on ``port`` (for provenance lookups)."""
        return port_path(port, f"pg_buffers.{self.pg}")


def lossless_pgs(
    dev: Device, port: Port, ctx: CheckContext
) -> tuple[tuple[LosslessPg, ...], list[Missing]]:
    """The PGs of the intent's lossless priorities on ``port``, or notes on missing maps.

    RT501, RT502 and RT505 ask for them on every RoCE port, and the ports of a fabric hold
    a handful of distinct map and profile objects: the PGs are found once per run for the
    same objects (:func:`_lossless_pgs`, ``ctx.memo``), and shared."""
    pg_buffers = port.pg_buffers
    if pg_buffers is None:
        return (), [missing(dev.name, port, "pg_buffers", "ingress PG buffer profiles")]
    intent, ptc, tc_pg = ctx.intent, port.priority_to_tc, port.tc_to_pg
    pgs, broken = ctx.memo(
        "lossless pgs",
        (intent, ptc, tc_pg, pg_buffers),
        lambda: _lossless_pgs(intent.lossless_priorities, ptc, tc_pg, pg_buffers),
    )
    return pgs, [cast(Missing, pg_of(dev.name, port, prio)) for prio in broken]


def _lossless_pgs(
    priorities: Iterable[int],
    ptc: dict[int, int] | None,
    tc_pg: dict[int, int] | None,
    pg_buffers: dict[int, BufferProfile],
) -> tuple[tuple[LosslessPg, ...], tuple[int, ...]]:
    """The PG of each of ``priorities`` through ``priority -> TC -> PG`` (as :func:`pg_of`
    follows them), with the priorities it carries, in PG order; and the priorities the
    maps do not lead to a PG (a map unknown or without the entry: :func:`pg_of` says
    which), in the order given."""
    by_pg: dict[int, list[int]] = {}
    broken: list[int] = []
    for prio in priorities:
        tc = None if ptc is None else ptc.get(prio)
        pg = None if tc is None or tc_pg is None else tc_pg.get(tc)
        if pg is None:
            broken.append(prio)
        else:
            by_pg.setdefault(pg, []).append(prio)
    pgs = tuple(
        LosslessPg(pg, tuple(prios), pg_buffers.get(pg)) for pg, prios in sorted(by_pg.items())
    )
    return pgs, tuple(broken)


class HeadroomOptions(RuleOptions):
    """Options of RT501: overrides of the traffic pattern and tolerance of the computation.

    Unset values come from the device (SONiC LOSSLESS_TRAFFIC_PATTERN, platform gearbox), else
    SONiC's defaults (:mod:`rocetune.tune.port_headroom`), exactly as the tuner sizes them."""

    lossless_mtu_bytes: int | None = Field(default=None, gt=0)
    """Largest lossless packet (SONiC LOSSLESS_TRAFFIC_PATTERN.mtu; default 1024)."""
    small_packet_pct: float | None = Field(default=None, ge=0, le=100)
    """Share of small packets (SONiC LOSSLESS_TRAFFIC_PATTERN.small_packet_percentage; 50)."""
    gearbox_delay_ns: float | None = Field(default=None, ge=0)
    """Gearbox latency of the platform (default: the platform's, else none)."""
    tolerance_pct: float = Field(default=0.0, ge=0, lt=100)
    """Accept xoff down to this much below the unrounded requirement."""
    asic: str | None = None
    """ASIC name to use instead of ``Device.asic`` (e.g. ``spectrum2``)."""


def _cable(dev: Device, port: Port, ctx: CheckContext) -> tuple[float, str] | Missing:
    """The cable length to size for, and a note on where it came from."""
    configured, linked = port.cable_length_m, link_length(ctx, dev.name, port.name)
    if configured is None:
        if linked is None:
            return missing(dev.name, port, "cable_length_m", "cable length")
        return linked, f"; cable length not configured, using the fabric link's {linked:g} m"
    if linked is not None and linked > configured:
        return linked, (
            f"; the fabric link is {linked:g} m, longer than the configured {configured:g} m, "
            "so the link length is used (see RT503)"
        )
    return configured, ""


def _requirement(
    dev: Device, port: Port, ctx: CheckContext, opts: HeadroomOptions
) -> tuple[HeadroomResult, str] | list[Result]:
    notes: list[Result] = []
    if port.speed_mbps is None:
        notes.append(missing(dev.name, port, "speed_mbps", "port speed"))
    if port.mtu is None:
        notes.append(missing(dev.name, port, "mtu", "port MTU"))
    cable = _cable(dev, port, ctx)
    if isinstance(cable, Missing):
        notes.append(cable)
    if notes or isinstance(cable, Missing) or port.speed_mbps is None or port.mtu is None:
        return notes
    need = _headroom(dev, port, port.speed_mbps, port.mtu, cable[0], ctx=ctx, opts=opts)
    return need, cable[1]


def _headroom(
    dev: Device,
    port: Port,
    speed: int,
    mtu: int,
    cable: float,
    *,
    ctx: CheckContext,
    opts: HeadroomOptions,
) -> HeadroomResult:
    """:func:`port_headroom` of ``port`` (its known ``speed`` and ``mtu``, the ``cable``
    length to size for), computed once per run for the same values and options and the
    same device objects it reads (``ctx.memo``): the ports of a device at one speed, cable
    length, MTU and lane count share one (immutable) result. The values are of their field
    types (ports are validated, or built as validation would), so equal is the same."""
    lanes = port.lanes
    what = (
        "RT501 headroom",
        speed,
        cable,
        mtu,
        lanes,
        dev.asic,
        opts.asic,
        opts.lossless_mtu_bytes,
        opts.small_packet_pct,
        opts.gearbox_delay_ns,
    )
    inputs = (dev.headroom_params, dev.buffer_pools)
    return ctx.memo(
        what,
        inputs,
        lambda: port_headroom(
            dev,
            speed,
            cable,
            mtu,
            asic=opts.asic,
            lossless_mtu=opts.lossless_mtu_bytes,
            small_packet_pct=opts.small_packet_pct,
            gearbox_delay_ns=opts.gearbox_delay_ns,
            lanes=lanes,
        ),
    )


class HeadroomSufficient(PortRule):
    """RT501: lossless PG xoff >= the headroom the vendor computes for speed, cable and MTU."""

    meta = RuleMeta(
        code="RT501",
        name="headroom-sufficient",
        severity=Severity.ERROR,
        scope="port",
        summary="lossless PG headroom (XOFF room) >= the requirement computed from port speed, "
        "cable length and MTU (show the computation)",
        tags=("buffers", "headroom", "pfc"),
        features=(
            "buffers",
            "speed",
            "mtu",
        ),
    )
    options_model = HeadroomOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Compare the xoff of every lossless PG of ``port`` with the computation."""
        pgs, notes = lossless_pgs(dev, port, ctx)
        yield from notes
        opts = options_of(ctx, HeadroomOptions)
        need: tuple[HeadroomResult, str] | list[Result] | None = None
        for lpg in pgs:
            prof = lpg.profile
            if prof is not None and prof.computed_at_runtime:
                yield Missing(dev.name, f"{port.name}: {RUNTIME}", lpg.path(port))
                continue
            if prof is not None and prof.xoff_bytes is None:
                what = prof.generated_at_runtime or f"xoff of {lpg.label}"
                yield Missing(dev.name, f"{port.name}: {what} (values not known)", lpg.path(port))
                continue
            need = need if need is not None else _requirement(dev, port, ctx, opts)
            if isinstance(need, list):
                yield from need
                return
            yield from _compare(dev, port, lpg, need, opts)


def _compare(
    dev: Device,
    port: Port,
    lpg: LosslessPg,
    need: tuple[HeadroomResult, str],
    opts: HeadroomOptions,
) -> Iterator[Issue]:
    res, cable_note = need
    have = 0 if lpg.profile is None else lpg.profile.xoff_bytes or 0
    if have >= res.xoff_raw * (1 - opts.tolerance_pct / 100):
        return
    i = res.inputs
    needs = (
        f"the {res.required_xoff} B{' (an estimate)' if res.estimate else ''} that "
        f"{i.speed_mbps / 1000:g}G over {i.cable_m:g} m with MTU {i.port_mtu} needs"
    )
    prof = lpg.profile
    runtime = (
        f"generated at runtime: {prof.generated_at_runtime}; "
        if prof and prof.generated_at_runtime
        else ""
    )
    severity = Severity.WARNING if res.estimate else None
    if prof is None:
        head, observed = f"has no buffer profile, so no headroom for {needs}", "no profile"
    else:
        name = f" (profile {prof.name})" if prof.name else ""
        head, observed = (
            f"has {have} B of XOFF headroom, below {needs}",
            f"{runtime}xoff {have} B{name}",
        )
        if prof.vendor_table and res.estimate:
            severity = Severity.WARNING
            head = (
                f"has xoff {have} B, the vendor's own value ({prof.vendor_table}), below the "
                f"vendor-neutral estimate {res.required_xoff} B for {i.speed_mbps / 1000:g}G "
                f"over {i.cable_m:g} m with MTU {i.port_mtu}"
            )
        elif prof.vendor_table:
            severity = Severity.WARNING
            head = (
                f"has xoff {have} B, the vendor's own value ({prof.vendor_table}), but the "
                f"current vendor computation gives {res.xoff} B (unrounded {res.required_xoff} B "
                f"for {i.speed_mbps / 1000:g}G over {i.cable_m:g} m with MTU {i.port_mtu})"
            )
    alloc = "" if res.estimate else f"; allocated in 1 KiB steps: {res.xoff} B"
    tail = ", so the bytes still arriving after XOFF overflow it and lossless packets are dropped"
    if prof is not None and prof.vendor_table:
        tail = (
            "; the vendor publishes no formula for this ASIC, so this compares the vendor's "
            "default with an estimate"
            if res.estimate
            else "; the SKU table predates the current computation, so this is the vendor's "
            "default, not a misconfiguration"
        )
    if prof is not None and res.inputs.shared_headroom_pool and prof.xoff_bytes is not None:
        tail += " (with a shared headroom pool the PG's xoff is its limit into the pool, RT504)"
    yield Issue(
        message=f"lossless {lpg.label} {head}{tail}",
        device=dev.name,
        port=port.name,
        observed=observed,
        expected=(
            f"xoff >= {res.required_xoff} B (tolerance {opts.tolerance_pct:g} %{alloc}): "
            f"{res.summary()}{cable_note}"
        ),
        path=lpg.path(port),
        severity=severity,
    )


class XonXoffOptions(RuleOptions):
    """Options of RT502."""

    headroom_model: Literal["auto", "independent", "shared"] = "auto"
    """How to decide whether ``size >= xon + xoff`` applies. ``auto``: from the PG profile's
    pool - a shared headroom pool size (SONiC ``BUFFER_POOL.xoff``) > 0 means the shared
    headroom model (no check), 0 means independent headroom (check); unknown -> RT000."""


def _model(dev: Device, prof: BufferProfile, opts: XonXoffOptions) -> str | None:
    """``independent`` / ``shared``, or None when the snapshot cannot tell."""
    if opts.headroom_model != "auto":
        return opts.headroom_model
    pools = dev.buffer_pools
    pool = None if pools is None or prof.pool is None else pools.get(prof.pool)
    if pool is not None and pool.shared_headroom_bytes is None and dev.asic == "broadcom":
        return "shared"  # Broadcom lossless buffers always use the pool's shared headroom
    if pool is None or pool.shared_headroom_bytes is None:
        return None
    return "shared" if pool.shared_headroom_bytes > 0 else "independent"


class XonXoffOrder(PortRule):
    """RT502: xon < xoff; with independent headroom also size >= xon + xoff."""

    meta = RuleMeta(
        code="RT502",
        name="xon-xoff-order",
        severity=Severity.ERROR,
        scope="port",
        summary="xon < xoff; with independent headroom, size >= xon + xoff",
        tags=("buffers", "headroom", "pfc"),
        features=("buffers",),
    )
    options_model = XonXoffOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Check the thresholds of every lossless PG profile of ``port`` (whether anything
        is found depends on the values and objects of the key below alone: the device and
        port name it)."""
        opts = options_of(ctx, XonXoffOptions)
        what = ("RT502", opts.headroom_model, dev.asic)
        inputs = (
            ctx.intent,
            port.priority_to_tc,
            port.tc_to_pg,
            port.pg_buffers,
            dev.buffer_pools,
        )
        return ctx.quiet(what, inputs, lambda: self._port(dev, port, ctx, opts))

    def _port(
        self, dev: Device, port: Port, ctx: CheckContext, opts: XonXoffOptions
    ) -> Iterator[Result]:
        pgs, notes = lossless_pgs(dev, port, ctx)
        yield from notes
        for lpg in pgs:
            if lpg.profile is not None:
                yield from _order(dev, port, lpg, lpg.profile, opts)


def _order(
    dev: Device, port: Port, lpg: LosslessPg, prof: BufferProfile, opts: XonXoffOptions
) -> Iterator[Result]:
    if prof.pause_threshold_bytes is not None:
        yield from _pause_order(dev, port, lpg, prof)
        return
    xon, xoff = prof.xon_bytes, prof.xoff_bytes
    name = prof.name or "(unnamed)"
    if xon is None or xoff is None:
        what = RUNTIME if prof.computed_at_runtime else f"xon/xoff of {lpg.label} not in snapshot"
        yield Missing(dev.name, f"{port.name}: {what}", lpg.path(port))
        return
    if xon >= xoff:
        yield Issue(
            message=(
                f"lossless {lpg.label} profile {name} has xon {xon} B >= xoff {xoff} B, so the "
                "port resumes the sender before the headroom has drained and flaps between "
                "pause and resume"
            ),
            device=dev.name,
            port=port.name,
            observed=f"xon {xon} B, xoff {xoff} B",
            expected="xon < xoff",
            path=lpg.path(port),
        )
    yield from _size(dev, port, lpg, prof, _model(dev, prof, opts))


def _pause_order(dev: Device, port: Port, lpg: LosslessPg, prof: BufferProfile) -> Iterator[Result]:
    """Explicit fill levels (NX-OS ``pause buffer-size B pause-threshold P resume-threshold
    R``): the port must resume below the level it pauses at (R < P), and pause before the
    buffer is full (P < B), leaving B - P for what is in flight after the pause."""
    size, pause, resume = prof.size_bytes, prof.pause_threshold_bytes or 0, prof.xon_bytes
    name = prof.name or "(unnamed)"
    if resume is not None and resume >= pause:
        yield Issue(
            message=f"lossless {lpg.label} buffer {name} resumes at {resume} B, not below its"
            f" pause threshold {pause} B, so the port resumes the sender as soon as it paused"
            " it and flaps between pause and resume",
            device=dev.name,
            port=port.name,
            observed=f"resume-threshold {resume} B, pause-threshold {pause} B",
            expected="resume-threshold < pause-threshold",
            path=lpg.path(port),
        )
    if size is not None and pause >= size:
        yield Issue(
            message=f"lossless {lpg.label} buffer {name} pauses at {pause} B of its {size} B:"
            " no room is left above the pause point for the data in flight after the pause"
            " (cable, peer reaction, one frame each way), so it is dropped",
            device=dev.name,
            port=port.name,
            observed=f"pause-threshold {pause} B, buffer-size {size} B",
            expected="pause-threshold < buffer-size (headroom = buffer-size - pause-threshold)",
            path=lpg.path(port),
        )


def _size(
    dev: Device, port: Port, lpg: LosslessPg, prof: BufferProfile, model: str | None
) -> Iterator[Result]:
    xon, xoff = prof.xon_bytes or 0, prof.xoff_bytes or 0
    if model == "shared" or dev.asic == "broadcom":
        # Broadcom XGS accounts a PG's guaranteed buffer (size) and its headroom (xoff) apart:
        # every Broadcom SKU table row has size < xon + xoff (docs/buffers.md section 2)
        return
    if model is None:
        what = (
            f"pool of the {lpg.label} profile"
            if prof.pool is None
            else f"shared headroom pool size of pool {prof.pool}"
        )
        item = f"{port.name}: {what} (decides the headroom model) not in snapshot"
        yield Missing(dev.name, item, lpg.path(port))
        return
    if prof.size_bytes is None:
        yield missing(dev.name, port, f"pg_buffers.{lpg.pg}", f"size of {lpg.label} profile")
        return
    if prof.size_bytes >= xon + xoff:
        return
    yield Issue(
        message=(
            f"lossless {lpg.label} profile {prof.name or '(unnamed)'} reserves {prof.size_bytes} B,"
            f" less than xon {xon} + xoff {xoff} = {xon + xoff} B, and pool {prof.pool} has no "
            "shared headroom, so what arrives after XOFF does not fit and is dropped"
        ),
        device=dev.name,
        port=port.name,
        observed=f"size {prof.size_bytes} B",
        expected=f"size >= xon + xoff = {xon + xoff} B (independent headroom model, S9)",
        path=lpg.path(port),
    )


class CableLength(LinkRule):
    """RT503: the configured cable length of both ends covers the link's real length."""

    meta = RuleMeta(
        code="RT503",
        name="cable-length",
        severity=Severity.WARNING,
        scope="link",
        summary="configured cable length (switch and NIC) >= the link's real length",
        tags=("buffers", "headroom", "pfc", "link"),
        features=("buffers",),
    )

    def check_link(self, link: Link, ctx: CheckContext) -> Iterable[Result]:
        """Compare each PFC end's ``cable_length_m`` with ``Link.length_m``."""
        sides, notes = resolve_link(link, ctx)
        yield from notes
        if sides is None:
            return
        for end, port in zip((link.a, link.b), sides, strict=True):
            enabled = pfc_priorities(port)
            if enabled is not None and not enabled:
                continue  # no PFC, no headroom to size
            if link.length_m is None:
                item = f"{end.port}: real length of link {link.label} (inventory length_m)"
                yield Missing(end.device, f"{item} not declared")
                continue
            if port.cable_length_m is None:
                yield missing(end.device, port, "cable_length_m", "configured cable length")
                continue
            if port.cable_length_m < link.length_m:
                yield _short(link, end.device, port, link.length_m)


def _short(link: Link, device: str, port: PortLike, real: float) -> Issue:
    have = port.cable_length_m or 0.0
    return Issue(
        message=(
            f"{device}:{port.name} is configured for a {have:g} m cable but link {link.label}"
            f" is {real:g} m: its PFC headroom is sized for {real - have:g} m less cable, so"
            " the bytes still on the wire after XOFF can overflow the lossless PG"
        ),
        device=device,
        port=port.name,
        link=link.label,
        observed=f"{have:g} m configured",
        expected=f">= {real:g} m (the link's length)",
        path=port_path(port, "cable_length_m"),
    )

"""RT1xx: classification, trust and DSCP maps (see rules/ and docs/rule-catalogue.md).

Every rule compares the port's maps with the fabric intent (RoCE DSCPs, lossless priorities,
CNP DSCP and priority); nothing is hard-coded. The switch chain is DSCP -> priority
(``dscp_to_priority``) -> TC (``priority_to_tc``) -> PG (``tc_to_pg``) / queue
(``tc_to_queue``); a NIC maps DSCP -> priority (``dscp2prio``).
"""

from __future__ import annotations

from collections.abc import Iterator

from rocetune.checks.base import (
    CheckContext,
    Issue,
    PortRule,
    Result,
    RuleMeta,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import (
    DSCP_TRUST,
    PortLike,
    lossless_priorities,
    lossless_tcs,
    missing,
    missing_pfc,
    pfc_path,
    pfc_priorities,
    priority_tc,
    profile_is_lossless,
)
from rocetune.model import Device, NicPort, Port, Severity


def _tc_text(port: PortLike, priority: int) -> str:
    tc = priority_tc(port, priority) if isinstance(port, Port) else None
    return "" if tc is None else f" (TC {tc})"


class TrustDscp(PortRule):
    """RT101: every RoCE port classifies by DSCP."""

    meta = RuleMeta(
        code="RT101",
        name="trust-dscp",
        severity=Severity.ERROR,
        scope="port",
        summary="every RoCE port (switch and NIC) classifies by DSCP (L3 trust)",
        tags=("classification", "trust"),
        features=("trust",),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check the trust mode of one switch port."""
        return _check_trust(dev, port)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check the trust mode of one NIC port."""
        return _check_trust(dev, nic)


def _check_trust(dev: Device, port: PortLike) -> Iterator[Result]:
    if port.trust is None:
        yield missing(dev.name, port, "trust", "trust mode")
        return
    if port.trust in DSCP_TRUST:
        return
    if port.trust == "port":
        head = "port trusts the port default (ignores packet markings), not DSCP:"
    else:
        head = f"port trusts {port.trust}, not DSCP: routed RoCE v2 packets carry no VLAN tag, so"
    yield Issue(
        message=f"{head} every packet lands on the port default priority instead of the"
        " lossless priority its DSCP asks for",
        device=dev.name,
        port=port.name,
        observed=port.trust,
        expected="dscp (or both)",
        path=port_path(port, "trust"),
    )


class RoceDscpLossless(PortRule):
    """RT102: the RoCE DSCP maps to a lossless priority on every port."""

    meta = RuleMeta(
        code="RT102",
        name="roce-dscp-lossless",
        severity=Severity.ERROR,
        scope="port",
        summary="the intent RoCE DSCP maps, through every map on the device, to a lossless"
        " priority",
        tags=("classification", "dscp", "pfc"),
        features=(
            "trust",
            "dscp_map",
            "pfc",
        ),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check the RoCE DSCPs on one switch port."""
        return _check_roce_dscp(dev, port, ctx)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check the RoCE DSCPs on one NIC port (dscp2prio and PFC vector)."""
        return _check_roce_dscp(dev, nic, ctx)


def _check_roce_dscp(dev: Device, port: PortLike, ctx: CheckContext) -> Iterator[Result]:
    dmap = port.dscp_to_priority
    if dmap is None:
        yield missing(dev.name, port, "dscp_to_priority", "DSCP map")
        return
    want = frozenset(ctx.intent.lossless_priorities)
    have = lossless_priorities(port)
    for dscp in ctx.intent.roce_dscp:
        prio = dmap.get(dscp)
        if prio in want and have is None:
            yield from missing_pfc(dev.name, port)
            continue
        if prio in want and have is not None:
            # Mapped to an intent lossless priority: with PFC on it the DSCP is lossless;
            # without, the root cause is PFC on that priority, which RT201 reports on this
            # port (one finding per root cause, not a second error for the same gap).
            continue
        yield Issue(
            message=_roce_dscp_message(port, dscp, prio, want, have),
            device=dev.name,
            port=port.name,
            observed="unmapped" if prio is None else prio,
            expected=f"a priority in {fmt_set(want)} (intent lossless_priorities) with PFC on",
            path=_roce_dscp_path(port, prio, want),
        )


def _roce_dscp_path(port: PortLike, prio: int | None, want: frozenset[int]) -> str:
    if prio is None or prio not in want:
        return port_path(port, "dscp_to_priority")
    if isinstance(port, Port) and prio not in (port.pfc_rx or ()):
        return port_path(port, "pfc_rx")
    return pfc_path(port)


def _roce_dscp_message(
    port: PortLike, dscp: int, prio: int | None, want: frozenset[int], have: frozenset[int] | None
) -> str:
    if prio is None:
        return (
            f"RoCE DSCP {dscp} is not in the DSCP map, so it falls to the port default"
            f" priority instead of lossless {fmt_set(want)}; RoCE traffic is lossy on this port"
        )
    if have is None:
        pfc = "whose PFC state is unknown"
    elif prio in have:
        pfc = "which has PFC"
    elif prio in (pfc_priorities(port) or ()):
        pfc = "which has PFC in one direction only"
    else:
        pfc = "which has no PFC"
    head = f"RoCE DSCP {dscp} maps to priority {prio}{_tc_text(port, prio)}, {pfc}"
    if prio in want:
        return f"{head}; RoCE traffic is lossy on this port"
    return (
        f"{head}, but the intent lossless priorities are {fmt_set(want)}; RoCE traffic"
        " leaves the lossless class on this port"
    )


class CnpDscpClass(PortRule):
    """RT103: the CNP DSCP maps to the intent CNP priority."""

    meta = RuleMeta(
        code="RT103",
        name="cnp-dscp-class",
        severity=Severity.ERROR,
        scope="port",
        summary="the CNP DSCP maps to the intent CNP priority/TC",
        tags=("classification", "dscp", "cnp", "dcqcn"),
        features=(
            "trust",
            "dscp_map",
        ),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check the CNP DSCP on one switch port."""
        if port.dscp_to_priority is None:
            yield missing(dev.name, port, "dscp_to_priority", "DSCP map")
            return
        yield from _check_cnp(dev, port, ctx)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check the CNP DSCP on one NIC port, where its DSCP map is known."""
        if nic.dscp_to_priority is not None:
            yield from _check_cnp(dev, nic, ctx)


def _check_cnp(dev: Device, port: PortLike, ctx: CheckContext) -> Iterator[Result]:
    dmap = port.dscp_to_priority or {}
    cnp = ctx.intent.cnp
    prio = dmap.get(cnp.dscp)
    if prio == cnp.priority:
        return
    if prio is None:
        where = "is not in the DSCP map and falls to the port default priority"
    else:
        where = f"maps to priority {prio}{_tc_text(port, prio)}"
    lossless = prio is not None and prio in ctx.intent.lossless_priorities
    why = (
        "CNPs then queue behind the RoCE data they are meant to slow down, under PFC"
        if lossless
        else "CNPs miss the strict CNP queue and wait behind other traffic, so DCQCN reacts late"
    )
    yield Issue(
        message=f"CNP DSCP {cnp.dscp} {where}, not the intent CNP priority {cnp.priority}"
        f"{_tc_text(port, cnp.priority)}; {why}",
        device=dev.name,
        port=port.name,
        observed="unmapped" if prio is None else prio,
        expected=f"{cnp.priority} (intent cnp.priority)",
        path=port_path(port, "dscp_to_priority"),
    )


class StrayDscpLossless(PortRule):
    """RT104: no DSCP other than the RoCE DSCPs lands in a lossless priority or TC."""

    meta = RuleMeta(
        code="RT104",
        name="stray-dscp-lossless",
        severity=Severity.WARNING,
        scope="port",
        summary="no DSCP other than the RoCE DSCP(s) lands in a lossless TC",
        tags=("classification", "dscp"),
        features=(
            "dscp_map",
            "pfc",
        ),
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Check one switch port: by priority, and by TC through ``priority_to_tc``."""
        if port.dscp_to_priority is None:
            yield missing(dev.name, port, "dscp_to_priority", "DSCP map")
            return
        tcs = lossless_tcs(port, ctx.intent.lossless_priorities)
        if tcs is None:
            yield missing(dev.name, port, "priority_to_tc", "priority-to-TC map")
        yield from _check_stray(dev, port, ctx, tcs or frozenset())
        if tcs:
            yield from _check_stray_cos(dev, port, ctx, tcs)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        """Check one NIC port by priority (NIC losslessness is per priority)."""
        if nic.dscp_to_priority is None:
            yield missing(dev.name, nic, "dscp_to_priority", "DSCP map")
            return
        yield from _check_stray(dev, nic, ctx, frozenset())


def _check_stray(
    dev: Device, port: PortLike, ctx: CheckContext, tcs: frozenset[int]
) -> Iterator[Result]:
    want = frozenset(ctx.intent.lossless_priorities)
    roce = frozenset(ctx.intent.roce_dscp)
    inputs = (port.dscp_to_priority, port.priority_to_tc)
    stray = ctx.memo(("stray dscps", tcs), inputs, lambda: _stray(port, want, roce, tcs))
    if not stray:
        return
    groups: dict[int, list[int]] = {}
    for d, p in stray.items():
        groups.setdefault(p, []).append(d)
    detail = "; ".join(
        f"{fmt_set(ds)} -> priority {p}"
        + ("" if p in want else f" (TC {priority_tc(port, p)}, a lossless TC)")
        for p, ds in sorted(groups.items())
    )
    yield Issue(
        message=f"DSCPs other than the RoCE DSCP {fmt_set(roce)} land in the lossless class"
        f" {fmt_set(want)} ({detail}): that traffic is paused instead of dropped, eats"
        " lossless headroom and is not rate-controlled by DCQCN",
        device=dev.name,
        port=port.name,
        observed=frozenset(stray),
        expected=f"only {fmt_set(roce)} (intent roce_dscp) in lossless {fmt_set(want)}",
        path=port_path(port, "dscp_to_priority"),
    )


def _stray(
    port: PortLike, want: frozenset[int], roce: frozenset[int], tcs: frozenset[int]
) -> dict[int, int]:
    """DSCP -> priority of ``port``'s DSCPs other than ``roce`` in a lossless priority
    (``want``) or TC (``tcs``), in DSCP order: a function of the port's DSCP and
    priority->TC maps, which ports configured alike share (one object), so it is found
    once per pair of maps (:meth:`CheckContext.memo`; the intent is the run's) instead of
    walking 64 DSCPs on every port."""
    dmap = port.dscp_to_priority or {}
    lossless = {p for p in set(dmap.values()) if p in want or priority_tc(port, p) in tcs}
    stray = {d: p for d, p in dmap.items() if p in lossless and d not in roce}
    return dict(sorted(stray.items()))


def _check_stray_cos(
    dev: Device, port: Port, ctx: CheckContext, tcs: frozenset[int]
) -> Iterator[Result]:
    """Configured CoS -> TC entries that put a non-lossless CoS into a lossless TC."""
    want = frozenset(ctx.intent.lossless_priorities)
    stray = {c: t for c, t in sorted((port.cos_to_tc or {}).items()) if c not in want and t in tcs}
    if not stray:
        return
    scope = (
        "every frame the port classifies by CoS"
        if port.trust in ("pcp", "port", None)
        else "tagged non-IP frames (IP packets are classified by DSCP on this port)"
    )
    detail = ", ".join(f"CoS {c} -> TC {t}" for c, t in stray.items())
    yield Issue(
        message=f"the CoS map puts CoS values other than the lossless priorities"
        f" {fmt_set(want)} into a lossless traffic class ({detail}); it applies to {scope}:"
        " that traffic is paused instead of dropped, eats lossless headroom and is not"
        " rate-controlled by DCQCN",
        device=dev.name,
        port=port.name,
        observed=detail,
        expected=f"only CoS {fmt_set(want)} in the lossless TCs {fmt_set(tcs)}",
        path=port_path(port, "cos_to_tc"),
    )


class PriorityChain(PortRule):
    """RT106: lossless priority -> TC -> lossless PG, and -> the PFC egress queue."""

    meta = RuleMeta(
        code="RT106",
        name="priority-chain",
        severity=Severity.ERROR,
        scope="port",
        summary="priority->TC, TC->priority-group and TC->queue chains put the lossless"
        " priority in a lossless PG and in the PFC/ECN egress queue",
        tags=("classification", "pfc", "buffers"),
        features=(
            "dscp_map",
            "pfc",
            "buffers",
            "scheduler",
        ),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        """Follow the chain of every intent lossless priority on one switch port."""
        needed = {
            "priority_to_tc": "priority-to-TC map",
            "tc_to_pg": "TC-to-PG map",
            "tc_to_queue": "TC-to-queue map",
        }
        gaps = [f for f in needed if getattr(port, f) is None]
        for f in gaps:
            yield missing(dev.name, port, f, needed[f])
        if gaps:
            return
        for prio in ctx.intent.lossless_priorities:
            yield from _check_chain(dev, port, prio)


def _chain_issue(
    dev: Device, port: Port, field: str, message: str, *, observed: object, expected: object
) -> Issue:
    return Issue(
        message=message,
        device=dev.name,
        port=port.name,
        observed=observed,
        expected=expected,
        path=port_path(port, field),
    )


def _check_chain(dev: Device, port: Port, prio: int) -> Iterator[Issue]:
    tc = (port.priority_to_tc or {}).get(prio)
    if tc is None:
        msg = (
            f"lossless priority {prio} has no TC in the priority-to-TC map, so its traffic"
            " uses the default TC, queue and priority group, which are lossy"
        )
        yield _chain_issue(dev, port, "priority_to_tc", msg, observed="unmapped", expected="a TC")
        return
    yield from _check_pg(dev, port, prio, tc)
    yield from _check_queue(dev, port, prio, tc)


def _pfc_off(port: Port, prio: int) -> bool:
    """True when the port is known to run no PFC on ``prio`` in either direction."""
    if port.pfc_rx is None or port.pfc_tx is None:
        return False
    return prio not in port.pfc_rx and prio not in port.pfc_tx


def _check_pg(dev: Device, port: Port, prio: int, tc: int) -> Iterator[Issue]:
    pg = (port.tc_to_pg or {}).get(tc)
    head = f"lossless priority {prio} -> TC {tc}"
    if pg is None:
        msg = f"{head} has no priority group in the TC-to-PG map; it uses the default (lossy) PG"
        yield _chain_issue(
            dev, port, "tc_to_pg", msg, observed="unmapped", expected="a lossless PG"
        )
        return
    pfc_pg = None if port.pfc_priority_to_pg is None else port.pfc_priority_to_pg.get(prio)
    if pfc_pg is None and _pfc_off(port, prio):
        return  # no PFC on the priority at all: RT201's finding (one per root cause)
    if port.pfc_priority_to_pg is not None and pfc_pg != pg:
        target = "no PG" if pfc_pg is None else f"PG {pfc_pg}"
        msg = (
            f"{head} -> PG {pg}, but PFC for priority {prio} is generated from {target};"
            f" PG {pg} filling up never sends pause, so it drops"
        )
        want = "a PG with PFC" if pfc_pg is None else pfc_pg
        yield _chain_issue(dev, port, "tc_to_pg", msg, observed=pg, expected=want)
        return
    yield from _check_pg_buffer(dev, port, head, pg)


def _check_pg_buffer(dev: Device, port: Port, head: str, pg: int) -> Iterator[Issue]:
    if port.pg_buffers is None:
        return
    profile = port.pg_buffers.get(pg)
    if profile is None or profile_is_lossless(profile):
        return  # a lossless PG without any profile is RT501's finding (one per root cause)
    name = profile.name or "unnamed"
    msg = (
        f"{head} -> PG {pg}, whose buffer profile ({name}) has no XOFF headroom; the PG"
        " cannot absorb in-flight data after pause, so lossless traffic is dropped"
    )
    yield _chain_issue(dev, port, f"pg_buffers.{pg}", msg, observed=name, expected="XOFF set")


def _check_queue(dev: Device, port: Port, prio: int, tc: int) -> Iterator[Issue]:
    queue = (port.tc_to_queue or {}).get(tc)
    head = f"lossless priority {prio} -> TC {tc}"
    if queue is None:
        msg = f"{head} has no egress queue in the TC-to-queue map; it uses the default queue"
        yield _chain_issue(
            dev, port, "tc_to_queue", msg, observed="unmapped", expected="the PFC queue"
        )
        return
    pmap = port.pfc_priority_to_queue
    if pmap is None or pmap.get(prio) == queue:
        return
    pfc_q = pmap.get(prio)
    if pfc_q is None and _pfc_off(port, prio):
        return  # no PFC on the priority at all: RT201's finding (one per root cause)
    target = "is mapped to no queue" if pfc_q is None else f"pauses queue {pfc_q}"
    msg = (
        f"{head} -> queue {queue}, but received PFC for priority {prio} {target};"
        f" queue {queue} keeps sending after the peer asked for pause, so the peer drops"
    )
    want = "a queue with PFC" if pfc_q is None else pfc_q
    yield _chain_issue(dev, port, "tc_to_queue", msg, observed=queue, expected=want)

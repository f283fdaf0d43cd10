"""RT701-RT704: both ends of a cabled link compared (see rules/ and docs/rule-catalogue.md).

:class:`LinkComparison` is their base: it resolves both model ports of every link in
``Fabric.links`` (an end missing from the model is reported as missing data on the device
that is present) and hands them to the rule's ``compare`` as :class:`LinkEnds`. A finding
names the link (``link.label``) and both ends with their values; its device/port is the end
that deviates from the intent (or end ``a`` when both or neither do), so provenance points at
the config most likely to need the fix.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from rocetune.checks.base import (
    CheckContext,
    Issue,
    LinkRule,
    Missing,
    Result,
    RuleMeta,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import (
    DSCP_TRUST,
    PortLike,
    lossless_priorities,
    missing,
    missing_pfc,
    pfc_path,
    resolve_link,
)
from rocetune.model import Intent, Link, LinkEnd, Port, Severity


def _culprit(deviates: Sequence[bool]) -> int:
    """Index of the only end that deviates, else 0 (end a)."""
    return 1 if deviates[1] and not deviates[0] else 0


def link_issue(
    link: Link,
    sides: tuple[PortLike, PortLike],
    i: int,
    message: str,
    *,
    observed: object,
    expected: object,
    field: str,
) -> Issue:
    """An issue on end ``i`` (0 = a, 1 = b) of ``link``, pointing at ``field`` of its port."""
    port = sides[i]
    return Issue(
        message=message,
        device=(link.a, link.b)[i].device,
        port=port.name,
        link=link.label,
        observed=observed,
        expected=expected,
        path=pfc_path(port) if field == "pfc" else port_path(port, field),
    )


@dataclass(frozen=True)
class LinkEnds:
    """The two model ports of a link under comparison."""

    link: Link
    ports: tuple[PortLike, PortLike]

    @property
    def ends(self) -> tuple[LinkEnd, LinkEnd]:
        """The link's ends (a, b), in the order of :attr:`ports`."""
        return (self.link.a, self.link.b)

    def unknown(self, field: str, what: str) -> Iterator[Missing]:
        """A missing-data note for each end whose ``field`` is not in its snapshot."""
        for end, port in zip(self.ends, self.ports, strict=True):
            if getattr(port, field) is None:
                yield missing(end.device, port, field, what)

    def issue(
        self, i: int, message: str, *, observed: object, expected: object, field: str
    ) -> Issue:
        """An issue on end ``i`` (see :func:`link_issue`)."""
        return link_issue(
            self.link, self.ports, i, message, observed=observed, expected=expected, field=field
        )


class LinkComparison(LinkRule):
    """Base of the rules that compare the two ends of every link (RT701-RT704)."""

    def check_link(self, link: Link, ctx: CheckContext) -> Iterator[Result]:
        """Resolve both ends (notes for a missing end), then compare them."""
        sides, notes = resolve_link(link, ctx)
        yield from notes
        if sides is not None:
            yield from self.compare(LinkEnds(link, sides), ctx)

    def compare(self, ends: LinkEnds, ctx: CheckContext) -> Iterator[Result]:
        """Findings and missing-data notes for one link whose two ports are in the model."""
        raise NotImplementedError


class LinkPfcMatch(LinkComparison):
    """RT701: both ends enable PFC on the same priorities."""

    meta = RuleMeta(
        code="RT701",
        name="link-pfc-match",
        severity=Severity.ERROR,
        scope="link",
        summary="both ends of a link enable PFC on the same priorities",
        tags=("pfc", "link"),
        features=("pfc",),
        asserts_absence=True,
    )

    def compare(self, ends: LinkEnds, ctx: CheckContext) -> Iterator[Result]:
        """Compare the lossless priority sets of the two ends."""
        link = ends.link
        sets = [lossless_priorities(p) for p in ends.ports]
        for end, port, have in zip(ends.ends, ends.ports, sets, strict=True):
            if have is None:
                yield from missing_pfc(end.device, port)
        sa, sb = sets
        if sa is None or sb is None or sa == sb:
            return
        want = frozenset(ctx.intent.lossless_priorities)
        i = _culprit([sa != want, sb != want])
        yield ends.issue(
            i,
            f"{link.a} has PFC (rx and tx) on {fmt_set(sa)}, {link.b} on {fmt_set(sb)}:"
            f" priorities {fmt_set(sa ^ sb)} are lossless at one end only, so pause for them"
            " is never sent or is ignored and the receiving buffer overflows",
            observed=f"{link.a} {fmt_set(sa)}; {link.b} {fmt_set(sb)}",
            expected=f"the same set on both ends (intent lossless_priorities {fmt_set(want)})",
            field="pfc",
        )


class LinkClassMatch(LinkComparison):
    """RT702: both ends trust DSCP and map the RoCE and CNP DSCPs alike."""

    meta = RuleMeta(
        code="RT702",
        name="link-class-match",
        severity=Severity.ERROR,
        scope="link",
        summary="both ends trust DSCP and map the RoCE and CNP DSCPs to the same priorities",
        tags=("classification", "dscp", "link"),
        features=(
            "trust",
            "dscp_map",
        ),
        asserts_absence=True,
    )

    def compare(self, ends: LinkEnds, ctx: CheckContext) -> Iterator[Result]:
        """Compare trust modes, then the RoCE/CNP DSCP mappings, of the two ends."""
        yield from _check_trust(ends)
        yield from _check_maps(ends, ctx.intent)


def _check_trust(ends: LinkEnds) -> Iterator[Result]:
    link = ends.link
    yield from ends.unknown("trust", "trust mode")
    ta, tb = ends.ports[0].trust, ends.ports[1].trust
    if ta is None or tb is None:
        return
    bad = [ta not in DSCP_TRUST, tb not in DSCP_TRUST]
    if not any(bad):
        return
    if all(bad):
        why = "neither end trusts DSCP, so RoCE and CNP packets are classified by PCP or the"
        why += " port default instead of their DSCP"
    else:
        why = "the two ends classify the same packets differently, so PFC and queues on this"
        why += " link cover different traffic at each end"
    i = _culprit(bad)
    yield ends.issue(
        i,
        f"{link.a} trusts {ta}, {link.b} trusts {tb}: {why}",
        observed=f"{link.a} {ta}; {link.b} {tb}",
        expected="dscp on both ends",
        field="trust",
    )


def _deviates(dmap: Mapping[int, int], intent: Intent) -> bool:
    roce_ok = all(dmap.get(d) in intent.lossless_priorities for d in intent.roce_dscp)
    return not roce_ok or dmap.get(intent.cnp.dscp) != intent.cnp.priority


def _pairs(dmap: Mapping[int, int], dscps: Sequence[int]) -> str:
    return ",".join(f"{d}->{dmap.get(d, 'unmapped')}" for d in dscps)


def _check_maps(ends: LinkEnds, intent: Intent) -> Iterator[Result]:
    link = ends.link
    yield from ends.unknown("dscp_to_priority", "DSCP map")
    ma, mb = ends.ports[0].dscp_to_priority, ends.ports[1].dscp_to_priority
    if ma is None or mb is None:
        return
    dscps = (*intent.roce_dscp, intent.cnp.dscp)
    diffs = [d for d in dscps if ma.get(d) != mb.get(d)]
    if not diffs:
        return
    detail = "; ".join(
        f"DSCP {d} -> {ma.get(d, 'unmapped')} on {link.a}, {mb.get(d, 'unmapped')} on {link.b}"
        for d in diffs
    )
    i = _culprit([_deviates(ma, intent), _deviates(mb, intent)])
    yield ends.issue(
        i,
        f"the two ends map RoCE/CNP DSCPs to different priorities ({detail}): pause and"
        " queues on this link cover different traffic at each end",
        observed=f"{link.a} {_pairs(ma, diffs)}; {link.b} {_pairs(mb, diffs)}",
        expected=f"the same priority on both ends (intent: RoCE {fmt_set(intent.roce_dscp)}"
        f" -> {fmt_set(intent.lossless_priorities)}, CNP {intent.cnp.dscp} ->"
        f" {intent.cnp.priority})",
        field="dscp_to_priority",
    )


class LinkMtuMatch(LinkComparison):
    """RT703: equal MTU on switch-switch links; host MTU <= switch MTU."""

    meta = RuleMeta(
        code="RT703",
        name="link-mtu-match",
        severity=Severity.ERROR,
        scope="link",
        summary="MTU equal on both ends of switch-switch links; host MTU <= switch MTU",
        tags=("mtu", "link"),
        features=("mtu",),
        asserts_absence=True,
    )

    def compare(self, ends: LinkEnds, ctx: CheckContext) -> Iterator[Result]:
        """Compare the MTUs of the two ends."""
        yield from ends.unknown("mtu", "MTU")
        ma, mb = ends.ports[0].mtu, ends.ports[1].mtu
        if ma is None or mb is None:
            return
        switch = [isinstance(p, Port) for p in ends.ports]
        if switch[0] == switch[1]:
            yield from _same_kind(ends, ma, mb)
        else:
            yield from _host_switch(ends, 0 if switch[1] else 1, ctx.intent)


def _same_kind(ends: LinkEnds, ma: int, mb: int) -> Iterator[Result]:
    if ma == mb:
        return
    link = ends.link
    i = 0 if ma < mb else 1
    yield ends.issue(
        i,
        f"MTU differs across the link: {link.a} {ma} B, {link.b} {mb} B (IP MTU on both ends,"
        f" without the 22 B Ethernet header, FCS and VLAN tag): frames larger than"
        f" {min(ma, mb)} from the other end are dropped as oversize",
        observed=f"{link.a} {ma}; {link.b} {mb}",
        expected="equal MTU on both ends",
        field="mtu",
    )


def _host_switch(pair: LinkEnds, h: int, intent: Intent) -> Iterator[Result]:
    ends = pair.ends
    host, sw = pair.ports[h], pair.ports[1 - h]
    hm, sm = host.mtu or 0, sw.mtu or 0
    if hm <= sm:
        return
    i = h if hm > intent.mtu.host else 1 - h
    yield pair.issue(
        i,
        f"host MTU {hm} B on {ends[h]} exceeds switch MTU {sm} B on {ends[1 - h]} (both IP"
        " MTU, without the 22 B Ethernet header, FCS and VLAN tag): full-size frames from the"
        " host are dropped as oversize at the switch",
        observed=f"{ends[h]} {hm}; {ends[1 - h]} {sm}",
        expected="host MTU <= switch MTU",
        field="mtu",
    )


def _gbps(mbps: int) -> str:
    return f"{mbps / 1000:g}G"


class LinkSpeedMatch(LinkComparison):
    """RT704: speed (and FEC where both ends state it) equal on both ends."""

    meta = RuleMeta(
        code="RT704",
        name="link-speed-match",
        severity=Severity.ERROR,
        scope="link",
        summary="speed (and FEC where known) equal on both ends",
        tags=("link", "speed"),
        features=("speed",),
    )

    def compare(self, ends: LinkEnds, ctx: CheckContext) -> Iterator[Result]:
        """Compare speeds, then FEC modes, of the two ends."""
        link = ends.link
        yield from ends.unknown("speed_mbps", "port speed")
        sa, sb = ends.ports[0].speed_mbps, ends.ports[1].speed_mbps
        if sa is not None and sb is not None and sa != sb:
            yield ends.issue(
                0 if sa < sb else 1,
                f"speed differs across the link: {link.a} {_gbps(sa)}, {link.b} {_gbps(sb)}:"
                " the link stays down or trains to the lower speed, and headroom and ECN"
                " thresholds sized for one speed are wrong for the other",
                observed=f"{link.a} {_gbps(sa)}; {link.b} {_gbps(sb)}",
                expected="the same speed on both ends",
                field="speed_mbps",
            )
        yield from _check_fec(ends)


def _check_fec(ends: LinkEnds) -> Iterator[Result]:
    link = ends.link
    fa, fb = (p.fec if isinstance(p, Port) else None for p in ends.ports)
    if fa is None or fb is None or "auto" in (fa, fb) or fa == fb:
        return
    i = 0 if fa == "none" or fb != "none" else 1
    yield ends.issue(
        i,
        f"FEC differs across the link: {link.a} {fa}, {link.b} {fb}: the ends cannot decode"
        " each other's frames, so the link stays down or takes errors",
        observed=f"{link.a} {fa}; {link.b} {fb}",
        expected="the same FEC mode on both ends",
        field="fec",
    )

"""RT7xx: both ends of a cabled link (see rules/ and docs/rule-catalogue.md).

Link rules look at both model ports of every link in ``Fabric.links``. A finding names the
link (``link.label``) and both ends with their values; its device/port is the end that
deviates from the intent (or end ``a`` when both or neither do), so provenance points at
the config most likely to need the fix. An end missing from the model is reported as
missing data on the device that is present.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from rocetune.checks.base import (
    CheckContext,
    Issue,
    LinkRule,
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
from rocetune.model import Intent, Link, Port, Severity


def _culprit(deviates: Sequence[bool]) -> int:
    """Index of the only end that deviates, else 0 (end a)."""
    return 1 if deviates[1] and not deviates[0] else 0


def _link_issue(
    link: Link,
    sides: tuple[PortLike, PortLike],
    i: int,
    message: str,
    *,
    observed: object,
    expected: object,
    field: str,
) -> Issue:
    """An issue on end ``i`` (0 = a, 1 = b) of ``link``."""
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


class LinkPfcMatch(LinkRule):
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

    def check_link(self, link: Link, ctx: CheckContext) -> Iterator[Result]:
        """Compare the lossless priority sets of the two ends."""
        sides, notes = resolve_link(link, ctx)
        yield from notes
        if sides is None:
            return
        ends = (link.a, link.b)
        sets = [lossless_priorities(p) for p in sides]
        for end, port, have in zip(ends, sides, sets, strict=True):
            if have is None:
                yield from missing_pfc(end.device, port)
        sa, sb = sets
        if sa is None or sb is None or sa == sb:
            return
        want = frozenset(ctx.intent.lossless_priorities)
        i = _culprit([sa != want, sb != want])
        yield _link_issue(
            link,
            sides,
            i,
            f"{link.a} has PFC (rx and tx) on {fmt_set(sa)}, {link.b} on {fmt_set(sb)}:"
            f" priorities {fmt_set(sa ^ sb)} are lossless at one end only, so pause for them"
            " is never sent or is ignored and the receiving buffer overflows",
            observed=f"{link.a} {fmt_set(sa)}; {link.b} {fmt_set(sb)}",
            expected=f"the same set on both ends (intent lossless_priorities {fmt_set(want)})",
            field="pfc",
        )


class LinkClassMatch(LinkRule):
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

    def check_link(self, link: Link, ctx: CheckContext) -> Iterator[Result]:
        """Compare trust modes, then the RoCE/CNP DSCP mappings, of the two ends."""
        sides, notes = resolve_link(link, ctx)
        yield from notes
        if sides is None:
            return
        yield from _check_trust(link, sides)
        yield from _check_maps(link, sides, ctx.intent)


def _check_trust(link: Link, sides: tuple[PortLike, PortLike]) -> Iterator[Result]:
    ends = (link.a, link.b)
    for end, port in zip(ends, sides, strict=True):
        if port.trust is None:
            yield missing(end.device, port, "trust", "trust mode")
    ta, tb = sides[0].trust, sides[1].trust
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
    yield _link_issue(
        link,
        sides,
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


def _check_maps(link: Link, sides: tuple[PortLike, PortLike], intent: Intent) -> Iterator[Result]:
    ends = (link.a, link.b)
    for end, port in zip(ends, sides, strict=True):
        if port.dscp_to_priority is None:
            yield missing(end.device, port, "dscp_to_priority", "DSCP map")
    ma, mb = sides[0].dscp_to_priority, sides[1].dscp_to_priority
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
    yield _link_issue(
        link,
        sides,
        i,
        f"the two ends map RoCE/CNP DSCPs to different priorities ({detail}): pause and"
        " queues on this link cover different traffic at each end",
        observed=f"{link.a} {_pairs(ma, diffs)}; {link.b} {_pairs(mb, diffs)}",
        expected=f"the same priority on both ends (intent: RoCE {fmt_set(intent.roce_dscp)}"
        f" -> {fmt_set(intent.lossless_priorities)}, CNP {intent.cnp.dscp} ->"
        f" {intent.cnp.priority})",
        field="dscp_to_priority",
    )


class LinkMtuMatch(LinkRule):
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

    def check_link(self, link: Link, ctx: CheckContext) -> Iterator[Result]:
        """Compare the MTUs of the two ends."""
        sides, notes = resolve_link(link, ctx)
        yield from notes
        if sides is None:
            return
        for end, port in zip((link.a, link.b), sides, strict=True):
            if port.mtu is None:
                yield missing(end.device, port, "mtu", "MTU")
        ma, mb = sides[0].mtu, sides[1].mtu
        if ma is None or mb is None:
            return
        switch = [isinstance(p, Port) for p in sides]
        if switch[0] == switch[1]:
            yield from _same_kind(link, sides, ma, mb)
        else:
            yield from _host_switch(link, sides, 0 if switch[1] else 1, ctx.intent)


def _same_kind(link: Link, sides: tuple[PortLike, PortLike], ma: int, mb: int) -> Iterator[Result]:
    if ma == mb:
        return
    i = 0 if ma < mb else 1
    yield _link_issue(
        link,
        sides,
        i,
        f"MTU differs across the link: {link.a} {ma}, {link.b} {mb}: frames larger than"
        f" {min(ma, mb)} from the other end are dropped as oversize",
        observed=f"{link.a} {ma}; {link.b} {mb}",
        expected="equal MTU on both ends",
        field="mtu",
    )


def _host_switch(
    link: Link, sides: tuple[PortLike, PortLike], h: int, intent: Intent
) -> Iterator[Result]:
    ends = (link.a, link.b)
    host, sw = sides[h], sides[1 - h]
    hm, sm = host.mtu or 0, sw.mtu or 0
    if hm <= sm:
        return
    i = h if hm > intent.mtu.host else 1 - h
    yield _link_issue(
        link,
        sides,
        i,
        f"host MTU {hm} on {ends[h]} exceeds switch MTU {sm} on {ends[1 - h]}: full-size"
        " frames from the host are dropped as oversize at the switch",
        observed=f"{ends[h]} {hm}; {ends[1 - h]} {sm}",
        expected="host MTU <= switch MTU",
        field="mtu",
    )

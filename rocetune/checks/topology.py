"""Rules of the topology family: CNP DSCP across host links, unknown neighbours.

(RT704, link speed/FEC, is a link comparison: :mod:`rocetune.checks.links`.)

- RT313 follows a NIC's CNP DSCP into the attached switch port's DSCP map.
- RT710 reports LLDP neighbours and declared link ends outside the inventory, and LLDP that
  disagrees with a declared link (the inventory wins when links are assembled, see
  :mod:`rocetune.topology`).

A finding names the link (``link.label``) and both ends with their values.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fnmatch import fnmatchcase
from typing import cast

from rocetune.checks._chain import options_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    LinkRule,
    Result,
    RuleMeta,
    RuleOptions,
    port_path,
)
from rocetune.checks.helpers import PortLike, missing, resolve_link
from rocetune.checks.links import link_issue
from rocetune.checks.memo import per_device, stable
from rocetune.checks.neighbors import NeighborIndex, Peer, known_names
from rocetune.model import Device, Link, LinkEnd, LldpNeighbor, NicPort, Severity


class CnpDscpMatch(LinkRule):
    """RT313: a NIC's CNP DSCP is classified as CNP by the attached switch port."""

    meta = RuleMeta(
        code="RT313",
        name="cnp-dscp-match",
        severity=Severity.ERROR,
        scope="link",
        summary="NIC CNP DSCP equals the DSCP the attached switch classifies as CNP",
        tags=("cnp", "dcqcn", "dscp", "link"),
        features=(
            "cnp",
            "dscp_map",
        ),
    )

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Every host-switch link; then every NIC with no switch in scope, against the intent."""
        yield from super().run(ctx)
        if ctx.intent.congestion_control == "none":
            return
        for dev in ctx.subjects():  # with ``only``: its hosts (like the links above)
            if dev.kind != "host":
                continue
            for nic in ctx.roce_nics(dev):
                if not _switch_attached(dev.name, nic.name, ctx):
                    yield from _cnp_vs_intent(dev.name, nic, ctx)

    def check_link(self, link: Link, ctx: CheckContext) -> Iterator[Result]:
        """On host-switch links, map the NIC's CNP DSCP through the switch port's DSCP map."""
        if ctx.intent.congestion_control == "none" or not _has_host(link, ctx):
            return
        sides, notes = resolve_link(link, ctx)
        yield from notes
        if sides is None or isinstance(sides[0], NicPort) == isinstance(sides[1], NicPort):
            return
        n = 0 if isinstance(sides[0], NicPort) else 1
        nic, sw = sides[n], sides[1 - n]
        ends = (link.a, link.b)
        if not isinstance(nic, NicPort):
            return
        if nic.cnp_dscp is None:
            yield missing(ends[n].device, nic, "cnp_dscp", "CNP DSCP")
        if sw.dscp_to_priority is None:
            yield missing(ends[1 - n].device, sw, "dscp_to_priority", "DSCP map")
        if nic.cnp_dscp is None or sw.dscp_to_priority is None:
            return
        yield from _cnp_issue(link, sides, n, nic.cnp_dscp, ctx)


def _switch_attached(device: str, nic: str, ctx: CheckContext) -> bool:
    """True when a link joins this NIC to a switch that is in the model."""
    devices = ctx.fabric.devices
    for link in ctx.links_of(device):
        for end, other in ((link.a, link.b), (link.b, link.a)):
            peer = devices.get(other.device)
            if end.device == device and end.port == nic and peer and peer.kind == "switch":
                return True
    return False


def _cnp_vs_intent(device: str, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
    """No switch in scope: the NIC's CNP DSCP must be the intent's CNP DSCP."""
    want = ctx.intent.cnp.dscp
    if nic.cnp_dscp is None:
        yield missing(device, nic, "cnp_dscp", "CNP DSCP")
    elif nic.cnp_dscp != want:
        yield Issue(
            message=f"the NIC sends CNPs with DSCP {nic.cnp_dscp}, not the intent CNP DSCP"
            f" {want}: switches that classify DSCP {want} as CNP put these congestion"
            " notifications behind data (or drop them), so senders slow down late",
            device=device,
            port=nic.name,
            observed=f"CNP DSCP {nic.cnp_dscp}",
            expected=f"{want} (intent cnp.dscp)",
            path=port_path(nic, "cnp_dscp"),
        )


def _has_host(link: Link, ctx: CheckContext) -> bool:
    devices = ctx.fabric.devices
    return any(e.device in devices and devices[e.device].kind == "host" for e in (link.a, link.b))


def _cnp_issue(
    link: Link, sides: tuple[PortLike, PortLike], n: int, dscp: int, ctx: CheckContext
) -> Iterator[Issue]:
    ends = (link.a, link.b)
    dmap = sides[1 - n].dscp_to_priority or {}
    got, want = dmap.get(dscp), ctx.intent.cnp.priority
    if got == want:
        return
    shown = "unmapped" if got is None else f"priority {got}"
    i = n if dscp != ctx.intent.cnp.dscp else 1 - n
    yield link_issue(
        link,
        sides,
        i,
        f"{ends[n]} sends CNPs with DSCP {dscp}, which {ends[1 - n]} classifies as {shown},"
        f" not the CNP priority {want}: congestion notifications queue behind data (or are"
        " dropped), so senders slow down late and PFC fires instead",
        observed=f"{ends[n]} CNP DSCP {dscp}; {ends[1 - n]} DSCP {dscp} -> {shown}",
        expected=f"{ends[1 - n]} maps the NIC's CNP DSCP to priority {want} (intent CNP DSCP"
        f" {ctx.intent.cnp.dscp} -> {want})",
        field="cnp_dscp" if i == n else "dscp_to_priority",
    )


class UnknownNeighborOptions(RuleOptions):
    """Options of RT710."""

    ignore_local_ports: tuple[str, ...] = ("eth*", "mgmt*", "Management*")
    """Switch ports (case-sensitive globs) whose LLDP neighbours are not checked unless a
    declared link names the port: management ports see the out-of-band network. Hosts are
    checked on their inventory NICs only."""


class UnknownNeighbor(LinkRule):
    """RT710: LLDP neighbours and declared link ends are in the inventory and agree."""

    meta = RuleMeta(
        code="RT710",
        name="unknown-neighbor",
        severity=Severity.WARNING,
        scope="link",
        summary="an LLDP neighbour or declared link end is not in the inventory",
        tags=("link", "lldp", "topology"),
        features=("lldp",),
    )
    options_model = UnknownNeighborOptions
    focused = True

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Check declared link ends, then every device's LLDP neighbours (with a focus:
        only those devices', signed by what the others' verdicts read of them)."""
        _, index, declared, unknown = _shared(ctx)
        yield from (i for i in unknown if ctx.in_focus(i.device))
        opts = options_of(ctx, UnknownNeighborOptions)
        for name in sorted(ctx.fabric.devices if ctx.focus is None else ctx.focus):
            dev = ctx.fabric.devices.get(name)
            if dev is None:
                continue
            if ctx.focus is not None:
                ctx.sign(("RT710", name), "peer", _identity(dev))
            yield from _device_lldp(dev, index, declared, opts)

    def check_link(self, link: Link, ctx: CheckContext) -> Iterator[Result]:
        """A declared link whose end devices are not all in the inventory."""
        return _declared_unknown(link, ctx, known_names(ctx.fabric))


_Shared = tuple[set[str], NeighborIndex, dict[tuple[str, str], tuple[Link, LinkEnd]], list[Issue]]


def _shared(ctx: CheckContext) -> _Shared:
    """The known names, neighbour index, declared link ends and declared links' unknown
    ends: what every device's verdict reads. In a plan's replayed fabric whose replaced
    devices look the same to their neighbours (:func:`_identity`), those of the fabric it
    replays (kept while the plan runs: rocetune.checks.memo)."""
    fabric = ctx.fabric
    keep = stable(fabric.devices, _identity)
    devices = cast(dict[str, Device], keep) if keep is not None else fabric.devices

    def compute() -> _Shared:
        known = known_names(fabric)
        unknown = [i for link in fabric.links for i in _declared_unknown(link, ctx, known)]
        return known, NeighborIndex(devices, known), _declared_ends(fabric.links), unknown

    if keep is None:
        return compute()
    inputs = (devices, fabric.problems, fabric.known_devices, fabric.links)
    return per_device(("RT710",), inputs, compute)


def _identity(dev: Device) -> tuple[object, ...]:
    """What another device's LLDP verdict reads of ``dev``: its host name and port names."""
    ports = tuple((p.name, p.alias) for p in dev.ports.values())
    return (dev.hostname, ports, tuple(dev.nics))


def _declared_unknown(link: Link, ctx: CheckContext, known: set[str]) -> Iterator[Issue]:
    if link.source != "inventory":
        return
    unknown = [e for e in (link.a, link.b) if e.device not in known]
    if not unknown:
        return
    present = [e for e in (link.a, link.b) if e.device in ctx.fabric.devices]
    names = " and ".join(str(e) for e in unknown)
    yield Issue(
        message=f"link {link.label} names {names}, whose device is not in the inventory:"
        " the link cannot be checked end to end (add the device, or fix the link's ends)",
        device=present[0].device if present else None,
        port=present[0].port if present else None,
        link=link.label,
        observed=names,
        expected="ends on devices of the inventory",
    )


def _declared_ends(links: Sequence[Link]) -> dict[tuple[str, str], tuple[Link, LinkEnd]]:
    out: dict[tuple[str, str], tuple[Link, LinkEnd]] = {}
    for link in links:
        if link.source == "inventory":
            out.setdefault((link.a.device, link.a.port), (link, link.b))
            out.setdefault((link.b.device, link.b.port), (link, link.a))
    return out


def _device_lldp(
    dev: Device,
    index: NeighborIndex,
    declared: dict[tuple[str, str], tuple[Link, LinkEnd]],
    opts: UnknownNeighborOptions,
) -> Iterator[Issue]:
    by_port: dict[str, list[tuple[int, LldpNeighbor]]] = {}
    for i, neighbor in enumerate(dev.lldp or ()):
        by_port.setdefault(neighbor.local_port, []).append((i, neighbor))
    for port, group in by_port.items():
        link = declared.get((dev.name, port))
        peers = [(i, n, index.peer(n)) for i, n in group]
        if link is not None:
            yield from _conflict(dev, port, peers, *link)
        elif _watched(dev, port, opts) and all(p is None for _, _, p in peers):
            for i, n, _ in peers:
                yield _unknown(dev, port, i, n)


def _watched(dev: Device, port: str, opts: UnknownNeighborOptions) -> bool:
    if dev.kind == "host":
        return port in dev.nics
    return port in dev.ports and not any(fnmatchcase(port, p) for p in opts.ignore_local_ports)


def _unknown(dev: Device, port: str, i: int, n: LldpNeighbor) -> Issue:
    seen = f"{n.remote_name}:{n.remote_port}"
    return Issue(
        message=f"LLDP on {dev.name}:{port} sees {n.remote_name} port {n.remote_port}, which"
        " is not in the inventory: the far end of this port is neither audited nor checked"
        " end to end (add the device, or fix its LLDP system name)",
        device=dev.name,
        port=port,
        link=f"{dev.name}:{port}--{seen}",
        observed=seen,
        expected="a device of the inventory",
        path=f"lldp.{i}",
    )


def _agrees(peer: Peer | None, other: LinkEnd) -> bool:
    if peer is None or peer.end.device != other.device:
        return False
    return not peer.resolved or peer.end.port == other.port


def _conflict(
    dev: Device,
    port: str,
    peers: list[tuple[int, LldpNeighbor, Peer | None]],
    link: Link,
    other: LinkEnd,
) -> Iterator[Issue]:
    if any(_agrees(p, other) for _, _, p in peers):
        return
    seen = ", ".join(
        str(p.end) if p is not None else f"{n.remote_name}:{n.remote_port} (not in the inventory)"
        for _, n, p in peers
    )
    yield Issue(
        message=f"the inventory declares {link.label}, but LLDP on {dev.name}:{port} sees"
        f" {seen}: the cabling differs from the inventory, so link checks compare the"
        " declared ports, not the cabled ones (fix the cabling or the inventory's links)",
        device=dev.name,
        port=port,
        link=link.label,
        observed=f"LLDP {seen}",
        expected=f"{other} (inventory)",
        path=f"lldp.{peers[0][0]}",
    )

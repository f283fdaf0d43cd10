"""Rules of the fabric family (see rules/ and docs/rule-catalogue.md).

- RT705 fabric-uniform (``fabric_uniform.py``) and RT708 pfc-deadlock-risk (``deadlock.py``)
  live in their own modules;
- RT706 ecn-every-hop: every switch egress hop on a link between two RoCE devices marks ECN
  on the lossless queue;
- RT707 dual-homing-symmetry: the uplinks of a dual-homed host carry the same QoS.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    Missing,
    Result,
    Rule,
    RuleMeta,
    port_path,
)
from rocetune.checks.ecn import lossless_queues
from rocetune.checks.helpers import (
    DSCP_TRUST,
    PortLike,
    lossless_priorities,
    missing,
    resolve_link,
)
from rocetune.checks.memo import per_device, stable
from rocetune.model import Device, Fabric, Intent, Link, LinkEnd, NicPort, Port, Severity

# --- RT706 ecn-every-hop -----------------------------------------------------------------


def flow_devices(fabric: Fabric) -> set[str]:
    """Devices a RoCE flow can reach: the link components that hold a host.

    When the fabric has no host at all (a switches-only inventory), every device counts:
    the hosts are simply not in the model. Linear in devices + links (union-find).
    """
    parent: dict[str, str] = {name: name for name in fabric.devices}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for link in fabric.links:
        if link.a.device in parent and link.b.device in parent:
            parent[root(link.a.device)] = root(link.b.device)
    hosts = [d.name for d in fabric.devices.values() if d.kind == "host"]
    if not hosts:
        return set(fabric.devices)
    roots = {root(h) for h in hosts}
    return {name for name in fabric.devices if root(name) in roots}


def _hosts_by_switch(fabric: Fabric) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for link in fabric.links:
        for mine, other in ((link.a, link.b), (link.b, link.a)):
            dev = fabric.devices.get(other.device)
            if dev is not None and dev.kind == "host":
                out.setdefault(mine.device, []).append(other.device)
    return out


def _reach(fabric: Fabric) -> tuple[set[str], dict[str, list[str]]]:
    """:func:`flow_devices` and the hosts by switch, kept for a plan's audited fabric and
    shared with its replays whose replaced device keeps its kind (rocetune.checks.memo)."""
    keep = stable(fabric.devices, lambda dev: dev.kind)
    if keep is None:
        return flow_devices(fabric), _hosts_by_switch(fabric)
    return per_device(
        ("RT706 reach",),
        (keep, fabric.links),
        lambda: (flow_devices(fabric), _hosts_by_switch(fabric)),
    )


class EcnEveryHop(Rule):
    """RT706: every switch hop a RoCE flow can cross marks ECN on the lossless queue."""

    meta = RuleMeta(
        code="RT706",
        name="ecn-every-hop",
        severity=Severity.ERROR,
        scope="fabric",
        summary="every switch hop a RoCE flow can cross marks ECN on the lossless queue",
        tags=("ecn", "dcqcn", "fabric"),
        features=("ecn",),
        asserts_absence=True,
    )

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Check the egress of every switch end of every link between two RoCE devices."""
        if ctx.intent.congestion_control == "none":
            return
        fabric = ctx.fabric
        reach, hosts = _reach(fabric)
        for link in fabric.links:
            if link.a.device not in reach or link.b.device not in reach:
                continue
            for mine, other in ((link.a, link.b), (link.b, link.a)):
                dev = fabric.devices[mine.device]
                if dev.kind != "switch":
                    continue
                port = dev.ports.get(mine.port)
                if port is None:
                    item = f"{mine.port}: port of link {link.label} not in snapshot"
                    yield Missing(device=dev.name, item=item)
                    continue
                flow = partial(_example_path, mine, other, hosts, fabric)
                yield from _hop(dev, port, link, other, flow, ctx=ctx)


def _example_path(
    mine: LinkEnd, other: LinkEnd, hosts: dict[str, list[str]], fabric: Fabric
) -> str:
    """A flow that crosses the hop, from a host behind ``mine`` to one behind ``other``."""
    src = next((h for h in hosts.get(mine.device, ()) if h != other.device), None)
    hops = [src or "…", mine.device, other.device]
    if fabric.devices[other.device].kind != "host":
        dst = next((h for h in hosts.get(other.device, ()) if h != mine.device), None)
        hops.append(dst or "…")
    return " → ".join(hops)


def _hop(
    dev: Device,
    port: Port,
    link: Link,
    other: LinkEnd,
    flow: Callable[[], str],
    *,
    ctx: CheckContext,
) -> Iterator[Result]:
    """The findings on the egress of ``port`` towards ``other``; ``flow`` gives an example
    flow that crosses it, for the message (made only for a hop that breaks the chain)."""
    if port.ecn is None:
        yield missing(dev.name, port, "ecn", "ECN profiles of the egress queues")
        return
    broken: list[tuple[int, str]] = []
    for queue in lossless_queues(dev, port, ctx):
        if isinstance(queue, Missing):
            yield queue
            continue
        profile = port.ecn.get(queue)
        if profile is None:
            broken.append((queue, f"queue {queue}: no ECN profile"))
        elif profile.ecn_mark is None:
            yield missing(dev.name, port, f"ecn.{queue}", f"ECN mode of queue {queue}")
        elif not profile.ecn_mark:
            broken.append((queue, f"queue {queue}: {profile.name or 'profile'} does not mark"))
    if not broken:
        return
    queues = ", ".join(str(q) for q, _ in broken)
    yield Issue(
        message=(
            f"the ECN chain breaks at hop {dev.name}:{port.name} → {other}: lossless egress"
            f" queue {queues} does not mark ECN, so RoCE flows that cross it (e.g. {flow()}) get"
            " no congestion signal here; DCQCN cannot slow their senders and congestion on this"
            " hop is relieved only by PFC pauses, which spread it upstream"
        ),
        device=dev.name,
        port=port.name,
        link=link.label,
        observed="; ".join(text for _, text in broken),
        expected=f"an ECN-marking profile on lossless queue {queues} at every hop",
        path=port_path(port, f"ecn.{broken[0][0]}"),
    )


# --- RT707 dual-homing-symmetry ------------------------------------------------------------


@dataclass(frozen=True)
class _Uplink:
    nic_end: LinkEnd
    nic: PortLike
    sw_end: LinkEnd
    sw: PortLike


@dataclass(frozen=True)
class _Sym:
    label: str
    field: str
    what: str
    value: Callable[[PortLike, Intent], object]
    conforms: Callable[[object, Intent], bool]


def _dscp_value(port: PortLike, intent: Intent) -> object:
    dmap = port.dscp_to_priority
    if dmap is None:
        return None
    return tuple((d, dmap.get(d)) for d in (*intent.roce_dscp, intent.cnp.dscp))


def _dscp_ok(value: object, intent: Intent) -> bool:
    if not isinstance(value, tuple):
        return False
    pairs = dict(value)
    roce_ok = all(pairs.get(d) in intent.lossless_priorities for d in intent.roce_dscp)
    return roce_ok and pairs.get(intent.cnp.dscp) == intent.cnp.priority


def _pfc_value(port: PortLike, intent: Intent) -> object:
    have = lossless_priorities(port)
    return None if have is None else "{" + ",".join(map(str, sorted(have))) + "}"


_SYMMETRY = (
    _Sym("trust", "trust", "trust mode", lambda p, i: p.trust, lambda v, i: v in DSCP_TRUST),
    _Sym("DSCP map", "dscp_to_priority", "DSCP map", _dscp_value, _dscp_ok),
    _Sym(
        "PFC set",
        "pfc_tx",
        "PFC priorities",
        _pfc_value,
        lambda v, i: v == "{" + ",".join(map(str, i.lossless_priorities)) + "}",
    ),
    _Sym("MTU", "mtu", "MTU", lambda p, i: p.mtu, lambda v, i: False),
)


class DualHomingSymmetry(DeviceRule):
    """RT707: the uplinks of a dual-homed host, and the ToR ports, carry identical QoS."""

    meta = RuleMeta(
        code="RT707",
        name="dual-homing-symmetry",
        severity=Severity.WARNING,
        scope="device",
        summary="the two uplinks of a dual-homed host, and the two ToRs, carry identical QoS",
        tags=("fabric", "consistency", "link"),
        features=(
            "trust",
            "dscp_map",
            "pfc",
            "ecn",
            "mtu",
        ),
        asserts_absence=True,
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Compare the NIC ends with each other and the ToR ends with each other."""
        if dev.kind != "host":
            return
        uplinks, notes = _uplinks(dev, ctx)
        yield from notes
        tors = {u.sw_end.device for u in uplinks}
        nics = {u.nic_end.port for u in uplinks}
        if len(uplinks) < 2 or (len(tors) < 2 and len(nics) < 2):
            return
        for sym in _SYMMETRY:
            yield from _side(dev, uplinks, sym, ctx.intent, nic_side=True)
            yield from _side(dev, uplinks, sym, ctx.intent, nic_side=False)


def _uplinks(dev: Device, ctx: CheckContext) -> tuple[list[_Uplink], list[Missing]]:
    out: list[_Uplink] = []
    notes: list[Missing] = []
    for link in ctx.links_of(dev.name):
        if link.a.device == link.b.device:
            continue
        mine, other = (link.a, link.b) if link.a.device == dev.name else (link.b, link.a)
        peer = ctx.fabric.devices.get(other.device)
        if peer is not None and peer.kind != "switch":
            continue
        sides, more = resolve_link(link, ctx)
        notes.extend(more)
        if sides is None:
            continue
        a, b = sides
        nic, sw = (a, b) if link.a is mine else (b, a)
        out.append(_Uplink(mine, nic, other, sw))
    return out, notes


def _side(
    dev: Device, uplinks: list[_Uplink], sym: _Sym, intent: Intent, *, nic_side: bool
) -> Iterator[Result]:
    ends = [(u.nic_end, u.nic) if nic_side else (u.sw_end, u.sw) for u in uplinks]
    values: list[object] = []
    for end, port in ends:
        value = sym.value(port, intent)
        if value is None:
            yield missing(end.device, port, _field(sym, port), sym.what)
        values.append(value)
    keys = [_key(sym, v) for v in values]
    if any(v is None for v in values) or len(set(keys)) < 2:
        return
    ref = _reference(values, keys, sym, intent)
    shown = _show(values[keys.index(ref)])
    listed = ", ".join(f"{end} {_show(v)}" for (end, _), v in zip(ends, values, strict=True))
    side = "NIC ports" if nic_side else "ToR ports"
    for (end, port), value, key in zip(ends, values, keys, strict=True):
        if key == ref:
            continue
        yield Issue(
            message=(
                f"{dev.name} is dual-homed but its {side} differ in {sym.label} ({listed}):"
                " the same RoCE flow is treated differently depending on the uplink it takes"
                " (ECMP or failover), so one path can be lossy, misclassified or drop jumbo"
                " frames"
            ),
            device=end.device,
            port=port.name,
            observed=f"{end} {_show(value)}",
            expected=f"{shown} like the other uplink(s) of {dev.name}",
            path=port_path(port, _field(sym, port)),
        )


def _field(sym: _Sym, port: PortLike) -> str:
    """The model field of ``sym`` on ``port``: a NIC keeps its PFC set in pfc_priorities."""
    return "pfc_priorities" if sym.field == "pfc_tx" and isinstance(port, NicPort) else sym.field


def _key(sym: _Sym, value: object) -> str:
    """Comparison key: trust ``both`` classifies IP by DSCP exactly like ``dscp``."""
    if sym.field == "trust" and value in DSCP_TRUST:
        return "dscp"
    return str(value)


def _reference(values: list[object], keys: list[str], sym: _Sym, intent: Intent) -> str:
    """Key of the reference value: the only one meeting the intent, else the majority,
    else (a tie) the larger MTU or the first uplink's value."""
    good = {k for v, k in zip(values, keys, strict=True) if sym.conforms(v, intent)}
    if len(good) == 1:
        return good.pop()
    counts: dict[str, int] = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    best = max(counts.values())
    tied = [k for k in dict.fromkeys(keys) if counts[k] == best]
    if len(tied) > 1 and sym.field == "mtu":
        return max(tied, key=lambda k: int(k) if k.isdigit() else 0)
    return tied[0]


def _show(value: object) -> str:
    if isinstance(value, tuple):
        pairs = (f"{d}->{'unmapped' if p is None else p}" for d, p in value)
        return "{" + ", ".join(pairs) + "}"
    return str(value)

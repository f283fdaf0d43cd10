"""RT107 dscp-remark: egress DSCP remarking and tunnel rewrites that touch the RoCE/CNP DSCP.

A packet keeps the switch priority its ingress port gave it (``dscp_to_priority`` of a
DSCP-trusting port; the intent's priorities for a port that does not trust DSCP, which
RT101 reports). At egress a port with ``dscp_rewrite`` writes ``dscp_rewrite[priority]``
into the packet when the ingress port is eligible (``dscp_rewrite_on_ingress``); a tunnel of
``Device.tunnel_dscp_rewrite`` writes its map into the outer header of every packet it
encapsulates. Two things touch a watched DSCP (each intent RoCE DSCP and the CNP DSCP):

- *away*: the priority that carries the watched DSCP is rewritten to another DSCP, so the
  next hop classifies RoCE (or CNP) packets by a DSCP the plan does not know;
- *into*: another priority is rewritten to the watched DSCP, so other traffic arrives at
  the next hop looking like RoCE (or CNP) and lands in its class.

One finding per distinct rewrite (watched DSCP, priority, new DSCP) of a device, naming the
ports or tunnels that do it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from rocetune.checks._chain import fmt_ports
from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    Missing,
    Result,
    RuleMeta,
    port_path,
)
from rocetune.checks.helpers import DSCP_TRUST, missing
from rocetune.model import Device, Intent, Port, Severity


@dataclass
class _Rewrite:
    """One distinct rewrite and where it happens."""

    where: list[str] = field(default_factory=list)
    path: str | None = None


def watched(intent: Intent) -> dict[int, str]:
    """The DSCPs RT107 protects: each RoCE DSCP and the CNP DSCP, with a label."""
    out = {d: f"RoCE DSCP {d}" for d in intent.roce_dscp}
    out[intent.cnp.dscp] = f"CNP DSCP {intent.cnp.dscp}"
    return out


def _carried(port: Port, intent: Intent) -> dict[int, set[int]] | None:
    """Watched DSCP -> the priorities packets with it get on ``port``; None when unknown."""
    plan = {d: set(intent.lossless_priorities) for d in intent.roce_dscp}
    plan[intent.cnp.dscp] = {intent.cnp.priority}
    if port.trust is not None and port.trust not in DSCP_TRUST:
        return plan
    if port.dscp_to_priority is None:
        return None
    dmap = port.dscp_to_priority
    return {d: {dmap[d]} if d in dmap else set() for d in plan}


def _merge(into: dict[int, set[int]], part: Mapping[int, set[int]]) -> None:
    for dscp, prios in part.items():
        into.setdefault(dscp, set()).update(prios)


class DscpRemark(DeviceRule):
    """RT107: no egress remark or tunnel rewrite changes the RoCE or CNP DSCP."""

    meta = RuleMeta(
        code="RT107",
        name="dscp-remark",
        severity=Severity.WARNING,
        scope="device",
        summary="a remark/rewrite touches the RoCE or CNP DSCP",
        tags=("classification", "dscp"),
        features=("dscp_map",),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Collect what the RoCE ports carry, then check every egress map and tunnel."""
        if dev.kind != "switch" or not dev.ports:
            return
        ports = ctx.roce_ports(dev)
        eligible: dict[int, set[int]] = {}
        every: dict[int, set[int]] = {}
        for port in ports:
            carried = _carried(port, ctx.intent)
            if carried is None:
                yield missing(dev.name, port, "dscp_to_priority", "DSCP map")
                continue
            _merge(every, carried)
            if port.dscp_rewrite_on_ingress is None:
                what = "DSCP remark eligibility (rewrite on ingress)"
                yield missing(dev.name, port, "dscp_rewrite_on_ingress", what)
            elif port.dscp_rewrite_on_ingress:
                _merge(eligible, carried)
        found: dict[tuple[int, int, int], _Rewrite] = {}
        for port in ports:
            if port.dscp_rewrite is None:
                yield missing(dev.name, port, "dscp_rewrite", "egress DSCP remark map")
                continue
            for key in _touches(port.dscp_rewrite, eligible, ctx.intent):
                rw = found.setdefault(key, _Rewrite())
                rw.where.append(port.name)
                rw.path = rw.path or port_path(port, f"dscp_rewrite.{key[1]}")
        yield from _tunnels(dev, every, ctx.intent, found)
        for key, rw in sorted(found.items()):
            yield _issue(dev, key, rw, ctx.intent)


def _tunnels(
    dev: Device,
    every: dict[int, set[int]],
    intent: Intent,
    found: dict[tuple[int, int, int], _Rewrite],
) -> Iterator[Missing]:
    tunnels = dev.tunnel_dscp_rewrite
    if tunnels is None:
        yield Missing(dev.name, "tunnel DSCP rewrites not in snapshot", "tunnel_dscp_rewrite")
        return
    for name, rewrite in sorted(tunnels.items()):
        if rewrite is None:
            item = f"outer DSCP of tunnel {name} not in snapshot"
            yield Missing(dev.name, item, f"tunnel_dscp_rewrite.{name}")
            continue
        for key in _touches(rewrite, every, intent):
            rw = found.setdefault(key, _Rewrite())
            rw.where.append(f"tunnel {name}")
            rw.path = rw.path or f"tunnel_dscp_rewrite.{name}"


def _touches(
    rewrite: Mapping[int, int], carried: Mapping[int, set[int]], intent: Intent
) -> Iterator[tuple[int, int, int]]:
    """(watched DSCP, priority, new DSCP) for every rewrite that touches a watched DSCP.

    ``carried`` is empty when no packet is eligible for the rewrite (no eligible port).
    """
    if not carried:
        return
    for dscp in watched(intent):
        for prio in sorted(carried.get(dscp, ())):
            new = rewrite.get(prio)
            if new is not None and new != dscp:
                yield dscp, prio, new
    for prio, new in sorted(rewrite.items()):
        if new in watched(intent) and prio not in carried.get(new, set()):
            yield new, prio, new


def _issue(dev: Device, key: tuple[int, int, int], rw: _Rewrite, intent: Intent) -> Issue:
    dscp, prio, new = key
    label = watched(intent)[dscp]
    where = fmt_ports(rw.where)
    if new != dscp:
        message = (
            f"{where}: {label} (priority {prio}) is rewritten to DSCP {new} on egress, so the"
            f" next hop classifies these packets by DSCP {new}; unless every later hop maps"
            f" DSCP {new} exactly like {dscp}, they land in a wrong (possibly lossy) queue"
        )
        observed, expected = f"priority {prio}: DSCP {dscp} -> {new}", f"DSCP {dscp} kept"
    else:
        buffer = " and its lossless buffer" if dscp in intent.roce_dscp else ""
        message = (
            f"{where}: priority {prio} traffic is rewritten to {label} on egress, so other"
            f" traffic looks like this class to the next hop and takes its queue{buffer}"
        )
        observed = f"priority {prio} -> DSCP {new}"
        expected = f"DSCP {new} written only to the priority that carries it"
    return Issue(
        message=message,
        device=dev.name,
        port=_single_port(rw.where),
        observed=observed,
        expected=expected,
        path=rw.path,
    )


def _single_port(where: list[str]) -> str | None:
    """The port of a rewrite done by exactly one port (not a tunnel), else None."""
    if len(where) == 1 and not where[0].startswith("tunnel "):
        return where[0]
    return None

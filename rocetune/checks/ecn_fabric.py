"""RT306 ecn-profile-uniform: one set of ECN thresholds per port speed and device role.

Every RoCE switch port contributes the (Kmin, Kmax, Pmax) of the ECN profile on each of its
lossless egress queues, in intent priority order. Ports are grouped by (device role, port
speed); inside a group the thresholds used by most ports are the reference and the other
ports are reported once per device and distinct value (the outliers, never the majority).
When the largest values tie there is no reference: one fabric-level finding lists them.
Ports whose lossless queue does not mark ECN are left to RT301. Linear in ports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial

from rocetune.checks._chain import fmt_ports
from rocetune.checks.base import CheckContext, Issue, Missing, Result, Rule, RuleMeta, port_path
from rocetune.checks.ecn import lossless_queues
from rocetune.checks.helpers import missing
from rocetune.checks.memo import per_device
from rocetune.model import Device, Port, Severity

Thresholds = tuple[tuple[int, int, float], ...]
"""(Kmin, Kmax, Pmax) per lossless queue of a port."""
GroupKey = tuple[str, int]
"""(device role, port speed in Mb/s)."""


@dataclass
class _Group:
    """The ports of one (role, speed) group by thresholds: value -> device -> ports."""

    ports: dict[Thresholds, dict[str, list[Port]]] = field(default_factory=dict)

    def add(self, value: Thresholds, device: str, port: Port) -> None:
        self.ports.setdefault(value, {}).setdefault(device, []).append(port)

    def counts(self) -> Counter[Thresholds]:
        return Counter({v: sum(len(p) for p in d.values()) for v, d in self.ports.items()})


def _show(value: Thresholds) -> str:
    return "; ".join(f"Kmin {a} B, Kmax {b} B, Pmax {c:g} %" for a, b, c in value)


def _thresholds(dev: Device, port: Port, ctx: CheckContext) -> Thresholds | list[Missing] | None:
    """The port's thresholds; notes when data is missing; None when a queue does not mark."""
    if port.ecn is None:
        return [missing(dev.name, port, "ecn", "ECN profiles of the egress queues")]
    out: list[tuple[int, int, float]] = []
    for queue in lossless_queues(dev, port, ctx):
        if isinstance(queue, Missing):
            return [queue]
        prof = port.ecn.get(queue)
        if prof is None or prof.ecn_mark is False:
            return None
        kmin, kmax, pmax = (
            prof.min_threshold_bytes,
            prof.max_threshold_bytes,
            prof.max_probability_pct,
        )
        if prof.ecn_mark is None or kmin is None or kmax is None or pmax is None:
            return [missing(dev.name, port, f"ecn.{queue}", f"ECN thresholds of queue {queue}")]
        out.append((kmin, kmax, pmax))
    return tuple(out) if out else None


class EcnProfileUniform(Rule):
    """RT306: ports of the same speed and role use the same ECN thresholds."""

    meta = RuleMeta(
        code="RT306",
        name="ecn-profile-uniform",
        severity=Severity.WARNING,
        scope="fabric",
        summary="ports of the same speed and role use the same ECN thresholds",
        tags=("ecn", "dcqcn", "fabric", "consistency"),
        features=("ecn",),
    )
    focused = True

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Group every RoCE switch port, then report the outliers of each group."""
        if ctx.intent.congestion_control == "none":
            return
        groups: dict[GroupKey, _Group] = {}
        for dev in ctx.fabric.devices.values():
            if dev.kind != "switch":
                continue
            inputs = (dev, ctx.intent, ctx.links_of(dev.name))
            notes, values = per_device(("RT306",), inputs, partial(_device_values, dev, ctx))
            if ctx.in_focus(dev.name):
                yield from notes
            for key, value, port in values:
                groups.setdefault(key, _Group()).add(value, dev.name, port)
        for key, group in sorted(groups.items()):
            yield from _outliers(key, group, ctx)


def _device_values(
    dev: Device, ctx: CheckContext
) -> tuple[list[Missing], list[tuple[GroupKey, Thresholds, Port]]]:
    """One switch's missing-data notes and its ports' (group, thresholds), in port order."""
    notes: list[Missing] = []
    values: list[tuple[GroupKey, Thresholds, Port]] = []
    for port in ctx.roce_ports(dev):
        if port.speed_mbps is None:
            notes.append(missing(dev.name, port, "speed_mbps", "port speed"))
            continue
        value = _thresholds(dev, port, ctx)
        if isinstance(value, list):
            notes.extend(value)
        elif value is not None:
            values.append(((dev.role or "(no role)", port.speed_mbps), value, port))
    return notes, values


def _outliers(key: GroupKey, group: _Group, ctx: CheckContext) -> Iterator[Issue]:
    counts = group.counts()
    if len(counts) < 2:
        ctx.sign(("RT306", key), "uniform")
        return
    role, speed = key
    what = f"{speed / 1000:g}G {role} ports"
    total = sum(counts.values())
    ranked = counts.most_common()
    if ranked[0][1] == ranked[1][1]:
        ctx.sign(("RT306", key), "tie")
        listed = " | ".join(f"{n} use {_show(v)}" for v, n in ranked)
        yield Issue(
            message=(
                f"{what} use {len(counts)} different ECN thresholds with no majority ({listed}):"
                " hops of the same kind mark at different queue depths, so DCQCN slows flows"
                " unevenly depending on their path"
            ),
            observed=f"{len(counts)} threshold sets over {total} ports",
            expected=f"one ECN threshold set for all {what}",
        )
        return
    ref, ref_n = ranked[0]
    ctx.sign(("RT306", key), "majority", ref)  # every other device: its values against ref
    for value, _n in ranked[1:]:
        for device, ports in sorted(group.ports[value].items()):
            if not ctx.in_focus(device):
                continue
            names = [p.name for p in ports]
            yield Issue(
                message=(
                    f"{fmt_ports(names)} ({what}) use {_show(value)}, while {ref_n} of {total}"
                    f" such ports use {_show(ref)}: this hop marks at a different queue depth"
                    " than its peers, so DCQCN slows flows unevenly depending on their path"
                ),
                device=device,
                port=names[0] if len(names) == 1 else None,
                observed=_show(value),
                expected=f"{_show(ref)} (the majority of {what})",
                path=port_path(ports[0], "ecn"),
            )

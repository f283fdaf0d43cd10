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
from typing import cast

from rocetune.checks._chain import fmt_ports
from rocetune.checks.base import CheckContext, Issue, Missing, Result, Rule, RuleMeta, port_path
from rocetune.checks.ecn import lossless_queues
from rocetune.checks.helpers import missing
from rocetune.checks.memo import base_of, is_base, per_device
from rocetune.model import Device, Port, Severity

Thresholds = tuple[tuple[int, int, float], ...]
"""(Kmin, Kmax, Pmax) per lossless queue of a port."""
GroupKey = tuple[str, int]
"""(device role, port speed in Mb/s)."""


@dataclass
class _Group:
    """The ports of one (role, speed) group by thresholds: value -> device -> ports."""

    ports: dict[Thresholds, dict[str, list[Port]]] = field(default_factory=dict)
    n: dict[Thresholds, int] = field(default_factory=dict)
    """Ports per value."""

    def add(self, value: Thresholds, device: str, port: Port) -> None:
        self.ports.setdefault(value, {}).setdefault(device, []).append(port)
        self.n[value] = self.n.get(value, 0) + 1

    def counts(self) -> Counter[Thresholds]:
        return Counter({v: self.n[v] for v in self.ports})

    def without(self, names: frozenset[str]) -> _Group:
        """A copy without the ports of ``names`` (this group is left as it is)."""
        out = _Group()
        for value, holders in self.ports.items():
            gone = sum(len(holders[n]) for n in names if n in holders)
            if gone == self.n[value]:
                continue
            kept = out.ports[value] = dict(holders)
            for name in names:
                kept.pop(name, None)
            out.n[value] = self.n[value] - gone
        return out


_Part = tuple[list[Missing], list[tuple[GroupKey, "Thresholds", Port]]]


@dataclass
class _State:
    """Every switch's notes and values (device order) and the groups they make."""

    parts: dict[str, _Part]
    groups: dict[GroupKey, _Group]
    order: dict[str, int]
    """Device name -> position (the same in a plan's replayed fabrics)."""


def _state(ctx: CheckContext) -> _State:
    """The groups of ``ctx.fabric``; for a fabric the plan declared to be another with a few
    devices replaced (:func:`rocetune.checks.memo.derive`), the other's groups updated."""
    devices = ctx.fabric.devices
    derived = base_of(devices)
    if derived is not None:
        base_devices = cast(dict[str, Device], derived[0])
        inputs = (base_devices, ctx.intent, ctx.fabric.links)
        base = per_device(("RT306 state",), inputs, partial(_fresh, ctx, base_devices))
        got = _updated(ctx, base, derived[1])
        if got is not None:
            return got
    elif is_base(devices):  # the plan's audited fabric: the same at every re-check
        inputs = (devices, ctx.intent, ctx.fabric.links)
        return per_device(("RT306 state",), inputs, partial(_fresh, ctx, devices))
    return _fresh(ctx, devices)


def _part(ctx: CheckContext, dev: Device) -> _Part:
    inputs = (dev, ctx.intent, ctx.links_of(dev.name))
    return per_device(("RT306",), inputs, partial(_device_values, dev, ctx))


def _fresh(ctx: CheckContext, devices: dict[str, Device]) -> _State:
    parts: dict[str, _Part] = {}
    groups: dict[GroupKey, _Group] = {}
    for dev in devices.values():
        if dev.kind != "switch":
            continue
        parts[dev.name] = got = _part(ctx, dev)
        for key, value, port in got[1]:
            groups.setdefault(key, _Group()).add(value, dev.name, port)
    return _State(parts, groups, {name: i for i, name in enumerate(devices)})


def _updated(ctx: CheckContext, base: _State, changed: frozenset[str]) -> _State | None:
    """``base`` with the devices ``changed`` replaced by those of ``ctx.fabric``; None when
    that is not a plain update (a device changes kind, a group has no majority)."""
    devices = ctx.fabric.devices
    parts = dict(base.parts)
    touched: set[GroupKey] = set()
    for name in changed:
        dev = devices.get(name)
        new = _part(ctx, dev) if dev is not None and dev.kind == "switch" else None
        old = base.parts.get(name)
        if (new is None) != (old is None):
            return None
        if new is not None and old is not None:
            parts[name] = new
            touched.update(k for k, _, _ in (*old[1], *new[1]))
    groups = dict(base.groups)
    for key in touched:
        group = groups[key].without(changed) if key in groups else _Group()
        for name in changed:
            for k, value, port in parts[name][1] if name in parts else ():
                if k == key:
                    group.add(value, name, port)
        if group.ports:
            groups[key] = group
        else:
            del groups[key]
        ranked = group.counts().most_common(2)
        if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
            return None  # a tie lists every value in first-seen order: made afresh
    return _State(parts, groups, base.order)


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
        state = _state(ctx)
        parts = state.parts
        focus = ctx.focus
        order = state.order.__getitem__
        names = parts if focus is None else sorted(focus & parts.keys(), key=order)
        for name in names:
            yield from parts[name][0]
        for key, group in sorted(state.groups.items()):
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
        ctx.sign(("RT306", key), "uniform", next(iter(counts), None))
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
        holders = group.ports[value]
        on = holders if ctx.focus is None else ctx.focus & holders.keys()
        for device in sorted(on):
            ports = holders[device]
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

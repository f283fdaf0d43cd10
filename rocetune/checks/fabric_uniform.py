"""RT705 fabric-uniform: one QoS plan across the fabric, outliers reported against the majority.

Switches are compared per device on four aspects, each derived from the device's RoCE ports
(the ports at its link ends, or every port of a lone config):

- ``dscp-plan``: the priority each intent RoCE DSCP maps to;
- ``lossless-set``: the priorities with PFC on in both directions;
- ``cnp-class``: the priority of the CNP DSCP, its TC and the scheduler of its egress queue;
- ``watchdog``: PFC watchdog on/off, action, detection and restoration times.

A device's value for an aspect is the set of its ports' values, so a device whose ports
disagree is a value of its own. NIC ports are compared one by one on ``trust``,
``dscp-plan`` (RoCE and CNP DSCPs), ``lossless-set``, ``cnp`` (CNP DSCP and priority the NIC
sends), ``roce-tos`` and ``mtu``.

Per aspect the subjects are grouped by value. When one group holds a strict majority (more
than half of the subjects with known values), every subject outside it is reported once;
otherwise (a tie, or only a plurality) one fabric-level finding lists every group. Cost:
one pass over the RoCE ports, then a dict per aspect: linear.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter, is_
from typing import Literal, cast

from rocetune.checks._chain import fmt_ports, options_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    Result,
    Rule,
    RuleMeta,
    RuleOptions,
    port_path,
)
from rocetune.checks.helpers import PortLike, lossless_priorities, missing
from rocetune.checks.memo import base_of, is_base, per_device
from rocetune.checks.uniform_state import Compared
from rocetune.model import Device, Intent, NicPort, Port, Severity

SwitchAspect = Literal["dscp-plan", "lossless-set", "cnp-class", "watchdog"]
NicAspect = Literal["trust", "dscp-plan", "lossless-set", "cnp", "roce-tos", "mtu"]
_UNKNOWN = object()
"""Extractor result: the port does not carry the data (reported as RT000)."""


class FabricUniformOptions(RuleOptions):
    """Options of RT705."""

    switch_aspects: tuple[SwitchAspect, ...] = (
        "dscp-plan",
        "lossless-set",
        "cnp-class",
        "watchdog",
    )
    """Switch aspects to compare (default: all four)."""
    nic_aspects: tuple[NicAspect, ...] = (
        "trust",
        "dscp-plan",
        "lossless-set",
        "cnp",
        "roce-tos",
        "mtu",
    )
    """NIC aspects to compare (default: all six)."""
    group_by: Literal["fabric", "role", "platform"] = "fabric"
    """Compare across the whole fabric, or only among devices of the same role or platform."""


Extract = Callable[[PortLike, Intent], object]


@dataclass(frozen=True)
class _Aspect:
    label: str
    field: str
    what: str
    extract: Extract
    reads: tuple[str, ...] = ()
    """Every port field ``extract`` reads (it reads nothing else but the intent and the
    port's class): a port whose fields are the very objects of the port before it has that
    port's value (ports hold equal maps as one object, rocetune.model.share), so it is not
    extracted again. Empty: extracted on every port."""


def _dscp_plan(port: PortLike, intent: Intent, dscps: Iterable[int]) -> object:
    dmap = port.dscp_to_priority
    if dmap is None:
        return _UNKNOWN
    return tuple(f"{d}->{dmap.get(d, 'unmapped')}" for d in dscps)


def _lossless(port: PortLike, intent: Intent) -> object:
    have = lossless_priorities(port)
    return _UNKNOWN if have is None else "{" + ",".join(map(str, sorted(have))) + "}"


def _cnp_class(port: PortLike, intent: Intent) -> object:
    if not isinstance(port, Port) or port.dscp_to_priority is None:
        return _UNKNOWN
    prio = port.dscp_to_priority.get(intent.cnp.dscp)
    if prio is None:
        return f"DSCP {intent.cnp.dscp} unmapped"
    maps = (port.priority_to_tc, port.tc_to_queue, port.schedulers)
    if any(m is None for m in maps):
        return _UNKNOWN
    tc = (port.priority_to_tc or {}).get(prio)
    queue = None if tc is None else (port.tc_to_queue or {}).get(tc)
    sched = None if queue is None else (port.schedulers or {}).get(queue)
    kind = sched.kind if sched is not None and sched.kind is not None else "no scheduler"
    return f"priority {prio}, TC {tc}, queue {queue} {kind}"


def _watchdog(port: PortLike, intent: Intent) -> object:
    if not isinstance(port, Port) or port.watchdog is None:
        return _UNKNOWN
    wd = port.watchdog
    if not wd.enabled:
        return "off"
    return f"on, {wd.action or '?'}, {_ms(wd.detection_ms)}/{_ms(wd.restoration_ms)} ms"


def _ms(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def _attr(name: str) -> Extract:
    def get(port: PortLike, intent: Intent) -> object:
        value = getattr(port, name)
        return _UNKNOWN if value is None else value

    return get


def _nic_cnp(port: PortLike, intent: Intent) -> object:
    if not isinstance(port, NicPort) or port.cnp_dscp is None or port.cnp_priority is None:
        return _UNKNOWN
    return f"DSCP {port.cnp_dscp}, priority {port.cnp_priority}"


SWITCH_ASPECTS: dict[str, _Aspect] = {
    "dscp-plan": _Aspect(
        "DSCP plan",
        "dscp_to_priority",
        "DSCP map",
        lambda p, i: _dscp_plan(p, i, i.roce_dscp),
        ("dscp_to_priority",),
    ),
    "lossless-set": _Aspect(
        "lossless set", "pfc_tx", "PFC priorities", _lossless, ("pfc_rx", "pfc_tx")
    ),
    "cnp-class": _Aspect(
        "CNP class",
        "schedulers",
        "CNP DSCP map, priority->TC->queue or schedulers",
        _cnp_class,
        ("dscp_to_priority", "priority_to_tc", "tc_to_queue", "schedulers"),
    ),
    "watchdog": _Aspect(
        "PFC watchdog policy", "watchdog", "PFC watchdog", _watchdog, ("watchdog",)
    ),
}
NIC_ASPECTS: dict[str, _Aspect] = {
    "trust": _Aspect("trust mode", "trust", "trust mode", _attr("trust")),
    "dscp-plan": _Aspect(
        "DSCP plan",
        "dscp_to_priority",
        "DSCP map",
        lambda p, i: _dscp_plan(p, i, (*i.roce_dscp, i.cnp.dscp)),
        ("dscp_to_priority",),
    ),
    "lossless-set": _Aspect(
        "PFC set", "pfc_priorities", "PFC priorities", _lossless, ("pfc_priorities",)
    ),
    "cnp": _Aspect("CNP DSCP/priority", "cnp_dscp", "CNP DSCP and priority", _nic_cnp),
    "roce-tos": _Aspect("RoCE ToS", "roce_tos", "RoCE default ToS", _attr("roce_tos")),
    "mtu": _Aspect("MTU", "mtu", "MTU", _attr("mtu")),
}


@dataclass(slots=True)
class _Subject:
    """A compared unit: a switch (all its RoCE ports) or one NIC port."""

    device: str
    port: PortLike
    """The port a finding points at (the first port with a non-majority value)."""
    values: dict[object, PortLike] = field(default_factory=dict)
    _key: Hashable = field(default=None, init=False, repr=False, compare=False)

    def key(self) -> Hashable:
        """The compared value (kept: a subject is complete once built, and plan re-checks
        share subjects, rocetune.checks.memo)."""
        if self._key is None:
            values = self.values
            if len(values) == 1:  # most subjects: one value (no sort)
                self._key = (str(next(iter(values))),)
            else:
                self._key = tuple(sorted(str(v) for v in values))
        return self._key

    def show(self) -> str:
        if len(self.values) == 1:
            return _fmt(next(iter(self.values)))
        by_value: dict[str, list[str]] = {}
        for value, port in self.values.items():
            by_value.setdefault(_fmt(value), []).append(port.name)
        return "; ".join(f"{v} on {fmt_ports(ps)}" for v, ps in by_value.items())

    @property
    def label(self) -> str:
        return self.device if isinstance(self.port, Port) else f"{self.device}:{self.port.name}"


def _fmt(value: object) -> str:
    if isinstance(value, tuple):
        return "{" + ", ".join(str(v) for v in value) + "}"
    return str(value)


class FabricUniform(Rule):
    """RT705: all switches share one QoS plan and all NICs one NIC profile."""

    meta = RuleMeta(
        code="RT705",
        name="fabric-uniform",
        severity=Severity.WARNING,
        scope="fabric",
        summary="all switches share one DSCP plan, lossless set, CNP class and watchdog policy;"
        " all NICs share one NIC profile (outliers reported, not the majority)",
        tags=("fabric", "consistency"),
        features=(
            "trust",
            "dscp_map",
            "pfc",
            "cnp",
            "watchdog",
        ),
        asserts_absence=True,
    )
    options_model = FabricUniformOptions
    focused = True

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Compare every selected aspect within each group of devices."""
        opts = options_of(ctx, FabricUniformOptions)
        for name in opts.switch_aspects:
            for comp in _comparisons(ctx, "switch", opts.group_by, SWITCH_ASPECTS[name], False):
                yield from _compare(ctx, comp, SWITCH_ASPECTS[name], per_port=False)
        for nic_aspect in opts.nic_aspects:
            for comp in _comparisons(ctx, "host", opts.group_by, NIC_ASPECTS[nic_aspect], True):
                yield from _compare(ctx, comp, NIC_ASPECTS[nic_aspect], per_port=True)


_Compared = Compared[_Subject, Result]


def _group_names(devices: dict[str, Device], kind: str, group_by: str) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for dev in devices.values():
        if dev.kind == kind:
            groups.setdefault(_group_key(dev, group_by), []).append(dev.name)
    return list(groups.values())


def _group_key(dev: Device, group_by: str) -> str:
    return "" if group_by == "fabric" else str(getattr(dev, group_by) or "")


def _comparisons(
    ctx: CheckContext, kind: str, group_by: str, aspect: _Aspect, per_port: bool
) -> list[_Compared]:
    """The comparison of each group; in a plan's replayed fabric, those of the fabric it
    replays with the replaced devices updated (rocetune.checks.uniform_state)."""
    devices = ctx.fabric.devices

    def fresh(devices: dict[str, Device]) -> list[_Compared]:
        part = partial(_part, ctx, devices, aspect, per_port)
        return [Compared.fresh(names, part) for names in _group_names(devices, kind, group_by)]

    what = ("RT705 groups", kind, group_by, aspect.label, aspect.field, per_port)
    derived = base_of(devices)
    if derived is None:
        if is_base(devices):  # the plan's audited fabric: the same at every re-check
            inputs = (devices, ctx.intent, ctx.fabric.links)
            return per_device(what, inputs, partial(fresh, devices))
        return fresh(devices)
    base_devices = cast(dict[str, Device], derived[0])
    changed = derived[1]
    for name in changed:
        old, new = base_devices.get(name), devices.get(name)
        if old is None or new is None or (old.kind == kind) != (new.kind == kind):
            return fresh(devices)
        if old.kind == kind and _group_key(old, group_by) != _group_key(new, group_by):
            return fresh(devices)
    inputs = (base_devices, ctx.intent, ctx.fabric.links)
    base = per_device(what, inputs, partial(fresh, base_devices))
    out: list[_Compared] = []
    part = partial(_part, ctx, devices, aspect, per_port)
    for comp in base:
        mine = changed & comp.pos.keys()
        got = comp.replaced(frozenset(mine), part) if mine else comp
        if got is None:
            return fresh(devices)
        out.append(got)
    return out


def _ports(ctx: CheckContext, dev: Device) -> list[PortLike]:
    if dev.kind == "switch":
        return list(ctx.roce_ports(dev))
    return list(ctx.roce_nics(dev))


def _part(
    ctx: CheckContext, devices: dict[str, Device], aspect: _Aspect, per_port: bool, name: str
) -> tuple[list[_Subject], list[Result], int]:
    dev = devices[name]
    inputs = (dev, ctx.intent, ctx.links_of(dev.name))
    what = ("RT705", aspect.label, aspect.field, per_port)
    return per_device(what, inputs, partial(_device_subjects, ctx, dev, aspect, per_port))


def _device_subjects(
    ctx: CheckContext, dev: Device, aspect: _Aspect, per_port: bool
) -> tuple[list[_Subject], list[Result], int]:
    """One device's compared subjects, missing-data notes and candidates (its ports, the
    intent and its links only)."""
    subjects: list[_Subject] = []
    notes: list[Result] = []
    current: _Subject | None = None
    ports = _ports(ctx, dev)
    candidates = len(ports) if per_port else min(len(ports), 1)
    same = attrgetter("__class__", *aspect.reads) if aspect.reads else None
    read: tuple[object, ...] | None = None  # what the port before read
    value: object = _UNKNOWN
    for port in ports:
        if same is None:
            value = aspect.extract(port, ctx.intent)
        else:
            now = same(port)
            if read is None or not all(map(is_, now, read)):
                value, read = aspect.extract(port, ctx.intent), now
        if value is _UNKNOWN:
            notes.append(missing(dev.name, port, aspect.field, aspect.what))
            continue
        if current is None or per_port:
            current = _Subject(dev.name, port)
            subjects.append(current)
        current.values.setdefault(value, port)
    return subjects, notes, candidates


def _compare(
    ctx: CheckContext, comp: _Compared, aspect: _Aspect, per_port: bool
) -> Iterator[Result]:
    sign = ("RT705", aspect.label, per_port, comp.names[0] if comp.names else None)
    if comp.candidates < 2:
        ctx.sign(sign, "no comparison")
        return
    focus = ctx.focus
    at = comp.pos.__getitem__
    names = comp.names if focus is None else sorted(focus & comp.pos.keys(), key=at)
    for name in names:
        yield from comp.parts[name][1]
    if len(comp.counts) < 2:
        ctx.sign(sign, "uniform", next(iter(comp.counts), None))
        return
    ranked = comp.ranked()
    what = "NIC ports" if per_port else "switches"
    size = comp.counts[ranked[0]]
    if 2 * size <= comp.total:
        ctx.sign(sign, "tie")
        tie = comp.kept.get("tie")  # lists every subject: once per comparison
        if tie is None:
            heads = [(comp.head(k, 4), comp.counts[k]) for k in ranked]
            tie = comp.kept["tie"] = _tie(heads, aspect, what)
        yield cast(Issue, tie)
        return
    # every other device's verdict: its subjects against the majority's value
    majority = ranked[0]
    ctx.sign(sign, "majority", majority)
    head = comp.head(majority, 4)
    labels = [s.label for s in head]
    names_shown = ", ".join(labels) if size <= 4 else f"{', '.join(labels)} and {size - 4} more"
    ref = _Reference(head[0].show(), size, names_shown)  # once, not per outlier
    if focus is None:
        for k in ranked[1:]:
            for s in comp.group(k):
                yield _outlier(s, ref, comp.total, aspect, what)
        return
    rank = {k: i for i, k in enumerate(ranked)}
    mine = [
        (rank[s.key()], comp.pos[name], j)
        for name in names
        for j, s in enumerate(comp.parts[name][0])
        if s.key() != majority
    ]
    for _, p, j in sorted(mine):
        s = comp.parts[comp.names[p]][0][j]
        yield _outlier(s, ref, comp.total, aspect, what)


def _names(head: list[_Subject], count: int, limit: int = 4) -> str:
    """The labels of a group of ``count`` subjects as :func:`fmt_ports` lists them, from
    its first ``limit`` (``head``): a re-check's comparison names them without a pass
    over the group."""
    return fmt_ports([s.label for s in head[:limit]], limit, count)


@dataclass(frozen=True)
class _Reference:
    """The majority an outlier is compared with: its value, size and first names."""

    value: str
    size: int
    names: str


def _outlier(s: _Subject, major: _Reference, total: int, aspect: _Aspect, what: str) -> Issue:
    ref = major.value
    odd = [p for v, p in s.values.items() if _fmt(v) != ref] or list(s.values.values())
    port = odd[0]
    return Issue(
        message=(
            f"{s.label} has {aspect.label} {s.show()}, while {major.size} of {total} {what}"
            f" ({major.names}) use {ref}: a RoCE flow is treated differently depending on"
            " which device it crosses, so one path can be lossy or unpaced while the others"
            " are not"
        ),
        device=s.device,
        port=port.name if not isinstance(port, Port) or len(s.values) > 1 else None,
        observed=s.show(),
        expected=f"{ref} (the {aspect.label} of {major.size}/{total} {what})",
        path=port_path(port, aspect.field),
    )


def _tie(ranked: list[tuple[list[_Subject], int]], aspect: _Aspect, what: str) -> Issue:
    """The fabric-level finding of a comparison without a majority: each value (most used
    first: its first subjects and how many use it)."""
    parts = [
        f"{g[0].show()} on {_names(g, n)}"
        if len(g[0].values) == 1
        else f"{_names(g, n)}: {g[0].show()}"
        for g, n in ranked
    ]
    return Issue(
        message=(
            f"the {what} disagree on the {aspect.label} and no value is used by more than"
            " half of them:"
            f" {' | '.join(parts)}. Decide on one plan and apply it everywhere"
        ),
        observed=" | ".join(parts),
        expected=f"one {aspect.label} on all {what}",
    )

"""RT402 lossless-bandwidth and RT404 bulk-strict (roce-knowledge.md §3.3, R-SW-08/09,
R-NIC-13).

Both follow the port's own maps, never queue or TC numbers: the lossless priorities go
through ``priority_to_tc`` (and ``tc_to_queue`` on a switch) to the scheduler table
(``Port.schedulers`` by queue, ``NicPort.tc_scheduler`` by TC). Shares: a percentage weight is
the share itself; relative weights (``weight_is_percent`` False, SONiC DWRR) give
``weight / sum of the weights of the port's non-strict entries``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rocetune.checks._chain import queue_of, tc_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import PortLike, missing
from rocetune.model import Device, NicPort, Port, Scheduler, Severity


@dataclass(frozen=True)
class _Table:
    """A port's scheduler table and how its keys are reached from a priority."""

    dev: Device
    port: PortLike
    table: dict[int, Scheduler]

    @property
    def field(self) -> str:
        return "tc_scheduler" if isinstance(self.port, NicPort) else "schedulers"

    @property
    def unit(self) -> str:
        return "TC" if isinstance(self.port, NicPort) else "queue"

    def path(self, key: int | None = None) -> str:
        return port_path(self.port, self.field if key is None else f"{self.field}.{key}")

    def key_of(self, priority: int) -> int | Missing:
        """The scheduler key (queue or TC) of ``priority``."""
        if isinstance(self.port, Port):
            return queue_of(self.dev.name, self.port, priority)
        return tc_of(self.dev.name, self.port, priority)

    def tc_key(self, tc: int) -> int | None:
        """The scheduler key of traffic class ``tc`` (None when the TC->queue map lacks it)."""
        if isinstance(self.port, NicPort):
            return tc
        return None if self.port.tc_to_queue is None else self.port.tc_to_queue.get(tc)

    def unknown(self, key: int) -> Missing:
        item = f"{self.port.name}: scheduler of {self.unit} {key} (kind/weight) not in snapshot"
        return Missing(self.dev.name, item, self.path(key))


def _table(dev: Device, port: PortLike) -> _Table | Missing:
    if isinstance(port, NicPort):
        if port.tc_scheduler is None:
            return missing(dev.name, port, "tc_scheduler", "ETS/TC scheduler table")
        return _Table(dev, port, port.tc_scheduler)
    if port.schedulers is None:
        return missing(dev.name, port, "schedulers", "egress schedulers")
    return _Table(dev, port, port.schedulers)


class LosslessBandwidth(PortRule):
    """RT402: the lossless TC(s) get at least the intent share, or are strict."""

    meta = RuleMeta(
        code="RT402",
        name="lossless-bandwidth",
        severity=Severity.WARNING,
        scope="port",
        summary="the lossless TC gets at least the intent share (default 50 %) or is strict",
        tags=("ets", "scheduling"),
        features=("scheduler",),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Share of the lossless queues of a switch port."""
        inputs = (ctx.intent, port.priority_to_tc, port.tc_to_queue, port.schedulers)
        return ctx.quiet("RT402 switch", inputs, lambda: _share(dev, port, ctx))

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterable[Result]:
        """Share of the lossless TCs of a NIC port."""
        inputs = (ctx.intent, nic.priority_to_tc, nic.tc_scheduler)
        return ctx.quiet("RT402 NIC", inputs, lambda: _share(dev, nic, ctx))


def _share(dev: Device, port: PortLike, ctx: CheckContext) -> Iterator[Result]:
    """RT402 on one port. Whether it finds anything depends on the intent, the port's class,
    its priority->TC map, TC->queue map (a switch port) and scheduler table alone: the
    device and port only name the results (``ctx.quiet``)."""
    table = _table(dev, port)
    if isinstance(table, Missing):
        yield table
        return
    keys: set[int] = set()
    for prio in ctx.intent.lossless_priorities:
        key = table.key_of(prio)
        if isinstance(key, Missing):
            yield key
        else:
            keys.add(key)
    weighted: list[int] = []
    for key in sorted(keys):
        sched = table.table.get(key)
        if sched is not None and sched.kind is None:
            yield table.unknown(key)
            return
        if sched is None or sched.kind != "strict":
            weighted.append(key)
    if weighted:
        yield from _weighted_share(table, weighted, ctx.intent.lossless_min_bandwidth_pct)


def _weighted_share(table: _Table, keys: list[int], want: float) -> Iterator[Result]:
    shares: dict[int, float] = {}
    for key in keys:
        share = _percent(table, key)
        if isinstance(share, Missing):
            yield share
            return
        shares[key] = share
    total = sum(shares.values())
    if total + 1e-6 >= want:
        return
    detail = ", ".join(f"{table.unit} {k}: {v:.3g} %" for k, v in sorted(shares.items()))
    yield Issue(
        message=(
            f"the lossless {table.unit}{'s' if len(keys) > 1 else ''} {fmt_set(keys)} "
            f"get{'' if len(keys) > 1 else 's'} {total:.3g} % of the link under contention "
            f"({detail}), below the intent's {want:g} %, so RoCE slows down (and PFC pauses "
            "spread) whenever other classes are busy"
        ),
        device=table.dev.name,
        port=table.port.name,
        observed=f"{total:.3g} % ({detail})",
        expected=f">= {want:g} % or strict (intent lossless_min_bandwidth_pct)",
        path=table.path(keys[0]) if len(keys) == 1 else table.path(),
    )


def _percent(table: _Table, key: int) -> float | Missing:
    """The guaranteed share in percent of the weighted entry ``key`` (0 without scheduler)."""
    sched = table.table.get(key)
    if sched is None:
        return 0.0
    if sched.weight is None:
        return table.unknown(key)
    if sched.weight_is_percent:
        return sched.weight
    total = 0.0
    for other, entry in sorted(table.table.items()):
        if entry.kind is None or (entry.kind != "strict" and entry.weight is None):
            return table.unknown(other)
        if entry.kind != "strict" and entry.weight is not None:
            total += entry.weight
    return 100.0 * sched.weight / total if total > 0 else 0.0


class BulkStrict(PortRule):
    """RT404: no TC that carries data (any non-CNP DSCP, any lossless priority) is strict."""

    meta = RuleMeta(
        code="RT404",
        name="bulk-strict",
        severity=Severity.WARNING,
        scope="port",
        summary="no data-carrying TC is strict",
        tags=("ets", "scheduling"),
        features=(
            "scheduler",
            "dscp_map",
        ),
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Strict queues of a switch port that carry data."""
        return _bulk(dev, port, ctx)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterable[Result]:
        """Strict TCs of a NIC port that carry data."""
        return _bulk(dev, nic, ctx)


def _bulk(dev: Device, port: PortLike, ctx: CheckContext) -> Iterator[Result]:
    table = _table(dev, port)
    if isinstance(table, Missing):
        yield table
        return
    strict = {k for k, s in table.table.items() if s.kind == "strict"}
    if not strict:
        yield from (table.unknown(k) for k, s in sorted(table.table.items()) if s.kind is None)
        return
    needed = _map_notes(dev, port)
    if needed:
        yield from needed
        return
    port_type = type(port)
    maps = (port.dscp_to_priority, port.priority_to_tc, getattr(port, "tc_to_queue", None))
    carriers = ctx.memo("RT404 carriers", (port_type, *maps), lambda: _carriers(table, ctx))
    bad = sorted(strict & set(carriers))
    if bad:
        yield _bulk_issue(table, {k: carriers[k] for k in bad})


_Carried = tuple[tuple[int, ...], tuple[int, ...]]
"""(DSCPs, priorities) carried by one scheduler key, sorted."""


def _map_notes(dev: Device, port: PortLike) -> list[Missing]:
    out = []
    if port.dscp_to_priority is None:
        out.append(missing(dev.name, port, "dscp_to_priority", "DSCP map"))
    if port.priority_to_tc is None:
        out.append(missing(dev.name, port, "priority_to_tc", "priority->TC map"))
    if isinstance(port, Port) and port.tc_to_queue is None:
        out.append(missing(dev.name, port, "tc_to_queue", "TC->queue map"))
    return out


def _carriers(table: _Table, ctx: CheckContext) -> dict[int, _Carried]:
    """Scheduler key -> (non-CNP DSCPs, lossless priorities) that land in it, sorted.

    DSCPs other than the CNP DSCP that share the CNP class (CS6 network control on an
    8-to-1 map) do not make it data-carrying: that class is meant to be strict (RT403).
    Tuples, not sets: the run keeps the result (``ctx.memo``); 64 DSCPs in sets were ~8 KB,
    more than a 64-port switch's config.
    """
    port = table.port
    intent = ctx.intent
    ptc = port.priority_to_tc or {}
    cnp_tc = ptc.get(intent.cnp.priority)
    cnp_key = None if cnp_tc is None else table.tc_key(cnp_tc)
    cnp_dscp = intent.cnp.dscp
    keys: dict[int, int | None] = {}  # priority -> its scheduler key (8 priorities, 64 DSCPs)
    out: dict[int, tuple[set[int], set[int]]] = {}
    for dscp, prio in (port.dscp_to_priority or {}).items():
        if prio in keys:
            key = keys[prio]
        else:
            tc = ptc.get(prio)
            key = keys[prio] = None if tc is None else table.tc_key(tc)
        if key is not None and dscp != cnp_dscp and key != cnp_key:
            out.setdefault(key, (set(), set()))[0].add(dscp)
    for prio in intent.lossless_priorities:
        tc = ptc.get(prio)
        key = None if tc is None else table.tc_key(tc)
        if key is not None:
            out.setdefault(key, (set(), set()))[1].add(prio)
    return {key: (tuple(sorted(dscp)), tuple(sorted(prio))) for key, (dscp, prio) in out.items()}


def _bulk_issue(table: _Table, bad: dict[int, _Carried]) -> Issue:
    parts = []
    for key, (dscps, prios) in bad.items():
        what = []
        if prios:
            what.append(f"lossless priorities {fmt_set(prios)}")
        if dscps:
            what.append(f"DSCPs {fmt_set(dscps)}")
        parts.append(f"{table.unit} {key}: {' and '.join(what)}")
    keys = list(bad)
    plural = "s" if len(keys) > 1 else ""
    carried = "; ".join(parts)
    return Issue(
        message=(
            f"{table.unit}{plural} {fmt_set(keys)} {'are' if plural else 'is'} strict priority "
            f"but carr{'y' if plural else 'ies'} data ({carried}): strict traffic has no cap, "
            "so a bulk flow there starves every other class (CNPs included) and lossless "
            "traffic leans on PFC"
        ),
        device=table.dev.name,
        port=table.port.name,
        observed=f"strict {table.unit}{plural} carrying data: {carried}",
        expected="strict only for the CNP/control class; data classes DWRR/ETS",
        path=table.path(keys[0]) if len(keys) == 1 else table.path(),
    )

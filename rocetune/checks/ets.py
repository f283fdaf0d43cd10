"""RT4xx scheduling (ETS) rules (roce-knowledge.md §3.3, R-SW-07/08, R-NIC-12).

Switch schedulers are keyed by egress queue (``Port.schedulers``), NIC schedulers by traffic
class (``NicPort.tc_scheduler``). The CNP class is found through the maps from the intent's
CNP priority, never by number.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from rocetune.checks._chain import options_of, queue_of, tc_of
from rocetune.checks.base import (
    CheckContext,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import PortLike, missing, missing_pfc, pfc_priorities
from rocetune.model import Device, NicPort, Port, Scheduler, Severity

_EPS = 1e-6


class EtsWeightsOptions(RuleOptions):
    """Options of RT401."""

    switch_sum_exact: bool = False
    """Require switch DWRR/ETS percentages to sum to exactly 100 (default: at most 100, the
    Cumulus rule, S2)."""
    nic_sum_exact: bool = True
    """Require NIC ETS percentages to sum to exactly 100 (mlnx_qos, S27)."""


@dataclass(frozen=True)
class _Sched:
    """Where a scheduler table sits: device, port, field and what its keys are."""

    dev: Device
    port: PortLike
    field: str
    unit: str

    def path(self, key: int | None = None) -> str:
        return port_path(self.port, self.field if key is None else f"{self.field}.{key}")

    def issue(self, message: str, observed: str, expected: str, key: int | None = None) -> Issue:
        return Issue(
            message=message,
            device=self.dev.name,
            port=self.port.name,
            observed=observed,
            expected=expected,
            path=self.path(key),
        )


class EtsWeightsValid(PortRule):
    """RT401: percentages sum to <= 100 (switch) / = 100 (NIC); strict carries no weight."""

    meta = RuleMeta(
        code="RT401",
        name="ets-weights-valid",
        severity=Severity.ERROR,
        scope="port",
        summary="ETS percentages sum to 100 where the platform requires it (DWRR <= 100), "
        "strict TCs carry no weight",
        tags=("ets", "scheduling"),
        features=("scheduler",),
    )
    options_model = EtsWeightsOptions

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Check the egress schedulers of a switch port."""
        if port.schedulers is None:
            return [missing(dev.name, port, "schedulers", "egress schedulers")]
        exact = options_of(ctx, EtsWeightsOptions).switch_sum_exact
        table = port.schedulers
        where = partial(_Sched, dev, port, "schedulers", "queue")
        return ctx.quiet(("RT401", exact), (table,), lambda: _check_table(where(), table, exact))

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterable[Result]:
        """Check the ETS table of a NIC port."""
        if nic.tc_scheduler is None:
            return [missing(dev.name, nic, "tc_scheduler", "ETS/TC scheduler table")]
        exact = options_of(ctx, EtsWeightsOptions).nic_sum_exact
        table = nic.tc_scheduler
        where = partial(_Sched, dev, nic, "tc_scheduler", "TC")
        return ctx.quiet(("RT401", exact), (table,), lambda: _check_table(where(), table, exact))


def _check_table(where: _Sched, table: dict[int, Scheduler], exact: bool) -> Iterator[Result]:
    """What RT401 finds in a scheduler table. Whether it finds anything depends on
    ``table`` and ``exact`` alone: ``where`` only names the results (``ctx.quiet``)."""
    percent: dict[int, float] = {}
    complete = True
    for key, sched in sorted(table.items()):
        if sched.kind is None or (sched.kind != "strict" and sched.weight is None):
            complete = False
            label = f"{where.port.name}: scheduler of {where.unit} {key}"
            yield Missing(where.dev.name, f"{label} (kind/weight) not in snapshot", where.path(key))
        elif sched.kind == "strict":
            if sched.weight:
                yield _strict_weight(where, key, sched)
        elif sched.weight is not None:
            if sched.weight_is_percent:
                percent[key] = sched.weight
            yield from _one_weight(where, key, sched.weight, sched.weight_is_percent)
    if percent and complete:
        yield from _sum(where, percent, exact)


def _strict_weight(where: _Sched, key: int, sched: Scheduler) -> Issue:
    unit = " %" if sched.weight_is_percent else ""
    return where.issue(
        f"{where.unit} {key} is strict priority but also carries a weight of "
        f"{sched.weight:g}{unit}; strict traffic is served first without any share, so the "
        "weight is ignored or rejected and the configured split is not what runs",
        observed=f"{where.unit} {key}: strict, weight {sched.weight:g}{unit}",
        expected="strict with no weight (0)",
        key=key,
    )


def _one_weight(where: _Sched, key: int, weight: float, is_percent: bool) -> Iterator[Issue]:
    if is_percent and not 0 <= weight <= 100:
        yield where.issue(
            f"{where.unit} {key} has a DWRR/ETS share of {weight:g} %, which is not a "
            "percentage, so the platform rejects it or the bandwidth split is undefined",
            observed=f"{where.unit} {key}: {weight:g} %",
            expected="0-100 %",
            key=key,
        )
    elif not is_percent and weight <= 0:
        yield where.issue(
            f"{where.unit} {key} has a relative weight of {weight:g}, so it gets no guaranteed "
            "service and can starve while other weighted classes are busy",
            observed=f"{where.unit} {key}: weight {weight:g}",
            expected="relative weight > 0",
            key=key,
        )


def _sum(where: _Sched, percent: dict[int, float], exact: bool) -> Iterator[Issue]:
    total = sum(percent.values())
    keys = fmt_set(percent)
    if exact and abs(total - 100) > _EPS:
        yield where.issue(
            f"ETS percentages of {where.unit}s {keys} sum to {total:g} %, not 100 %, so the "
            "bandwidth split is not the one intended (the NIC/platform requires exactly 100)",
            observed=f"sum {total:g} %",
            expected="sum = 100 % over the weighted (non-strict) classes",
        )
    elif not exact and total > 100 + _EPS:
        yield where.issue(
            f"DWRR/ETS percentages of {where.unit}s {keys} sum to {total:g} %, above 100 %, so "
            "the guaranteed shares cannot all be honoured (Cumulus rejects such a profile)",
            observed=f"sum {total:g} %",
            expected="sum <= 100 % over the weighted (non-strict) queues",
        )


class CnpStrict(PortRule):
    """RT403: the CNP priority's queue/TC is strict and the CNP priority is not PFC-enabled."""

    meta = RuleMeta(
        code="RT403",
        name="cnp-strict",
        severity=Severity.WARNING,
        scope="port",
        summary="the CNP TC is strict (or highest) and not lossless",
        tags=("ets", "cnp", "dcqcn"),
        features=(
            "scheduler",
            "pfc",
        ),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Follow the CNP priority to its egress queue on a switch port (whether anything
        is found depends on the inputs below alone: the device and port name it)."""
        inputs = (
            ctx.intent,
            port.priority_to_tc,
            port.tc_to_queue,
            port.schedulers,
            port.pfc_rx,
            port.pfc_tx,
        )
        return ctx.quiet("RT403 switch", inputs, lambda: self._port(dev, port, ctx))

    def _port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterator[Result]:
        if ctx.intent.congestion_control == "none":
            return
        prio = ctx.intent.cnp.priority
        queue = queue_of(dev.name, port, prio)
        if isinstance(queue, Missing):
            yield queue
        elif port.schedulers is None:
            yield missing(dev.name, port, "schedulers", "egress schedulers")
        else:
            where = _Sched(dev, port, "schedulers", "queue")
            yield from _strict(where, prio, queue, port.schedulers.get(queue))
        yield from _not_lossless(dev, port, prio)

    def check_nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterable[Result]:
        """Follow the CNP priority to its TC on a NIC port (whether anything is found
        depends on the inputs below alone: the device and port name it)."""
        inputs = (ctx.intent, nic.priority_to_tc, nic.tc_scheduler, nic.pfc_priorities)
        return ctx.quiet("RT403 NIC", inputs, lambda: self._nic(dev, nic, ctx))

    def _nic(self, dev: Device, nic: NicPort, ctx: CheckContext) -> Iterator[Result]:
        if ctx.intent.congestion_control == "none":
            return
        prio = ctx.intent.cnp.priority
        tc = tc_of(dev.name, nic, prio)
        if isinstance(tc, Missing):
            yield tc
        elif nic.tc_scheduler is None:
            yield missing(dev.name, nic, "tc_scheduler", "ETS/TC scheduler table")
        else:
            where = _Sched(dev, nic, "tc_scheduler", "TC")
            yield from _strict(where, prio, tc, nic.tc_scheduler.get(tc))
        yield from _not_lossless(dev, nic, prio)


def _strict(where: _Sched, prio: int, key: int, sched: Scheduler | None) -> Iterator[Result]:
    if sched is not None and sched.kind is None:
        item = f"{where.port.name}: scheduler kind of {where.unit} {key} not in snapshot"
        yield Missing(where.dev.name, item, where.path(key))
        return
    if sched is not None and sched.kind == "strict":
        return
    kind = "the platform default (no scheduler)" if sched is None else sched.kind
    yield where.issue(
        f"the CNP priority {prio} is scheduled on {where.unit} {key} as {kind}, not strict, "
        "so congestion notifications queue behind data and senders slow down too late",
        observed=f"{where.unit} {key}: {kind}",
        expected=f"strict (intent CNP priority {prio} -> {where.unit} {key})",
        key=key,
    )


def _not_lossless(dev: Device, port: PortLike, prio: int) -> Iterator[Result]:
    enabled = pfc_priorities(port)
    if enabled is None:
        yield from missing_pfc(dev.name, port)
        return
    if prio not in enabled:
        return
    field = "pfc_priorities" if isinstance(port, NicPort) else "pfc_tx"
    yield Issue(
        message=(
            f"PFC is enabled on the CNP priority {prio}, so CNPs can be paused together with "
            "the traffic they should slow down and the class spends a lossless priority"
        ),
        device=dev.name,
        port=port.name,
        observed=f"PFC on {fmt_set(enabled)}",
        expected=f"no PFC on the CNP priority {prio} (intent cnp.priority)",
        path=port_path(port, field),
    )

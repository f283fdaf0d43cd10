"""The device-wide class plan: DSCP/trust maps, PFC priorities, ETS weights, CNP class.

Vendor-neutral and identical on every switch of a fabric (RT702/RT705 want one plan):

- Trust DSCP. Every RoCE DSCP maps to a lossless priority (the i-th RoCE DSCP to the i-th
  lossless priority, the last one taking any extra DSCPs), the CNP DSCP to the CNP priority,
  every other DSCP to priority 0, the default lossy class (RT102-RT104).
- Priority n is traffic class n and egress queue n (identity maps, as SONiC and NVUE ship).
- Each lossless priority has its own ingress priority group (PG n); every lossy priority
  shares PG 0 (platforms that keep one lossless PG per port merge them, see context.py).
- ETS: the lossless TCs share ``intent.lossless_min_bandwidth_pct`` equally (DWRR), TC 0 gets
  the rest, the CNP TC is strict and carries no weight (RT401, RT403).
"""

from __future__ import annotations

from dataclasses import dataclass

from rocetune.model import Intent
from rocetune.tune.reason import Reason, fmt_map

DEFAULT_TC = 0
"""The lossy default class every unlisted DSCP lands in."""


class TargetError(ValueError):
    """The intent cannot be turned into a consistent target state."""


@dataclass(frozen=True)
class SchedulerTarget:
    """Egress scheduling of one traffic class: strict, or DWRR with a percent weight."""

    kind: str
    """``strict`` or ``dwrr``."""
    weight_pct: int | None = None


@dataclass(frozen=True)
class ClassPlan:
    """Classification, PFC and scheduling shared by every port of a device."""

    dscp_to_priority: dict[int, int]
    priority_to_tc: dict[int, int]
    tc_to_pg: dict[int, int]
    tc_to_queue: dict[int, int]
    lossless: tuple[int, ...]
    """Lossless priorities (= their TCs, queues and PGs): PFC rx/tx, ECN, headroom."""
    roce_dscp: tuple[int, ...]
    cnp_dscp: int
    cnp_priority: int
    schedulers: dict[int, SchedulerTarget]
    reasons: tuple[Reason, ...]


def _check(intent: Intent) -> None:
    lossless = intent.lossless_priorities
    problems = []
    if DEFAULT_TC in lossless:
        problems.append(f"priority {DEFAULT_TC} is the default lossy class; it cannot be lossless")
    if intent.cnp.priority in lossless:
        problems.append(f"CNP priority {intent.cnp.priority} is also a lossless priority")
    if intent.cnp.priority == DEFAULT_TC:
        problems.append(f"CNP priority {DEFAULT_TC} is the default lossy class (need a strict TC)")
    if len(lossless) > intent.max_lossless_priorities:
        problems.append(
            f"{len(lossless)} lossless priorities exceed intent.max_lossless_priorities "
            f"{intent.max_lossless_priorities}"
        )
    if problems:
        raise TargetError("; ".join(problems))


def dscp_plan(intent: Intent) -> dict[int, int]:
    """DSCP -> priority for all 64 DSCPs."""
    lossless = intent.lossless_priorities
    table = dict.fromkeys(range(64), DEFAULT_TC)
    for i, dscp in enumerate(intent.roce_dscp):
        table[dscp] = lossless[min(i, len(lossless) - 1)]
    table[intent.cnp.dscp] = intent.cnp.priority
    return table


def _schedulers(intent: Intent) -> tuple[dict[int, SchedulerTarget], Reason]:
    lossless = intent.lossless_priorities
    total = round(intent.lossless_min_bandwidth_pct)
    share, extra = divmod(total, len(lossless))
    out = {DEFAULT_TC: SchedulerTarget("dwrr", 100 - total)}
    for i, tc in enumerate(lossless):
        out[tc] = SchedulerTarget("dwrr", share + (1 if i < extra else 0))
    out[intent.cnp.priority] = SchedulerTarget("strict")
    weights = ", ".join(
        f"TC{tc} {s.weight_pct} %" for tc, s in sorted(out.items()) if s.weight_pct is not None
    )
    why = (
        f"lossless TCs share intent.lossless_min_bandwidth_pct {total} % equally, TC0 "
        f"takes the rest, CNP TC{intent.cnp.priority} strict (no weight)"
    )
    return dict(sorted(out.items())), Reason("device", "ETS weights", weights, why)


def class_plan(intent: Intent) -> ClassPlan:
    """The class plan of the intent; raises TargetError when the intent contradicts itself."""
    _check(intent)
    lossless = intent.lossless_priorities
    identity = {i: i for i in range(8)}
    dscp = dscp_plan(intent)
    scheds, sched_reason = _schedulers(intent)
    special = {d: p for d, p in dscp.items() if p != DEFAULT_TC}
    reasons = (
        Reason(
            "device",
            "DSCP map",
            f"{fmt_map(special)}, others->0",
            "intent.roce_dscp -> intent.lossless_priorities, intent.cnp.dscp -> "
            "intent.cnp.priority, every other DSCP -> the default lossy priority 0",
        ),
        Reason(
            "device",
            "PFC priorities",
            ",".join(map(str, lossless)),
            "intent.lossless_priorities (PFC rx and tx, own ingress PG and egress queue each)",
        ),
        Reason(
            "device",
            "CNP class",
            f"DSCP {intent.cnp.dscp} -> priority {intent.cnp.priority}, strict",
            "intent.cnp; strict so CNPs overtake the data they throttle (RT403)",
        ),
        sched_reason,
    )
    return ClassPlan(
        dscp_to_priority=dscp,
        priority_to_tc=dict(identity),
        tc_to_pg={tc: (tc if tc in lossless else DEFAULT_TC) for tc in range(8)},
        tc_to_queue=dict(identity),
        lossless=lossless,
        roce_dscp=intent.roce_dscp,
        cnp_dscp=intent.cnp.dscp,
        cnp_priority=intent.cnp.priority,
        schedulers=scheds,
        reasons=reasons,
    )

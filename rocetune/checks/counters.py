"""RT8xx: counter deltas taken around a verification round (``Fabric.counters``).

Each rule reads :class:`~rocetune.model.PortCounters` deltas. No deltas (no verification
ran) -> the rules yield nothing: that is not missing data. A delta that lacks a counter the
rule needs -> Missing (RT000). Fields that only NICs have (``port_discards``, the RDMA
``hw_counters``) are required on host ports only; a port counts as a NIC port when its device
is a host in the model (or, for a device not in the model, when it has RDMA counters).
Priorities are compared with the intent's ``lossless_priorities``.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field

from rocetune.checks.base import CheckContext, Issue, Missing, Result, Rule, RuleMeta, RuleOptions
from rocetune.model import PortCounters, Severity

_RDMA = ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rp_cnp_ignored")


def is_nic(ctx: CheckContext, c: PortCounters) -> bool:
    """Whether the counters are of a host NIC port."""
    dev = ctx.fabric.devices.get(c.device)
    if dev is not None:
        return dev.kind == "host"
    return any(getattr(c, name) is not None for name in _RDMA)


def need(c: PortCounters, field: str) -> Missing:
    """A Missing note for one counter of one port."""
    return Missing(
        device=c.device, item=f"{c.port}: counter delta {field} not collected", path=None
    )


def _where(c: PortCounters) -> str:
    return f" in round {c.round}" if c.round is not None else ""


class _CounterRule(Rule):
    """Base: call :meth:`check` on every counter delta."""

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Check every delta of ``Fabric.counters`` (none: verification did not run)."""
        for c in ctx.fabric.counters:
            yield from self.check(c, ctx)

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """Check one port's delta."""
        return iter(())

    def issue(self, c: PortCounters, message: str, observed: object, expected: object) -> Issue:
        """An Issue on the port of ``c``."""
        return Issue(
            message=message + _where(c),
            device=c.device,
            port=c.port,
            observed=observed,
            expected=expected,
        )


def _grown(values: dict[int, int], priorities: frozenset[int], lossless: bool) -> dict[int, int]:
    return {p: v for p, v in sorted(values.items()) if v > 0 and (p in priorities) == lossless}


class LosslessDrops(_CounterRule):
    """RT801: no drops on lossless priorities, no NIC port buffer drops."""

    meta = RuleMeta(
        code="RT801",
        name="lossless-drops",
        severity=Severity.ERROR,
        scope="counters",
        summary="no drops on lossless PGs/queues (switch) and no rx_prio<p>_discards/"
        "rx_discards_phy growth (NIC)",
        tags=("counters", "pfc"),
    )

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """Per-priority discards on lossless priorities, and NIC port discards."""
        lossless = frozenset(ctx.intent.lossless_priorities)
        if c.discards_by_priority is None:
            yield need(c, "discards_by_priority")
        elif drops := _grown(c.discards_by_priority, lossless, lossless=True):
            yield self.issue(
                c,
                f"{sum(drops.values())} packets dropped on lossless priorities: PFC did not"
                " hold the traffic (headroom too small, PFC off on a hop, or a pause storm)",
                drops,
                "0 on " + ",".join(map(str, sorted(lossless))),
            )
        if not is_nic(ctx, c):
            return
        if c.port_discards is None:
            yield need(c, "port_discards")
        elif c.port_discards > 0:
            yield self.issue(
                c,
                f"rx_discards_phy grew by {c.port_discards}: the NIC dropped packets for lack"
                " of receive buffer (PFC not honoured or the lossless buffer too small)",
                c.port_discards,
                0,
            )


class TransportRetries(_CounterRule):
    """RT802: no RoCE transport recovery (sequence errors, timeouts, retransmissions)."""

    meta = RuleMeta(
        code="RT802",
        name="transport-retries",
        severity=Severity.ERROR,
        scope="counters",
        summary="no growth of out_of_sequence, packet_seq_err, local_ack_timeout_err,"
        " roce_adp_retrans",
        tags=("counters",),
    )
    required = ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err")
    optional = ("implied_nak_seq_err", "roce_adp_retrans")

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """The RDMA hw_counters of a NIC port."""
        if not is_nic(ctx, c):
            return
        grown = {}
        for name in (*self.required, *self.optional):
            value = getattr(c, name)
            if value is None:
                if name in self.required:
                    yield need(c, name)
            elif value > 0:
                grown[name] = value
        if grown:
            listed = ", ".join(f"{k} +{v}" for k, v in grown.items())
            yield self.issue(
                c,
                f"RoCE transport recovery during the test ({listed}): packets were lost or"
                " reordered, so the path is not lossless",
                listed,
                "no growth",
            )


class PfcStorm(_CounterRule):
    """RT803: no pause-storm, watchdog or deadlock events."""

    meta = RuleMeta(
        code="RT803",
        name="pfc-storm",
        severity=Severity.ERROR,
        scope="counters",
        summary="no watchdog storm/deadlock events, no NIC pause-storm events",
        tags=("counters", "pfc", "watchdog"),
    )

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """``storm_events`` must not grow."""
        if c.storm_events is None:
            yield need(c, "storm_events")
        elif c.storm_events > 0:
            yield self.issue(
                c,
                f"{c.storm_events} pause-storm/watchdog events: a port kept sending pause"
                " (a stuck receiver or a PFC deadlock) and the watchdog intervened",
                c.storm_events,
                0,
            )


class PauseDurationOptions(RuleOptions):
    """Options of RT804."""

    max_fraction: float = Field(default=0.05, gt=0, le=1)
    """Largest share of the window a lossless priority may spend paused (default 5 %)."""


class PauseDuration(_CounterRule):
    """RT804: pause time on a lossless priority below a fraction of the window."""

    meta = RuleMeta(
        code="RT804",
        name="pause-duration",
        severity=Severity.WARNING,
        scope="counters",
        summary="pause time on the lossless priority below the intent fraction of the window",
        tags=("counters", "pfc"),
    )
    options_model = PauseDurationOptions

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """rx and tx pause time per lossless priority / window."""
        opts = ctx.options
        assert isinstance(opts, PauseDurationOptions)
        if c.window_s is None or c.window_s <= 0:
            yield need(c, "window_s")
            return
        for direction, values in (
            ("rx", c.pause_rx_us_by_priority),
            ("tx", c.pause_tx_us_by_priority),
        ):
            if values is None:
                yield need(c, f"pause_{direction}_us_by_priority")
                continue
            for p in ctx.intent.lossless_priorities:
                share = values.get(p, 0) / (c.window_s * 1e6)
                if share > opts.max_fraction:
                    yield self.issue(
                        c,
                        f"priority {p} was paused ({direction}) {share:.1%} of the"
                        f" {c.window_s:g} s window: sustained congestion spreading",
                        f"{share:.1%}",
                        f"<= {opts.max_fraction:.0%} (option max_fraction)",
                    )


class CcLoop(Rule):
    """RT805: ECN marks imply CNPs sent imply CNPs handled (per round)."""

    meta = RuleMeta(
        code="RT805",
        name="cc-loop",
        severity=Severity.WARNING,
        scope="counters",
        summary="ECN marks imply CNPs sent imply CNPs handled (skip when intent cc = none)",
        tags=("counters", "ecn", "dcqcn"),
    )
    needed = ("np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled")

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Group the deltas by round and follow the loop switch -> receiver -> sender."""
        if ctx.intent.congestion_control == "none":
            return
        rounds: dict[int | None, list[PortCounters]] = {}
        for c in ctx.fabric.counters:
            rounds.setdefault(c.round, []).append(c)
        for deltas in rounds.values():
            yield from self._round(deltas, ctx)

    def _round(self, deltas: list[PortCounters], ctx: CheckContext) -> Iterator[Result]:
        nics = [c for c in deltas if is_nic(ctx, c)]
        for c in nics:
            yield from (need(c, n) for n in self.needed if getattr(c, n) is None)
        known = [c for c in nics if all(getattr(c, n) is not None for n in self.needed)]
        marked = sum(c.np_ecn_marked_roce_packets or 0 for c in known)
        for c in deltas:
            if not is_nic(ctx, c) and (c.ecn_marked or 0) > 0 and known and marked == 0:
                yield _loop(
                    c,
                    f"the switch ECN-marked {c.ecn_marked} packets but no receiver"
                    " NIC counted a marked RoCE packet (ECN bits cleared on the way?)",
                    "np_ecn_marked_roce_packets = 0",
                )
        for c in known:
            if (c.np_ecn_marked_roce_packets or 0) > 0 and c.np_cnp_sent == 0:
                yield _loop(
                    c,
                    f"{c.np_ecn_marked_roce_packets} ECN-marked RoCE packets"
                    " received but no CNP sent: the notification point is off",
                    "np_cnp_sent = 0",
                )
        sent = sum(c.np_cnp_sent or 0 for c in known)
        handled = sum(c.rp_cnp_handled or 0 for c in known)
        if sent > 0 and handled == 0:
            first = next(c for c in known if (c.np_cnp_sent or 0) > 0)
            yield _loop(
                first,
                f"receivers sent {sent} CNPs but no sender handled one: the"
                " reaction point is off or CNPs are lost/misclassified",
                "rp_cnp_handled = 0 on every NIC of the round",
            )


def _loop(c: PortCounters, message: str, observed: str) -> Issue:
    return Issue(
        message=message + _where(c),
        device=c.device,
        port=c.port,
        observed=observed,
        expected="ECN marks -> CNPs sent -> CNPs handled",
    )


class CnpIgnored(_CounterRule):
    """RT806: ``rp_cnp_ignored`` does not grow."""

    meta = RuleMeta(
        code="RT806",
        name="cnp-ignored",
        severity=Severity.ERROR,
        scope="counters",
        summary="rp_cnp_ignored does not grow",
        tags=("counters", "dcqcn"),
    )

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """NIC ports only."""
        if not is_nic(ctx, c):
            return
        if c.rp_cnp_ignored is None:
            yield need(c, "rp_cnp_ignored")
        elif c.rp_cnp_ignored > 0:
            yield self.issue(
                c,
                f"{c.rp_cnp_ignored} CNPs ignored: the reaction point is off on the priority"
                " the flows use, so congestion is never slowed down",
                c.rp_cnp_ignored,
                0,
            )


class _GrowthRule(_CounterRule):
    """Base: one scalar counter that must not grow."""

    field_name = ""
    text = ""

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """The counter must be known and not grow."""
        value = getattr(c, self.field_name)
        if value is None:
            yield need(c, self.field_name)
        elif value > 0:
            yield self.issue(c, f"{value} {self.text}", value, 0)


class GlobalPauseCounters(_GrowthRule):
    """RT807: link-level pause counters do not grow."""

    meta = RuleMeta(
        code="RT807",
        name="global-pause-counters",
        severity=Severity.WARNING,
        scope="counters",
        summary="link-level pause counters do not grow",
        tags=("counters", "pfc"),
    )
    field_name = "global_pause_frames"
    text = "802.3x link-level pause frames: global pause stops every priority, not just RoCE"


class OversizeFrames(_GrowthRule):
    """RT808: no oversize / out-of-range-length frames."""

    meta = RuleMeta(
        code="RT808",
        name="oversize-frames",
        severity=Severity.ERROR,
        scope="counters",
        summary="no oversize / out-of-range-length frames (an MTU mismatch)",
        tags=("counters", "mtu"),
    )
    field_name = "oversize_frames"
    text = "oversize or out-of-range-length frames: the peer's MTU is larger (MTU mismatch)"


class RoceOnLossyPriority(_CounterRule):
    """RT809: RoCE bytes appear on the lossless priority, not on lossy ones."""

    meta = RuleMeta(
        code="RT809",
        name="roce-on-lossy-priority",
        severity=Severity.ERROR,
        scope="counters",
        summary="RoCE bytes appear on the lossless priority, not on priority 0",
        tags=("counters", "classification"),
    )

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """Traffic that grew only on lossy priorities during the test."""
        rx, tx = c.rx_bytes_by_priority, c.tx_bytes_by_priority
        if rx is None and tx is None:
            yield need(c, "rx/tx_bytes_by_priority")
            return
        lossless = frozenset(ctx.intent.lossless_priorities)
        both: dict[int, int] = {}
        for values in (rx or {}, tx or {}):
            for p, v in values.items():
                both[p] = both.get(p, 0) + v
        if _grown(both, lossless, lossless=True):
            return
        lossy = _grown(both, lossless, lossless=False)
        if lossy:
            yield self.issue(
                c,
                "the test traffic travelled on lossy priorities only (no bytes on the lossless"
                " priorities): the RoCE DSCP/ToS is not set or not mapped, so RoCE is lossy",
                lossy,
                "bytes on " + ",".join(map(str, sorted(lossless))),
            )


class PfcOnLossy(_CounterRule):
    """RT810: PFC frames only on lossless priorities."""

    meta = RuleMeta(
        code="RT810",
        name="pfc-on-lossy",
        severity=Severity.WARNING,
        scope="counters",
        summary="PFC frames seen only on lossless priorities",
        tags=("counters", "pfc"),
    )

    def check(self, c: PortCounters, ctx: CheckContext) -> Iterator[Result]:
        """PFC frames received or sent on priorities outside the intent."""
        lossless = frozenset(ctx.intent.lossless_priorities)
        for direction, values in (("rx", c.pfc_rx_by_priority), ("tx", c.pfc_tx_by_priority)):
            if values is None:
                yield need(c, f"pfc_{direction}_by_priority")
            elif frames := _grown(values, lossless, lossless=False):
                yield self.issue(
                    c,
                    f"PFC frames {direction} on priorities outside the lossless set: pause"
                    " stops traffic the plan treats as lossy (PFC enabled on the wrong priority)",
                    frames,
                    "PFC only on " + ",".join(map(str, sorted(lossless))),
                )

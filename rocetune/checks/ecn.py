"""RT3xx ECN/WRED rules on switch egress queues (roce-knowledge.md §3.4, R-SW-10..12).

The lossless egress queue of a priority is found through the port's own maps (priority ->
``priority_to_tc`` -> ``tc_to_queue``), never by assuming queue number = priority. Port.ecn
is keyed by egress queue. When the intent declares ``congestion_control: none`` there is no
ECN-based congestion control to feed, so RT301 and RT303 do not apply (RT302 still checks
every profile that is configured).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from rocetune.checks._chain import fmt_ports, options_of, queue_of
from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    port_path,
)
from rocetune.checks.helpers import missing
from rocetune.model import Device, EcnProfile, Port, Severity


def lossless_queues(dev: Device, port: Port, ctx: CheckContext) -> Sequence[int | Missing]:
    """The egress queues of the intent's lossless priorities on ``port`` (each once), and a
    note where the maps do not lead to one, in the order of the priorities.

    Six rules ask for them on every RoCE port, and the ports of a fabric hold a handful of
    distinct map objects: the queues are found once per run for the same maps
    (:func:`_queue_steps`, ``ctx.memo``)."""
    intent, ptc, tc_queue = ctx.intent, port.priority_to_tc, port.tc_to_queue
    queues, steps = ctx.memo(
        "lossless queues",
        (intent, ptc, tc_queue),
        lambda: _queue_steps(intent.lossless_priorities, ptc, tc_queue),
    )
    if steps is None:
        return queues
    return [queue_of(dev.name, port, prio) if q is None else q for prio, q in steps]


_QueueSteps = tuple[tuple[int, ...], tuple[tuple[int, int | None], ...] | None]
"""The queues when every priority leads to one; else None and each step: (priority, its
queue or None where the maps do not lead to one), repeated queues left out."""


def _queue_steps(
    priorities: Iterable[int], ptc: dict[int, int] | None, tc_queue: dict[int, int] | None
) -> _QueueSteps:
    """The queue of each of ``priorities`` through ``priority -> TC -> queue`` (as
    :func:`queue_of` follows them), each queue once."""
    seen: set[int] = set()
    steps: list[tuple[int, int | None]] = []
    for prio in priorities:
        tc = None if ptc is None else ptc.get(prio)
        queue = None if tc is None or tc_queue is None else tc_queue.get(tc)
        if queue is None:
            steps.append((prio, None))
        elif queue not in seen:
            seen.add(queue)
            steps.append((prio, queue))
    queues = tuple(q for _, q in steps if q is not None)
    return queues, None if len(queues) == len(steps) else tuple(steps)


class EcnOnLosslessQueue(PortRule):
    """RT301: every lossless egress queue of a RoCE switch port has an ECN-marking profile."""

    meta = RuleMeta(
        code="RT301",
        name="ecn-on-lossless-queue",
        severity=Severity.ERROR,
        scope="port",
        summary="an ECN profile is bound to the lossless egress queue on every RoCE switch port",
        tags=("ecn", "dcqcn", "lossless"),
        features=("ecn",),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Check the ECN binding of each lossless queue of ``port``."""
        if ctx.intent.congestion_control == "none":
            return
        if port.ecn is None:
            yield missing(dev.name, port, "ecn", "ECN profiles of the egress queues")
            return
        for queue in lossless_queues(dev, port, ctx):
            if isinstance(queue, Missing):
                yield queue
            else:
                yield from self._queue(dev, port, port.ecn, queue)

    def _queue(
        self, dev: Device, port: Port, ecn: dict[int, EcnProfile], queue: int
    ) -> Iterator[Result]:
        profile = ecn.get(queue)
        path = port_path(port, f"ecn.{queue}")
        expected = f"an ECN-marking profile on queue {queue} (the lossless queue of the intent)"
        if profile is None:
            yield Issue(
                message=(
                    f"lossless egress queue {queue} has no ECN profile, so congestion on it is "
                    "signalled only by PFC pauses and DCQCN senders are never slowed down"
                ),
                device=dev.name,
                port=port.name,
                observed=f"queue {queue}: no ECN profile",
                expected=expected,
                path=path,
            )
        elif profile.ecn_mark is None:
            yield missing(dev.name, port, f"ecn.{queue}", f"ECN mode of queue {queue}")
        elif not profile.ecn_mark:
            yield Issue(
                message=(
                    f"ECN profile {profile.name or '(unnamed)'} on lossless egress queue "
                    f"{queue} does not mark ECN, so DCQCN gets no congestion signal from it"
                ),
                device=dev.name,
                port=port.name,
                observed=f"queue {queue}: {profile.name or 'profile'} without ECN marking",
                expected=expected,
                path=path,
            )


@dataclass
class _Use:
    """A distinct ECN profile and where it is bound."""

    profile: EcnProfile
    first_path: str
    ports: list[str]


def _label(profile: EcnProfile, port: Port, queue: int) -> str:
    return profile.name or f"unnamed profile of {port.name} queue {queue}"


def _collect(pairs: Iterable[tuple[Port, int, EcnProfile]]) -> dict[str, _Use]:
    uses: dict[str, _Use] = {}
    for port, queue, profile in pairs:
        key = _label(profile, port, queue)
        use = uses.get(key)
        if use is None:  # made for a profile's first port only (a switch binds one to all)
            use = uses[key] = _Use(profile, port_path(port, f"ecn.{queue}"), [])
        if port.name not in use.ports:
            use.ports.append(port.name)
    return uses


class EcnProfileValid(DeviceRule):
    """RT302: every ECN profile used on the device has 0 < Kmin < Kmax and 0 < Pmax <= 100."""

    meta = RuleMeta(
        code="RT302",
        name="ecn-profile-valid",
        severity=Severity.ERROR,
        scope="device",
        summary="0 < Kmin < Kmax, 0 < Pmax <= 100 %",
        tags=("ecn", "dcqcn"),
        features=("ecn",),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Check each distinct profile bound to any queue of the device."""
        if dev.kind != "switch" or not dev.ports:
            return
        known = [p for p in dev.ports.values() if p.ecn is not None]
        if not known:
            first = next(iter(dev.ports.values()))
            yield missing(dev.name, first, "ecn", "ECN profiles of the egress queues")
            return
        pairs = ((p, q, prof) for p in known for q, prof in (p.ecn or {}).items())
        for name, use in _collect(pairs).items():
            yield from _validate(dev, name, use)


def _validate(dev: Device, name: str, use: _Use) -> Iterator[Result]:
    prof = use.profile
    kmin, kmax, pmax = prof.min_threshold_bytes, prof.max_threshold_bytes, prof.max_probability_pct
    where = f"used on {fmt_ports(use.ports)}"
    if kmin is None or kmax is None or pmax is None:
        yield Missing(
            device=dev.name,
            item=f"ECN profile {name}: Kmin/Kmax/Pmax not in snapshot",
            path=use.first_path,
        )
        return
    if not 0 < kmin < kmax:
        yield Issue(
            message=(
                f"ECN profile {name} ({where}) has Kmin {kmin} B and Kmax {kmax} B; marking "
                "needs 0 < Kmin < Kmax to ramp up between them, otherwise it is all or nothing"
            ),
            device=dev.name,
            observed=f"Kmin {kmin} B, Kmax {kmax} B",
            expected="0 < Kmin < Kmax",
            path=use.first_path,
        )
    if not 0 < pmax <= 100:
        yield Issue(
            message=(
                f"ECN profile {name} ({where}) has a maximum marking probability of {pmax:g} %, "
                "outside 0 < Pmax <= 100 %, so marking is either off or undefined"
            ),
            device=dev.name,
            observed=f"Pmax {pmax:g} %",
            expected="0 < Pmax <= 100 %",
            path=use.first_path,
        )


class EcnMarksOptions(RuleOptions):
    """Options of RT303."""

    flag_red_with_ecn: bool = True
    """Warn when a marking profile also drops early (RED/WRED drop on): non-ECT packets in
    the lossless queue are then dropped (Cumulus: ``ecn enable`` + ``red disable``, S2)."""


class EcnMarks(DeviceRule):
    """RT303: profiles bound to lossless queues mark ECN rather than drop."""

    meta = RuleMeta(
        code="RT303",
        name="ecn-marks",
        severity=Severity.ERROR,
        scope="device",
        summary="the profile marks (ECN) rather than drops (WRED/RED drop only)",
        tags=("ecn", "dcqcn", "lossless"),
        features=("ecn",),
        asserts_absence=True,
    )
    options_model = EcnMarksOptions

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Check each distinct profile bound to a lossless queue of a RoCE port."""
        if dev.kind != "switch" or ctx.intent.congestion_control == "none":
            return
        opts = options_of(ctx, EcnMarksOptions)
        pairs: list[tuple[Port, int, EcnProfile]] = []
        for port in ctx.roce_ports(dev):
            if port.ecn is None:
                yield missing(dev.name, port, "ecn", "ECN profiles of the egress queues")
                continue
            for queue in lossless_queues(dev, port, ctx):
                if isinstance(queue, Missing):
                    yield queue
                elif queue in port.ecn:
                    pairs.append((port, queue, port.ecn[queue]))
        for name, use in _collect(pairs).items():
            yield from _marks(dev, name, use, opts)


def _marks(dev: Device, name: str, use: _Use, opts: EcnMarksOptions) -> Iterator[Result]:
    prof = use.profile
    where = f"on the lossless queue of {fmt_ports(use.ports)}"
    if prof.ecn_mark is None:
        yield Missing(dev.name, f"ECN profile {name}: ECN mode not in snapshot", use.first_path)
    elif not prof.ecn_mark:
        yield Issue(
            message=(
                f"ECN profile {name} ({where}) drops instead of marking ECN, so RoCE packets "
                "are lost and retransmitted (go-back-N) instead of slowing the sender"
            ),
            device=dev.name,
            observed=f"{name}: drop only (ECN marking off)",
            expected="ECN marking on (SONiC ecn_all/ecn_green, Cumulus ecn enable)",
            path=use.first_path,
        )
    elif opts.flag_red_with_ecn and prof.red_drop is None:
        yield Missing(
            dev.name,
            f"ECN profile {name}: whether it also drops non-ECT packets early (RED drop) is "
            "not in the snapshot or not documented for the platform",
            use.first_path,
        )
    elif opts.flag_red_with_ecn and prof.red_drop:
        yield Issue(
            message=(
                f"ECN profile {name} ({where}) marks ECN but also drops early, so any non-ECT "
                "packet in the lossless queue is dropped"
            ),
            device=dev.name,
            observed=f"{name}: ECN marking and RED drop",
            expected="ECN marking with RED drop off",
            path=use.first_path,
            severity=Severity.WARNING,
            asserts_absence=False,
        )

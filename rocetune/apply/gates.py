"""The checks that gate a confirm (and prove a rollback).

Each gate compares what the device was before the change (``pre``: the snapshot collected
at precheck) with what it is now (``post``: re-collected after arming) and returns a
:class:`Gate` that passed, failed or could not be verified (data missing: the record and the
progress say so; it never counts as passed). In order:

1. ``config``: the running config equals the plan applied: the RoCE-relevant model of
   ``post`` has no difference from the model of ``pre`` with the plan replayed.
2. ``audit``: the findings the plan's changes were made for are gone, and no new error.
3. ``counters``: PFC watchdog/storm events and lossless-priority drops did not grow.
4. ``lldp``: the LLDP neighbours are the same.
5. ``verify``: on the canary, ``rocetune verify`` on the given host pairs passed.

A rollback is proven by :func:`same_state` (model of the re-collection equals the model of
``pre``), the only trustworthy criterion on every platform (docs/apply.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rocetune.fingerprint import fingerprint
from rocetune.model import Device, Finding, Intent, PortCounters, Severity
from rocetune.statediff import Focus, compare_devices

Status = Literal["pass", "fail", "unverified"]


@dataclass(frozen=True)
class Gate:
    """One gate's verdict."""

    name: str
    status: Status
    detail: str = ""


@dataclass
class Observation:
    """What is known of a device at one moment."""

    model: Device
    config_hash: str
    findings: list[Finding] = field(default_factory=list)
    counters: list[PortCounters] | None = None
    counters_note: str = ""
    """Why ``counters`` is None or partial (no reader, a refused command, unread kinds)."""


def _focus(intent: Intent) -> Focus:
    dscps = tuple(sorted({*intent.roce_dscp, intent.cnp.dscp}))
    lossless = tuple(sorted(intent.lossless_priorities))
    prios = tuple(sorted({*lossless, intent.cnp.priority}))
    return Focus(dscps, prios, lossless)


def differences(a: Device, b: Device, intent: Intent) -> list[str]:
    """RoCE-relevant differences between two models of one device, in words."""
    return [str(c) for c in compare_devices(a, b, _focus(intent))]


def same_state(a: Observation, b: Observation, intent: Intent) -> tuple[bool, str]:
    """Whether two observations of a device are the same config (hash, else RoCE model)."""
    if a.config_hash == b.config_hash:
        return True, "config hash equal"
    diff = differences(a.model, b.model, intent)
    if not diff:
        return True, "RoCE settings equal (config text differs outside them)"
    return False, "; ".join(diff[:5]) + (f" (+{len(diff) - 5} more)" if len(diff) > 5 else "")


def config_gate(post: Observation, intended: Device, intent: Intent) -> Gate:
    """``post`` runs the plan applied (no RoCE-relevant difference from the replay)."""
    diff = differences(intended, post.model, intent)
    if diff:
        more = f" (+{len(diff) - 3} more)" if len(diff) > 3 else ""
        return Gate("config", "fail", "differs from the plan: " + "; ".join(diff[:3]) + more)
    return Gate("config", "pass", "running config equals the plan applied")


def _key(f: Finding) -> tuple[str, str, str, str]:
    return (f.code, f.port or "", f.link or "", f.severity.value)


def link_devices(label: str | None) -> set[str]:
    """``devA:portX--devB:portY`` -> {devA, devB}."""
    return {end.split(":", 1)[0] for end in (label or "").split("--") if end}


def audit_gate(
    pre: Observation,
    post: Observation,
    planned: frozenset[str],
    waiting: frozenset[str] = frozenset(),
) -> Gate:
    """The planned findings are gone and no new error appeared.

    A new error on a link whose other end is a planned device not applied yet (``waiting``:
    a later wave) is expected until that end changes too; it is named, not a failure.
    """
    still = sorted({f.code for f in post.findings if fingerprint(f) in planned})
    before = {_key(f) for f in pre.findings}
    new = [f for f in post.findings if f.severity == Severity.ERROR and _key(f) not in before]
    later = [f for f in new if link_devices(f.link) & waiting]
    new = [f for f in new if f not in later]
    problems = []
    if still:
        problems.append("planned findings still there: " + ", ".join(still))
    if new:
        names = sorted({f"{f.code} {f.port or f.link or ''}".strip() for f in new})
        problems.append("new errors: " + ", ".join(names[:5]))
    if problems:
        return Gate("audit", "fail", "; ".join(problems))
    detail = f"{len(planned)} planned finding(s) gone, no new error"
    if later:
        ends = sorted({d for f in later for d in link_devices(f.link) & waiting})
        detail += f" ({len(later)} link error(s) expected until {', '.join(ends)} is applied)"
    return Gate("audit", "pass", detail)


def _grew(a: int | None, b: int | None) -> int | None:
    if a is None or b is None or b < a:
        return None
    return b - a


@dataclass(frozen=True)
class CounterLimits:
    """How much each counter may grow between the baseline (read before arming) and the
    re-read after arming, per port (docs/apply.md, "Counter gate"; ``rocetune apply
    --max-lossless-drops/--max-pfc-storms/--max-pause-frames``)."""

    drops: int = 0
    """Drops on a lossless priority (queue / PG / NIC priority discards)."""
    storms: int = 0
    """PFC watchdog storm / deadlock / NIC pause-storm events."""
    pause: int | None = None
    """PFC frames sent or received on a lossless priority; None: not gated (pause frames
    are normal under load), the growth is only reported."""


_KINDS = {"storms": "PFC watchdog/storm events", "drops": "lossless-priority drops"}


def _priority_growth(
    old: dict[int, int] | None, new: dict[int, int] | None, lossless: Sequence[int]
) -> dict[int, int] | None:
    """Growth per lossless priority; None when either read lacks the counter."""
    if old is None or new is None:
        return None
    out = {}
    for p in lossless:
        grew = _grew(old.get(p), new.get(p))
        if grew is not None:
            out[p] = grew
    return out


def counters_gate(
    pre: Observation,
    post: Observation,
    lossless: Sequence[int],
    limits: CounterLimits | int = CounterLimits(),
) -> Gate:
    """PFC watchdog/storm events, lossless drops (and, when limited, PFC frames) did not
    grow beyond ``limits`` on any port. Unverified, naming what, where the platform's
    counters do not give a kind (or the device has no counter reader)."""
    if isinstance(limits, int):
        limits = CounterLimits(drops=limits)
    if pre.counters is None or post.counters is None:
        why = pre.counters_note or post.counters_note or "no counter reader for this platform"
        return Gate("counters", "unverified", why)
    base = {(c.device, c.port): c for c in pre.counters}
    problems: list[str] = []
    read: set[str] = set()
    compared = 0
    paused = 0
    for now in post.counters:
        old = base.get((now.device, now.port))
        if old is None:
            continue
        compared += 1
        storms = _grew(old.storm_events, now.storm_events)
        if old.storm_events is not None and now.storm_events is not None:
            read.add("storms")
        if storms and storms > limits.storms:
            problems.append(f"{now.port}: {storms} PFC storm/watchdog event(s)")
        drops = _priority_growth(old.discards_by_priority, now.discards_by_priority, lossless)
        if drops is not None:
            read.add("drops")
            for p, n in sorted(drops.items()):
                if n > limits.drops:
                    problems.append(f"{now.port}: {n} drop(s) on lossless priority {p}")
        for label, a, b in (
            ("sent", old.pfc_tx_by_priority, now.pfc_tx_by_priority),
            ("received", old.pfc_rx_by_priority, now.pfc_rx_by_priority),
        ):
            grew = _priority_growth(a, b, lossless) or {}
            paused += sum(grew.values())
            for p, n in sorted(grew.items()):
                if limits.pause is not None and n > limits.pause:
                    problems.append(f"{now.port}: {n} PFC frame(s) {label} on priority {p}")
    if problems:
        more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
        return Gate("counters", "fail", "; ".join(problems[:5]) + more)
    if compared == 0:
        return Gate("counters", "unverified", "no port counters to compare")
    missing = [text for kind, text in _KINDS.items() if kind not in read]
    note = f"; {post.counters_note}" if post.counters_note else ""
    seen = f"{compared} port(s): no growth beyond the limits ({paused} PFC frame(s))"
    if missing:
        return Gate("counters", "unverified", f"{seen}; not read: {', '.join(missing)}{note}")
    return Gate("counters", "pass", seen + note)


def lldp_gate(pre: Observation, post: Observation) -> Gate:
    """The LLDP neighbours did not change."""
    a, b = pre.model.lldp, post.model.lldp
    if a is None or b is None:
        return Gate("lldp", "unverified", "LLDP not collected")
    old = {(n.local_port, n.remote_name, n.remote_port) for n in a}
    new = {(n.local_port, n.remote_name, n.remote_port) for n in b}
    if old == new:
        return Gate("lldp", "pass", f"{len(new)} neighbour(s) unchanged")
    lost = sorted(f"{p}->{n}:{r}" for p, n, r in old - new)
    got = sorted(f"{p}->{n}:{r}" for p, n, r in new - old)
    detail = (f"lost {', '.join(lost[:5])}" if lost else "") + (
        f"{'; ' if lost else ''}new {', '.join(got[:5])}" if got else ""
    )
    return Gate("lldp", "fail", detail)


def passed(gates: Sequence[Gate]) -> bool:
    """No gate failed (unverified gates are recorded, not failures)."""
    return all(g.status != "fail" for g in gates)

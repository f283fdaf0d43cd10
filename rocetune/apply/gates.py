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


def counters_gate(
    pre: Observation, post: Observation, lossless: Sequence[int], max_drops: int = 0
) -> Gate:
    """PFC watchdog/storm events and lossless drops did not grow (beyond ``max_drops``)."""
    if pre.counters is None or post.counters is None:
        return Gate("counters", "unverified", "no counter reader for this platform")
    base = {(c.device, c.port): c for c in pre.counters}
    problems: list[str] = []
    compared = 0
    for now in post.counters:
        old = base.get((now.device, now.port))
        if old is None:
            continue
        compared += 1
        storms = _grew(old.storm_events, now.storm_events)
        if storms:
            problems.append(f"{now.port}: {storms} PFC storm/watchdog event(s)")
        for p in lossless:
            a = (old.discards_by_priority or {}).get(p)
            b = (now.discards_by_priority or {}).get(p)
            drops = _grew(a, b)
            if drops is not None and drops > max_drops:
                problems.append(f"{now.port}: {drops} drop(s) on lossless priority {p}")
    if problems:
        return Gate("counters", "fail", "; ".join(problems[:5]))
    if compared == 0:
        return Gate("counters", "unverified", "no port counters to compare")
    return Gate("counters", "pass", f"{compared} port(s): no storm, no lossless drop")


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

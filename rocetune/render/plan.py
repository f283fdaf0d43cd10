"""``rocetune plan``: per device, the smallest native change set that fixes the findings.

By default a plan is *remediation*: the inventory is audited, every finding at or above
``fail_on`` goes through its rule's remedy (:mod:`rocetune.render.remedy`), and the device's
platform turns the fixes into native changes that edit the running config's own objects in
place (``rocetune/platforms/<p>/remediate.py``). Devices without such a finding get no
change. The plan is then checked (:mod:`rocetune.render.simulate`): the changes are replayed
on the snapshot, re-parsed and re-linted; a change's ``fixes`` are the findings it was made
for that the replay clears, findings the replay clears without a change naming them are
listed as ``also_fixes``, and new findings the changes would raise get their own remedies
once (a follow-up, e.g. the PFC watchdog of a port that PFC was just enabled on) or are
reported. ``converge=True`` is the full template convergence (:mod:`rocetune.render.converge`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rocetune.checks.memo import derive, shared_per_device
from rocetune.errors import RocetuneError
from rocetune.fingerprint import fingerprint, fingerprints
from rocetune.load import read_source
from rocetune.model import Device, Fabric, Finding, Severity
from rocetune.platforms import get_driver
from rocetune.platforms.base import Provenance
from rocetune.platforms.changes import Change, Fix, Planner, PlatformPlan, ordered
from rocetune.render.device_plan import DevicePlan, Unfixed
from rocetune.render.remedy import no_remedy_reason, remediation, rt705_rules
from rocetune.render.simulate import Lint, Recheck, compare, key, reparse, with_devices
from rocetune.snapshot import Snapshot


def planner(platform: str) -> Planner | None:
    """The planner of ``platform`` (None: no change-set support)."""
    driver = get_driver(platform)
    return driver.planner if driver is not None else None


def _planner(platform: str) -> Planner:
    got = planner(platform)
    if got is None:
        raise RocetuneError(f"platform {platform!r} has no change-set support")
    return got


@dataclass
class PlanReport:
    """Every device's plan plus what the whole plan does fabric-wide."""

    devices: list[DevicePlan]
    errors: list[RocetuneError]
    mode: Literal["remediate", "converge"] = "remediate"
    fail_on: Severity = Severity.ERROR
    also_fixes: list[str] = field(default_factory=list)
    """Fabric-level fingerprints cleared only when every device's plan is applied."""
    codes: dict[str, str] = field(default_factory=dict)
    """Fingerprint -> rule code of every finding in scope (for summaries)."""
    new_findings: list[Finding] = field(default_factory=list)
    """Findings the whole replayed plan raises on no planned device (fabric-level)."""
    unfixed: list[Unfixed] = field(default_factory=list)
    """Findings in scope on no planned device (fabric-level) that the plan does not clear."""


_VOLATILE = re.compile(r"^!\s*(Time:|Running configuration last done at|Last configuration change)")


def config_hash(platform: str, snapshot: Snapshot) -> str:
    """SHA-256 of the config files a plan reads (volatile timestamp comment lines dropped).

    The platform's ``Planner.config_files`` (hosts: the outputs the commands change,
    ``mlnx_qos``, ``/sys/class/net``, ``mlxconfig``, ``cma_roce_*``, ``ethtool -a``), else
    every snapshot file except JSON/text of operational commands (one file for SONiC, NVUE,
    EOS and NX-OS configs).
    """
    digest = hashlib.sha256()
    got = planner(platform)
    prefixes = got.config_files if got is not None else None
    for name in sorted(snapshot.files):
        if prefixes is not None and not name.startswith(prefixes):
            continue
        if prefixes is None and any(w in name for w in ("lldp", "interface", "status")):
            continue
        text = "\n".join(
            ln for ln in snapshot.files[name].text.splitlines() if not _VOLATILE.match(ln)
        )
        digest.update(name.encode() + b"\0" + text.encode("utf-8") + b"\0")
    return "sha256:" + digest.hexdigest()


def read_snapshot(path: Path, platform: str | None) -> Snapshot:
    """A device's saved running config (a snapshot directory or one file)."""
    got = read_source(path, platform)
    if isinstance(got, str):
        raise RocetuneError(got, file=path)
    return got[1]


@dataclass
class _Ctx:
    fabric: Fabric
    provenance: dict[str, Provenance]
    baseline: list[Finding]
    audited: dict[object, str]
    """The audit's fingerprints by (key, observed) (:func:`_value_key`)."""
    fail_on: Severity
    lint: Lint
    neighbours: dict[str, set[str]] = field(default_factory=dict)
    recheck: Recheck | None = None

    def fp(self, finding: Finding) -> str:
        """The audit's fingerprint of a finding of a re-lint."""
        return self.audited.get(_value_key(finding)) or fingerprint(finding)

    def region(self, name: str) -> frozenset[str]:
        """The devices a change of ``name`` can change findings on: itself and the devices
        linked to it (a port, device or link rule reads its device and their neighbours)."""
        return frozenset({name, *self.neighbours.get(name, ())})

    def check(
        self, name: str, replayed: Device, prov: Provenance
    ) -> tuple[Fabric, list[Finding], list[Finding]]:
        """The fabric with ``name`` replayed, and the findings before and after, both
        re-linted over :meth:`region` only (fabric-wide rules still see every device), so
        a device's check costs its neighbourhood, not the fabric."""
        only = self.region(name)
        fabric = with_devices(self.fabric, {name: replayed})
        derive(fabric.devices, self.fabric.devices, {name})
        provenance = {**self.provenance, name: prov}
        if self.recheck is not None:
            before, after = self.recheck(self.fabric, fabric, (self.provenance, provenance), only)
            return fabric, before, after
        before = self.lint(self.fabric, self.provenance, only)
        after = self.lint(fabric, provenance, only)
        return fabric, before, after


def _neighbours(fabric: Fabric) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for link in fabric.links:
        out.setdefault(link.a.device, set()).add(link.b.device)
        out.setdefault(link.b.device, set()).add(link.a.device)
    return out


def _intended(fabric: Fabric, name: str) -> Callable[[], dict[str, str]]:
    """The device's intended config files, rendered when a remedy asks for them (SONiC's
    cable-length fix): the renderer and Jinja are imported then, not for every plan."""

    def render() -> dict[str, str]:
        from rocetune.render.run import render_device

        got = render_device(fabric, name)
        if got.status != "rendered":
            raise RocetuneError(f"{name}: {got.message}")
        return {f.path: f.text for f in got.files}

    return render


def _replay(
    ctx: _Ctx, name: str, snap: Snapshot, changes: list[Change]
) -> tuple[Device, Provenance]:
    device = ctx.fabric.devices[name]
    patched = _planner(device.platform).simulate(snap, [c.text for c in changes])
    return reparse(device, patched)


_Replayed = tuple[list[str], Device, Provenance]
"""A replay: the change texts in the order replayed, the device and its provenance."""


def _plan_device(
    ctx: _Ctx, name: str, snap: Snapshot, fixes: list[Fix]
) -> tuple[DevicePlan, _Replayed | None]:
    """The device's plan and its changes' last replay (None: not replayed)."""
    device = ctx.fabric.devices[name]
    remedy = _planner(device.platform).remediate
    intended = _intended(ctx.fabric, name)
    got = remedy(fixes, snap, device, intended)
    try:
        replayed, prov = _replay(ctx, name, snap, got.changes)
    except (ValueError, RocetuneError) as exc:
        return _unverified(ctx, name, snap, got, exc), None
    fabric, before, after = ctx.check(name, replayed, prov)
    outcome = compare(before, after)
    followups = [f for f in outcome.new if f.device == name and not f.link]
    if followups:
        extra = remediation(followups, fabric, Severity.WARNING)
        more = [
            Fix(x.device, x.port, x.setting, x.value, None, x.code, f"{x.code} (raised otherwise)")
            for x in extra.fixes.get(name, [])
        ]
        if more:
            got = remedy(fixes + more, snap, device, intended)
            replayed, prov = _replay(ctx, name, snap, got.changes)
            fabric, before, after = ctx.check(name, replayed, prov)
            outcome = compare(before, after)
    last = ([c.text for c in got.changes], replayed, prov)
    return _labelled(ctx, name, snap, got, outcome), last


def _unverified(
    ctx: _Ctx, name: str, snap: Snapshot, got: PlatformPlan, exc: Exception
) -> DevicePlan:
    """The remedies' changes, labelled with the findings they were made for (not replayed)."""
    device = ctx.fabric.devices[name]
    changes = ordered(got.changes)
    return DevicePlan(
        name,
        device.platform,
        "changes" if changes else "no-change",
        changes=changes,
        rollback=[c.rollback for c in reversed(changes) if c.rollback],
        hint=got.hint,
        notes=[*got.notes, f"not replayed, so the fixes are unverified: {exc}"],
        config_hash=config_hash(device.platform, snap),
    )


def _labelled(
    ctx: _Ctx, name: str, snap: Snapshot, got: PlatformPlan, outcome: object
) -> DevicePlan:
    from rocetune.render.simulate import Outcome

    assert isinstance(outcome, Outcome)
    cleared = {ctx.fp(f) for f in outcome.cleared}
    claimed: set[str] = set()
    changes: list[Change] = []
    for c in ordered(got.changes):
        fixes = tuple(sorted(fp for fp in c.fixes if fp in cleared))
        claimed.update(fixes)
        changes.append(Change(c.text, c.kind, c.port, c.rollback, fixes, c.codes, c.because))
    device = ctx.fabric.devices[name]
    return DevicePlan(
        name,
        device.platform,
        "changes" if changes else "no-change",
        changes=changes,
        rollback=[c.rollback for c in reversed(changes) if c.rollback],
        hint=got.hint,
        notes=list(got.notes),
        config_hash=config_hash(device.platform, snap),
        also_fixes=sorted(cleared - claimed),
    )


def _claimed(d: DevicePlan) -> set[str]:
    return {*d.also_fixes, *(fp for c in d.changes for fp in c.fixes)}


def _unfixed(report: PlanReport, in_scope: Iterable[Finding], fps: dict[int, str]) -> None:
    done = {fp for d in report.devices for c in d.changes for fp in c.fixes}
    done.update(fp for d in report.devices for fp in d.also_fixes)
    done.update(report.also_fixes)
    by_name = {d.name: d for d in report.devices}
    for f in in_scope:
        fp = fps[id(f)]
        if fp in done or (f.device and f.device not in by_name):
            continue
        target = by_name.get(f.device or "")
        why = no_remedy_reason(f)
        if target is not None and any(f.code in c.codes for c in target.changes):
            why = "the planned changes do not clear it when replayed (see notes)"
        elif target is not None and any(n.startswith(f"{f.code}: ") for n in target.notes):
            why = "its fix has no native form on this platform yet (see notes)"
        item = Unfixed(fp, f, why)
        (target.unfixed if target is not None else report.unfixed).append(item)


@dataclass(frozen=True)
class Source:
    """Where one inventory device's running config is saved."""

    name: str
    platform: str | None
    snapshot: Path | str | None


def plan_fabric(  # noqa: PLR0917
    fabric: Fabric,
    findings: list[Finding],
    provenance: dict[str, Provenance],
    sources: list[Source],
    lint: Lint,
    fail_on: Severity = Severity.ERROR,
    *,
    converge: bool = False,
    devices: Iterable[str] = (),
    recheck: Recheck | None = None,
    summary: bool = True,
    settle: Callable[[], None] | None = None,
    baseline: list[Finding] | None = None,
) -> PlanReport:
    """Plan every device of ``sources`` (or only ``devices``) from an audit's results.

    The re-checks of the replays share the per-device part of fabric-wide rules
    (:func:`rocetune.checks.memo.shared_per_device`): each re-check of a fabric with one
    device replaced recomputes only that device's part. ``recheck``: the re-check of one
    replayed device in delta form (both fabrics' findings where they can differ, see
    :class:`rocetune.render.simulate.Recheck`); None: ``lint`` of both fabrics.
    ``summary``: False skips the fabric-level part (``lint`` of the fabric before and with
    every change replayed at once: ``also_fixes``, new findings, their notes), for callers
    that read only each device's changes (the reports' ``fix:`` lines). ``settle``: called
    after each device's plan (rocetune.api.parsing.frozen's: what the plan keeps so far is
    not re-scanned by the cyclic collector's full passes, which grew with the plan).
    ``baseline``: ``lint(fabric, provenance)`` when the caller has it (the audit's own
    findings, when it ran ``lint``'s rules with their defaults and nothing was suppressed);
    None: the summary lints the fabric for it."""
    with shared_per_device():
        return _plan_fabric(
            fabric,
            findings,
            provenance,
            sources,
            lint,
            fail_on,
            converge,
            set(devices),
            recheck,
            summary,
            settle=settle,
            baseline=baseline,
        )


def _plan_fabric(  # noqa: PLR0917
    fabric: Fabric,
    findings: list[Finding],
    provenance: dict[str, Provenance],
    sources: list[Source],
    lint: Lint,
    fail_on: Severity,
    converge: bool,
    wanted: set[str],
    recheck: Recheck | None = None,
    summary: bool = True,
    *,
    settle: Callable[[], None] | None = None,
    baseline: list[Finding] | None = None,
) -> PlanReport:
    """:func:`plan_fabric`'s body."""
    unknown = wanted - {s.name for s in sources}
    if unknown:
        raise RocetuneError(f"--device {', '.join(sorted(unknown))}: not in the inventory")
    fps = dict(zip((id(f) for f in findings), fingerprints(findings), strict=True))
    report = PlanReport([], [], "converge" if converge else "remediate", fail_on)
    rem = remediation(findings, fabric, fail_on)
    report.codes = {fps[id(f)]: f.code for f in rem.in_scope}
    by_print = _first_by(findings, fps, fingerprint)
    fixes = {
        dev: [
            Fix(
                x.device,
                x.port,
                x.setting,
                x.value,
                by_print.get(x.fingerprint, x.fingerprint),
                x.code,
            )
            for x in got
        ]
        for dev, got in rem.fixes.items()
    }
    if not summary:
        baseline = []
    elif baseline is None:
        baseline = lint(fabric, provenance)
    by_value = _first_by(findings, fps, _value_key)
    ctx = _Ctx(fabric, dict(provenance), baseline, by_value, fail_on, lint)
    ctx.neighbours = _neighbours(fabric)
    ctx.recheck = recheck
    patched: dict[str, tuple[Device, Provenance]] | None = {} if summary else None
    for src in sources:
        if wanted and src.name not in wanted:
            continue
        report.devices.append(
            _one(ctx, src.name, src.platform, src.snapshot, fixes, converge, patched)
        )
        if settle is not None:
            settle()
    if patched and not converge:  # the summary: every change replayed at once
        everything = with_devices(fabric, {n: d for n, (d, _) in patched.items()})
        prov = {**ctx.provenance, **{n: p for n, (_, p) in patched.items()}}
        outcome = compare(ctx.baseline, lint(everything, prov))
        seen = {fp for d in report.devices for fp in _claimed(d)}
        report.also_fixes = sorted(ctx.fp(f) for f in outcome.cleared if ctx.fp(f) not in seen)
        by_name = {d.name: d for d in report.devices}
        for f in outcome.new:
            target = by_name.get(f.device or "")
            (target.new_findings if target is not None else report.new_findings).append(f)
            same = _same_cause(f, ctx.baseline)
            if target is not None and same:
                target.notes.append(
                    f"{f.code} raised by the plan repeats {same} on {f.device}, reported before "
                    "the plan: the same setting, which differs from the intent (and after the "
                    "plan from the majority too)"
                )
    if not converge:
        _unfixed(report, rem.in_scope, fps)
    return report


def _value_key(f: Finding) -> tuple[object, ...]:
    """A finding's identity across a replay (:func:`key`) plus its observed value."""
    return (*key(f), f.observed)


def _same_cause(new: Finding, baseline: Iterable[Finding]) -> str:
    """For a fabric-uniformity finding (RT705) a plan raises: the findings of the device that
    already reported that setting against the intent ("RT207 (warning)"), else ''."""
    if new.code != "RT705":
        return ""
    rules = set(rt705_rules(new))
    got = sorted(
        {f"{f.code} ({f.severity.value})" for f in baseline if f.device == new.device}
        & {f"{r} ({sev.value})" for r in rules for sev in Severity}
    )
    return ", ".join(got)


def _first_by(
    findings: list[Finding], fps: dict[int, str], by: Callable[[Finding], object]
) -> dict[object, str]:
    """``by(f)`` -> the run fingerprint of the first finding with that value (one pass, so
    matching the remedies' and the replay's findings to the audit's is linear)."""
    out: dict[object, str] = {}
    for f in findings:
        out.setdefault(by(f), fps[id(f)])
    return out


def _one(  # noqa: PLR0917
    ctx: _Ctx,
    name: str,
    platform: str | None,
    source: Path | str | None,
    fixes: dict[str, list[Fix]],
    converge: bool,
    patched: dict[str, tuple[Device, Provenance]] | None,
) -> DevicePlan:
    device = ctx.fabric.devices.get(name)
    if device is None or source is None:
        return DevicePlan(name, platform, "skipped", "not parsed (see the audit)")
    if planner(device.platform) is None:
        return DevicePlan(name, device.platform, "skipped", "no change-set support")
    try:
        snap = read_snapshot(Path(source), platform)
        if not converge and not fixes.get(name):
            why = f"no finding at or above {ctx.fail_on.value} to fix"
            digest = config_hash(device.platform, snap)
            return DevicePlan(name, device.platform, "no-change", why, config_hash=digest)
        if converge:
            from rocetune.render.converge import plan_device

            got = plan_device(name, device, snap, ctx.fabric)
            got.config_hash = config_hash(device.platform, snap)
            return got
        plan, last = _plan_device(ctx, name, snap, fixes[name])
        replayed = not any(n.startswith("not replayed") for n in plan.notes)
        if patched is not None and plan.changes and replayed:
            # the check's replay when it replayed the plan's changes in the plan's order
            # (ordered() moves disruptive ones last); else the plan's changes replayed again
            if last is not None and last[0] == [c.text for c in plan.changes]:
                patched[name] = (last[1], last[2])
            else:
                patched[name] = _replay(ctx, name, snap, plan.changes)
        return plan
    except (ValueError, RocetuneError) as exc:
        return DevicePlan(name, device.platform, "error", f"{name}: {exc}")

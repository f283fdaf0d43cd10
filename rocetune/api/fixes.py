"""The ``fix:`` lines of the reports: the remediation plan's changes per finding.

:func:`attach_fixes` plans the remediation of an audit (``rocetune plan --fail-on info``)
from the snapshots its findings were read from. With the run's parse cache, the result is
kept beside the cache's entries under a key of everything the plan reads
(:mod:`rocetune.api.fixcache`): a repeated audit of unchanged inputs neither plans nor
imports the renderer or a platform package.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.model import AuditResult, Fabric, Finding, Severity

if TYPE_CHECKING:
    from rocetune.api import fixcache
    from rocetune.parsecache import ParseCache
    from rocetune.platforms.base import Provenance
    from rocetune.render.plan import PlanReport, Source
    from rocetune.render.simulate import Lint


def replay_lint(
    fabric: Fabric, provenance: dict[str, Provenance], only: frozenset[str] | None = None
) -> list[Finding]:
    """Every rule (the default audit selection) on ``fabric``: the plan's replay check
    (``only``: a changed device and its neighbours, see rocetune.render.simulate.Lint)."""
    from rocetune.api.audits import _check
    from rocetune.engine import Selection

    return _check(fabric, provenance, Selection(), None, only)


def replay_recheck(
    before: Fabric,
    after: Fabric,
    provenance: tuple[dict[str, Provenance], dict[str, Provenance]],
    only: frozenset[str],
) -> tuple[list[Finding], list[Finding]]:
    """The plan's re-check of one replayed change (rocetune.render.plan.Recheck): the
    default audit selection on the fabric before and after, restricted to the devices where
    they can differ (:func:`rocetune.engine.recheck`), with the audit's own check records
    (rocetune.checkcache.kept) of the subjects the change leaves alone."""
    from rocetune.checkcache import Replayed, kept
    from rocetune.checks.registry import all_rules
    from rocetune.engine import MISSING_CODE, Selection, SubjectStore, recheck, select_rules

    rules = select_rules(all_rules(), Selection())
    report = any(r.meta.code == MISSING_CODE for r in rules)
    store = kept(before)  # the audit's records: the subjects the change leaves alone
    stores: tuple[SubjectStore | None, SubjectStore | None] = (None, None)
    if store is not None:
        changed = frozenset(n for n in only if after.devices.get(n) is not before.devices.get(n))
        stores = (Replayed(store), Replayed(store, changed))
    return recheck(
        before, after, rules, None, provenance, only=only, report_missing=report, stores=stores
    )


def plan_audited(
    result: AuditResult,
    sources: list[Source],
    lint: Lint,
    fail_on: Severity,
    *,
    converge: bool = False,
    devices: Iterable[str] = (),
    summary: bool = True,
    findings: list[Finding] | None = None,
    baseline: list[Finding] | None = None,
) -> PlanReport:
    """The remediation (or ``converge``) plan of ``sources`` from the audit ``result``: each
    replayed change re-checked in delta form (:func:`replay_recheck`), with the audited
    fabric, and each device's plan once made, kept out of the cyclic collector's scans
    (:func:`rocetune.api.parsing.frozen`), and the whole-fabric results of the audit's own
    run given to the re-checks (:func:`rocetune.checks.memo.kept`). ``rocetune plan`` and
    the ``fix:`` lines both plan this way. ``findings``: the audit's findings the plan
    reads (default: all of them; see :func:`_near`). ``baseline``: what ``lint`` finds on
    the audited fabric, when the caller knows it is the audit's findings
    (:func:`rocetune.render.plan.plan_fabric`)."""
    from contextlib import nullcontext

    from rocetune.api.parsing import frozen
    from rocetune.checks.memo import kept, shared_per_device
    from rocetune.render.plan import plan_fabric

    audited = kept(result.fabric)
    with frozen() as settle, shared_per_device(audited) if audited else nullcontext():
        return plan_fabric(
            result.fabric,
            result.findings if findings is None else findings,
            dict(result.provenance),
            sources,
            lint,
            fail_on,
            converge=converge,
            devices=devices,
            recheck=replay_recheck,
            summary=summary,
            settle=settle,
            baseline=baseline,
        )


def _saved_source(result: AuditResult, name: str) -> Path | None:
    """Where device ``name`` of ``result`` was read from: its snapshot directory (named by
    its provenance, or the directory with ``meta.json`` holding the file it names) or its
    one saved file."""
    prov = result.provenance.get(name)
    ref = prov.lookup(None) if prov is not None else None
    if ref is None or not ref.file:
        return None
    file = Path(ref.file)
    if file.is_dir():
        return file
    if (file.parent / "meta.json").is_file():
        return file.parent
    return file if file.is_file() else None


def _region_lint(
    fabric: Fabric, provenance: dict[str, Provenance], only: frozenset[str] | None = None
) -> list[Finding]:
    """The plan's replay check for :func:`attach_fixes`: a device's re-check (``only``: the
    device and its link neighbours, fabric-wide rules over the whole fabric) as the plan
    makes it. The plan's whole-fabric runs (its baseline and the replay of every change
    together) only give its fabric-level summary (``also_fixes``, new findings, notes), never
    a change's text or the findings a change clears, so they are not run here."""
    if only is None:
        return []
    return replay_lint(fabric, provenance, only)


def planned_devices(result: AuditResult, related: dict[str, list[Finding]]) -> list[str]:
    """The devices whose plan can have a change, in fabric order: a finding on the device
    (the plan's sources) and a finding with a remedy on it or on one of its links (the
    remedies fix the device a finding names or its link's ends; no fix, no change)."""
    from rocetune.render.remedy import REMEDIES

    with_findings = {f.device for f in result.findings}
    return [
        name
        for name in result.fabric.devices
        if name in with_findings and any(f.code in REMEDIES for f in related.get(name, ()))
    ]


def attach_fixes(
    result: AuditResult, cache: ParseCache | None = None, processes: int | None = None
) -> None:
    """Fill ``result.fixes`` with the remediation plan's native changes (``rocetune plan``
    at ``--fail-on info``): finding fingerprint -> the text of each change made for it.

    The plan is made from the snapshots the findings were read from; a device without a
    saved source or a planner gets no fix. Planning never changes the audit: when it fails
    (an unreadable source, a planner error) ``result.fixes`` stays empty (``ROCETUNE_DEBUG=1``
    raises instead). ``cache``: the audit's parse cache; each device's plan is kept beside
    its entries, keyed by what that plan reads (:mod:`rocetune.api.fixcache`), so an audit
    plans only the devices whose inputs changed. ``processes``: 1 plans in this process
    only (else two devices or more are planned in two, :func:`_plan_split`).
    """
    import os

    from rocetune.api import fixcache
    from rocetune.report.coverage import real_findings

    if not real_findings(result.findings):
        return
    related = fixcache.related(result)
    names = planned_devices(result, related)
    pack = fixcache.Pack(cache, fixcache.scope(result)) if cache is not None else None
    keys = fixcache.Keys(result, _known_models(result, pack)) if pack is not None else None
    plans: dict[str, fixcache.DeviceFixes] = {}
    todo: dict[str, str | None] = {}
    for name in names:
        key = keys.device(name, related.get(name, [])) if keys is not None else None
        got = pack.get(name, key) if pack is not None and key is not None else None
        if got is not None:
            plans[name] = got
        else:
            todo[name] = key
    if todo:
        try:
            made = _plan_split(result, list(todo), processes)
        except Exception:
            if os.environ.get("ROCETUNE_DEBUG"):
                raise
            return
        for name, key in todo.items():
            plan, done = made.get(name, ([], False))
            plans[name] = plan
            if pack is not None and key is not None and done:
                pack.put(name, key, plan)
    if pack is not None and keys is not None:
        pack.save(keys.models)
    result.fixes = merged(plans[n] for n in names if n in plans)


def _known_models(result: AuditResult, pack: fixcache.Pack) -> dict[str, str]:
    """Model key -> digest known before any model is dumped: the pack's, and those the
    audit's check cache read or made (rocetune.checkcache.CheckStore.model_digests)."""
    from rocetune.checkcache import kept

    store = kept(result.fabric)
    return {**pack.models, **store.model_digests()} if store is not None else pack.models


def merged(plans: Iterable[fixcache.DeviceFixes]) -> dict[str, tuple[str, ...]]:
    """Devices' plans (in fabric order) as one fingerprint -> texts map, as one plan of them
    all gives it (a finding fixed on both ends of a link lists both changes)."""
    out: dict[str, list[str]] = {}
    for plan in plans:
        for fp, texts in plan:
            have = out.setdefault(fp, [])
            have.extend(t for t in texts if t not in have)
    return {fp: tuple(texts) for fp, texts in out.items()}


def _plan_split(
    result: AuditResult, names: list[str], processes: int | None
) -> dict[str, tuple[fixcache.DeviceFixes, bool]]:
    """:func:`_plan` of ``names``, every other device in a forked process when there are two
    devices or more and two CPUs (``processes`` 1: this process only). A device's plan
    depends only on the audit and on that device (the ``fix:`` cache keeps plans device by
    device), so the two halves are the plan of all; a half the child did not plan is
    planned here."""
    from rocetune.api.forked import Forked, can_fork
    from rocetune.api.parsing import cpus

    if len(names) < 2 or processes == 1 or cpus() < 2 or not can_fork():
        return _plan(result, names)
    mine, theirs = names[0::2], names[1::2]
    with Forked(lambda: _plan(result, theirs)) as child:
        out = _plan(result, mine)
        got = child.result()
    out.update(got if got is not None else _plan(result, theirs))
    return out


def _plan(result: AuditResult, names: list[str]) -> dict[str, tuple[fixcache.DeviceFixes, bool]]:
    """Plan ``names``: device -> (its plan, whether it may be kept: not an error, which may
    be passing, like an unreadable file). Devices without a saved source get no entry."""
    from rocetune.render.plan import Source

    sources = []
    for name in names:
        src = _saved_source(result, name)
        if src is not None:
            sources.append(Source(name, result.fabric.devices[name].platform, src))
    if not sources:
        return {}
    near = _near(result, {s.name for s in sources})
    report = plan_audited(
        result, sources, _region_lint, Severity.INFO, summary=False, findings=near
    )
    out: dict[str, tuple[fixcache.DeviceFixes, bool]] = {}
    for dev in report.devices:
        mine: dict[str, list[str]] = {}
        for change in dev.changes:
            for fp in change.fixes:
                texts = mine.setdefault(fp.partition(":")[0], [])
                if change.text not in texts:
                    texts.append(change.text)
        out[dev.name] = (list(mine.items()), dev.status != "error")
    return out


def _near(result: AuditResult, names: set[str]) -> list[Finding]:
    """The audit's findings on ``names``, on the devices linked to them, and fabric-level
    ones, in report order: all that a plan of ``names`` without its summary reads. A change
    of a device is made for a finding on it or on one of its links (whose device is the
    link's other end, then); a change's fixes are matched to these findings by fingerprint,
    and a finding's run fingerprint (its occurrence number) depends only on the findings of
    its own device (:func:`rocetune.fingerprint.fingerprints`), so it is the same here as
    over the whole run. A plan of a few devices of a big fleet no longer fingerprints every
    finding of the fleet."""
    near = set(names)
    for link in result.fabric.links:
        if link.a.device in names or link.b.device in names:
            near.update((link.a.device, link.b.device))
    return [f for f in result.findings if f.device is None or f.device in near]

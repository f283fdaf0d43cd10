"""The ``fix:`` lines of the reports: the remediation plan's changes per finding.

:func:`attach_fixes` plans the remediation of an audit (``rocetune plan --fail-on info``)
from the snapshots its findings were read from. With the run's parse cache, the result is
kept beside the cache's entries under a key of everything the plan reads
(:mod:`rocetune.api.fixcache`): a repeated audit of unchanged inputs neither plans nor
imports the renderer or a platform package.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.model import AuditResult, Fabric, Finding, Severity

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache
    from rocetune.platforms.base import Provenance
    from rocetune.render.simulate import Lint


def replay_lint(
    fabric: Fabric, provenance: dict[str, Provenance], only: frozenset[str] | None = None
) -> list[Finding]:
    """Every rule (the default audit selection) on ``fabric``: the plan's replay check
    (``only``: a changed device and its neighbours, see rocetune.render.simulate.Lint)."""
    from rocetune.api.audits import _check
    from rocetune.engine import Selection

    return _check(fabric, provenance, Selection(), None, only)


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


def _local_lint(whole: Fabric) -> Lint:
    """The plan's replay check made local for :func:`attach_fixes`: a fabric with one device
    replaced is re-linted on that device and its link neighbours only (fabric-wide rules and
    every other device keep the findings of the first, full run), so planning N devices
    costs N small runs instead of N full ones (a directory of 56 real configs: 25 s -> ~1 s).
    Any other call (the first run, the whole plan replayed) is a full run.
    """
    from rocetune.checks.registry import all_rules
    from rocetune.engine import Selection, run_checks, select_rules

    rules = select_rules(all_rules(), Selection())
    local = [r for r in rules if r.meta.scope != "fabric"]
    wide = {r.meta.code for r in rules if r.meta.scope == "fabric"}
    first: list[Finding] = []

    def lint(
        fabric: Fabric, provenance: dict[str, Provenance], only: frozenset[str] | None = None
    ) -> list[Finding]:
        if only is not None:  # plan_fabric's own re-check of a device and its neighbours
            return replay_lint(fabric, provenance, only)
        changed = {n for n, d in fabric.devices.items() if whole.devices.get(n) is not d}
        if len(changed) != 1 or not first:
            found = replay_lint(fabric, provenance)
            if not first and not changed:
                first.extend(found)
            return found
        names = set(changed)
        for link in fabric.links:
            ends = {link.a.device, link.b.device}
            if ends & changed:
                names |= ends
        part = fabric.model_copy(
            update={
                "devices": {n: d for n, d in fabric.devices.items() if n in names},
                "links": tuple(x for x in fabric.links if {x.a.device, x.b.device} <= names),
            }
        )
        again = run_checks(part, local, None, provenance)
        kept = [f for f in first if f.device not in names or f.code in wide]
        return [*kept, *again]

    return lint


def attach_fixes(result: AuditResult, cache: ParseCache | None = None) -> None:
    """Fill ``result.fixes`` with the remediation plan's native changes (``rocetune plan``
    at ``--fail-on info``): finding fingerprint -> the text of each change made for it.

    The plan is made from the snapshots the findings were read from; a device without a
    saved source or a planner gets no fix. Planning never changes the audit: when it fails
    (an unreadable source, a planner error) ``result.fixes`` stays empty for the devices it
    could not plan (``ROCETUNE_DEBUG=1`` raises instead). ``cache``: the audit's parse cache;
    the result is kept beside its entries, keyed by everything the plan reads
    (:mod:`rocetune.api.fixcache`), so an audit of unchanged inputs plans nothing.
    """
    import os

    from rocetune.report.coverage import real_findings

    if not real_findings(result.findings):
        return
    with_findings = {f.device for f in result.findings}
    sources: list[tuple[str, str, Path]] = []
    for name, device in result.fabric.devices.items():
        src = _saved_source(result, name) if name in with_findings else None
        if src is not None:
            sources.append((name, device.platform, src))
    if not sources:
        return
    key = None
    if cache is not None:
        from rocetune.api import fixcache

        key = _keyed(result, sources, cache)
        got = fixcache.load(cache, key) if key is not None else None
        if got is not None:
            result.fixes = got
            return
    from rocetune.render.plan import Source, plan_fabric

    try:
        report = plan_fabric(
            result.fabric,
            result.findings,
            dict(result.provenance),
            [Source(*src) for src in sources],
            _local_lint(result.fabric),
            Severity.INFO,
        )
    except Exception:
        if os.environ.get("ROCETUNE_DEBUG"):
            raise
        return
    fixes: dict[str, list[str]] = {}
    for dev in report.devices:
        for change in dev.changes:
            for fp in change.fixes:
                texts = fixes.setdefault(fp.partition(":")[0], [])
                if change.text not in texts:
                    texts.append(change.text)
    result.fixes = {fp: tuple(texts) for fp, texts in fixes.items()}
    if cache is not None and key is not None:
        fixcache.store(cache, key, result.fixes)


def _keyed(
    result: AuditResult, sources: list[tuple[str, str, Path]], cache: ParseCache
) -> str | None:
    """The fixes' cache key (:func:`rocetune.api.fixcache.fixes_key`) over the content of
    the planned sources as stored (read without importing any platform); None when one
    cannot be read (the plan then reports it, nothing is cached)."""
    from rocetune.api import fixcache

    planned = []
    for name, platform, path in sources:
        snap = fixcache.raw_snapshot(path)
        if snap is None:
            return None
        planned.append((name, platform, path, snap))
    return fixcache.fixes_key(result, planned, cache)

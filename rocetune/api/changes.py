"""Render the intended configs of an inventory, and plan the change from the running configs.

Both start from the same audit (:func:`rocetune.api.audits.audit_inventory`). The plan is a
remediation by default: the smallest native change per finding, checked by replaying it on
each device's saved running config (read by :mod:`rocetune.load`) and re-linting with the
engine (:func:`_lint`); ``converge=True`` diffs the running config against the full render.
``render(only_fix=True)`` writes the remediation plan's files.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.api.audits import _check, audit, audit_inventory
from rocetune.engine import Selection
from rocetune.errors import RocetuneError
from rocetune.inventory import load_inventory
from rocetune.model import AuditResult, Fabric, Finding, Severity
from rocetune.platforms.base import Provenance
from rocetune.render.fix_files import fix_files
from rocetune.render.plan import PlanReport, Source, plan_fabric
from rocetune.render.run import DeviceRender, RenderReport, render_fabric, write_report
from rocetune.render.simulate import Lint

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache


def _lint(
    fabric: Fabric, provenance: dict[str, Provenance], only: frozenset[str] | None = None
) -> list[Finding]:
    """Every rule (the default audit selection) on ``fabric``: the plan's replay check
    (``only``: a changed device and its neighbours, see rocetune.render.simulate.Lint)."""
    return _check(fabric, provenance, Selection(), None, only)


def plan(
    inventory: Path | str,
    *,
    fail_on: Severity = Severity.ERROR,
    converge: bool = False,
    devices: tuple[str, ...] | list[str] = (),
    cache: ParseCache | None = None,
) -> PlanReport:
    """Audit ``inventory`` (same parse as audit) and plan every device (inventory read once).

    ``cache``: the audit's parse cache (rocetune.parsecache); replayed snapshots are always
    parsed. Raises RocetuneError when ``devices`` names a device the inventory does not have.
    """
    inv = load_inventory(inventory)
    result = audit_inventory(inv, cache=cache)
    result.inventory = str(inventory)
    sources = [Source(e.name, e.platform, e.snapshot) for e in inv.devices.values()]
    report = plan_fabric(
        result.fabric,
        result.findings,
        dict(result.provenance),
        sources,
        _lint,
        fail_on,
        converge=converge,
        devices=devices,
    )
    report.errors = list(result.errors)
    parsed = set(result.fabric.devices)
    for dev in report.devices:
        status = result.devices.get(dev.name)
        if dev.name not in parsed and status is not None and status.error:
            dev.message = status.error
    return report


def _fix_report(
    inventory: Path | str, fail_on: Severity, cache: ParseCache | None
) -> tuple[RenderReport, list[RocetuneError]]:
    got = plan(inventory, fail_on=fail_on, cache=cache)
    files = fix_files(got)
    out: list[DeviceRender] = []
    for dev in got.devices:
        if dev.status == "error":
            out.append(DeviceRender(dev.name, dev.platform, "error", dev.message))
        elif dev.changes:
            out.append(DeviceRender(dev.name, dev.platform, "rendered", files=files[dev.name]))
        else:
            out.append(DeviceRender(dev.name, dev.platform, "nothing-to-fix", dev.message))
    out.append(DeviceRender("plan", "all devices", "rendered", files=files[""]))
    return RenderReport(out, only_fix=True), got.errors


def render(
    inventory: Path | str,
    out_dir: Path,
    *,
    only_fix: bool = False,
    fail_on: Severity = Severity.ERROR,
    cache: ParseCache | None = None,
) -> tuple[RenderReport, list[RocetuneError]]:
    """Audit ``inventory``, render its devices into ``out_dir``; also the audit's input errors.

    ``only_fix``: the remediation plan's fix and rollback files instead of the full configs
    (:mod:`rocetune.render.fix_files`).
    """
    if only_fix:
        report, errors = _fix_report(inventory, fail_on, cache)
        return write_report(report, out_dir), errors
    result = audit(inventory, cache=cache)
    report = render_fabric(result.fabric, result.findings)
    for problem in result.fabric.problems:
        msg = problem.message
        report.devices.append(DeviceRender(problem.device, problem.platform, "skipped", msg))
    return write_report(report, out_dir), list(result.errors)


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
    from rocetune.engine import run_checks, select_rules

    rules = select_rules(all_rules(), Selection())
    local = [r for r in rules if r.meta.scope != "fabric"]
    wide = {r.meta.code for r in rules if r.meta.scope == "fabric"}
    first: list[Finding] = []

    def lint(
        fabric: Fabric, provenance: dict[str, Provenance], only: frozenset[str] | None = None
    ) -> list[Finding]:
        if only is not None:  # plan_fabric's own re-check of a device and its neighbours
            return _lint(fabric, provenance, only)
        changed = {n for n, d in fabric.devices.items() if whole.devices.get(n) is not d}
        if len(changed) != 1 or not first:
            found = _lint(fabric, provenance)
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


def attach_fixes(result: AuditResult) -> None:
    """Fill ``result.fixes`` with the remediation plan's native changes (``rocetune plan``
    at ``--fail-on info``): finding fingerprint -> the text of each change made for it.

    The plan is made from the snapshots the findings were read from; a device without a
    saved source or a planner gets no fix. Planning never changes the audit: when it fails
    (an unreadable source, a planner error) ``result.fixes`` stays empty for the devices it
    could not plan (``ROCETUNE_DEBUG=1`` raises instead).
    """
    import os

    from rocetune.report.coverage import real_findings

    if not real_findings(result.findings):
        return
    sources = []
    for name, device in result.fabric.devices.items():
        src = _saved_source(result, name)
        if src is not None and any(f.device == name for f in result.findings):
            sources.append(Source(name, device.platform, src))
    if not sources:
        return
    try:
        report = plan_fabric(
            result.fabric,
            result.findings,
            dict(result.provenance),
            sources,
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

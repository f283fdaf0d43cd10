"""Render the intended configs of an inventory, and plan the change from the running configs.

Both start from the same audit (:func:`rocetune.api.audits.audit_inventory`). The plan is a
remediation by default: the smallest native change per finding, checked by replaying it on
each device's saved running config (read by :mod:`rocetune.load`) and re-linting with the
engine (:func:`rocetune.api.fixes.replay_lint`); ``converge=True`` diffs the running config
against the full render.
``render(only_fix=True)`` writes the remediation plan's files.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.api.audits import audit, audit_inventory
from rocetune.api.fixes import plan_audited, replay_lint
from rocetune.api.parsing import frozen
from rocetune.errors import RocetuneError
from rocetune.inventory import load_inventory
from rocetune.model import Severity
from rocetune.render.fix_files import fix_files
from rocetune.render.plan import PlanReport, Source
from rocetune.render.run import DeviceRender, RenderReport, render_fabric, write_report

if TYPE_CHECKING:
    from rocetune.parsecache import ParseCache


def plan(
    inventory: Path | str,
    *,
    fail_on: Severity = Severity.ERROR,
    converge: bool = False,
    devices: tuple[str, ...] | list[str] = (),
    cache: ParseCache | None = None,
    processes: int | None = None,
) -> PlanReport:
    """Audit ``inventory`` (same parse as audit) and plan every device (inventory read once).

    ``cache``: the audit's parse cache (rocetune.parsecache); replayed snapshots are always
    parsed. ``processes``: the audit's parse processes (:func:`rocetune.api.audit`).
    Raises RocetuneError when ``devices`` names a device the inventory does not have.
    """
    inv = load_inventory(inventory)
    result = audit_inventory(inv, cache=cache, processes=processes)
    result.inventory = str(inventory)
    sources = [Source(e.name, e.platform, e.snapshot) for e in inv.devices.values()]
    # the audit ran replay_lint's rules (the defaults): unless the inventory suppressed some
    # of its findings, they are the plan's baseline, which is not linted a second time
    baseline = None if inv.suppressions else result.findings
    report = plan_audited(
        result,
        sources,
        replay_lint,
        fail_on,
        converge=converge,
        devices=devices,
        baseline=baseline,
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
    with frozen():
        report = render_fabric(result.fabric, result.findings)
    for problem in result.fabric.problems:
        msg = problem.message
        report.devices.append(DeviceRender(problem.device, problem.platform, "skipped", msg))
    return write_report(report, out_dir), list(result.errors)

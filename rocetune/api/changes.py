"""Render the intended configs of an inventory, and plan the change from the running configs.

Both start from the same audit (:func:`rocetune.api.audits.audit_inventory`); the plan diffs
each device's saved running config (its snapshot, read by :mod:`rocetune.load`) against the
full render.
"""

from __future__ import annotations

from pathlib import Path

from rocetune.api.audits import audit, audit_inventory
from rocetune.errors import RocetuneError
from rocetune.inventory import load_inventory
from rocetune.load import read_source
from rocetune.render.plan import DevicePlan, plan_device
from rocetune.render.run import DeviceRender, RenderReport, render_fabric, write_report
from rocetune.snapshot import Snapshot


def render(
    inventory: Path | str, out_dir: Path, *, only_fix: bool = False
) -> tuple[RenderReport, list[RocetuneError]]:
    """Audit ``inventory``, render its devices into ``out_dir``; also the audit's input errors."""
    result = audit(inventory)
    report = render_fabric(result.fabric, result.findings, only_fix=only_fix)
    for problem in result.fabric.problems:
        msg = problem.message
        report.devices.append(DeviceRender(problem.device, problem.platform, "skipped", msg))
    return write_report(report, out_dir), list(result.errors)


def plan(inventory: Path | str) -> tuple[list[DevicePlan], list[RocetuneError]]:
    """Audit ``inventory`` (same parse as audit) and plan every device (inventory read once)."""
    inv = load_inventory(inventory)
    result = audit_inventory(inv)
    result.inventory = str(inventory)
    fabric = result.fabric
    out: list[DevicePlan] = []
    for entry in inv.devices.values():
        device = fabric.devices.get(entry.name)
        if device is None or entry.snapshot is None:
            why = result.devices[entry.name].error if entry.name in result.devices else ""
            out.append(DevicePlan(entry.name, entry.platform, "skipped", why or "not parsed"))
            continue
        try:
            snap = _running(Path(entry.snapshot), entry.platform)
        except RocetuneError as exc:
            out.append(DevicePlan(entry.name, entry.platform, "error", str(exc)))
            continue
        out.append(plan_device(entry.name, device, snap, fabric))
    return out, list(result.errors)


def _running(path: Path, platform: str | None) -> Snapshot:
    """The saved running config a plan diffs against."""
    got = read_source(path, platform)
    if isinstance(got, str):
        raise RocetuneError(got, file=path)
    return got[1]

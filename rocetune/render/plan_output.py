"""The plan as text (per device a one-line summary, then the changes) and as stable JSON.

The JSON is the input of ``rocetune apply``; its schema is documented in ``docs/plan.md``
(``format: rocetune-plan/1``). It is deterministic: keys sorted, devices by name, changes in
apply order, ids derived from the device and the change text.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rocetune.fingerprint import fingerprint
from rocetune.model import Finding
from rocetune.platforms.changes import Change
from rocetune.render.device_plan import DevicePlan
from rocetune.render.plan import PlanReport, planner

FORMAT = "rocetune-plan/1"


def change_id(device: str, change: Change) -> str:
    """A stable id: the device and the change text hashed."""
    digest = hashlib.sha256(f"{device}\0{change.text}".encode()).hexdigest()
    return "c-" + digest[:12]


def _native(platform: str | None, texts: list[str]) -> dict[str, Any]:
    got = planner(platform) if platform else None
    if got is not None and got.native == "patch":
        return {"patch": [json.loads(t) for t in texts]}
    return {"commands": [ln for t in texts for ln in t.splitlines()]}


def _safe_apply(platform: str | None) -> str | None:
    """The name of the platform's safe-apply method (docs/plan.md)."""
    got = planner(platform) if platform else None
    return got.safe_apply if got is not None else None


def _finding(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "port": f.port,
        "link": f.link,
        "observed": f.observed,
        "fingerprint": fingerprint(f),
    }


def codes_of(plan: DevicePlan, report: PlanReport) -> list[str]:
    """Rule codes the device's plan fixes (labelled and also-cleared findings in scope)."""
    fps = {fp for c in plan.changes for fp in c.fixes} | set(plan.also_fixes)
    return sorted({report.codes[fp] for fp in fps if fp in report.codes})


def _change_json(plan: DevicePlan, c: Change) -> dict[str, Any]:
    return {
        "id": change_id(plan.name, c),
        "kind": c.kind,
        "port": c.port,
        "fixes": list(c.fixes),
        "codes": list(c.codes),
        "because": c.because,
        "disruptive": c.disruptive,
        "reason": c.reason,
        **_native(plan.platform, [c.text]),
        "rollback": _native(plan.platform, [c.rollback] if c.rollback else []),
    }


def device_json(plan: DevicePlan, report: PlanReport) -> dict[str, Any]:
    """The documented JSON object of one device."""
    return {
        "device": plan.name,
        "platform": plan.platform,
        "status": plan.status,
        "message": plan.message,
        "running_config_hash": plan.config_hash,
        "summary": {
            "changes": len(plan.changes),
            "disruptive": sum(c.disruptive for c in plan.changes),
            "fixes": codes_of(plan, report),
        },
        "changes": [_change_json(plan, c) for c in plan.changes],
        "rollback": _native(plan.platform, plan.rollback),
        "safe_apply": {
            "method": _safe_apply(plan.platform) if plan.changes else None,
            "steps": plan.hint if plan.changes else None,
        },
        "also_fixes": plan.also_fixes,
        "unfixed": [
            {**_finding(u.finding), "fingerprint": u.fingerprint, "why": u.why}
            for u in plan.unfixed
        ],
        "new_findings": [_finding(f) for f in plan.new_findings],
        "notes": plan.notes,
    }


def to_json(report: PlanReport) -> str:
    """The whole plan as sorted, deterministic JSON."""
    data = {
        "format": FORMAT,
        "mode": report.mode,
        "fail_on": report.fail_on.value,
        "devices": [device_json(p, report) for p in sorted(report.devices, key=lambda d: d.name)],
        "also_fixes": report.also_fixes,
        "new_findings": [_finding(f) for f in report.new_findings],
        "unfixed": [
            {**_finding(u.finding), "fingerprint": u.fingerprint, "why": u.why}
            for u in report.unfixed
        ],
    }
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def summary_line(plan: DevicePlan, report: PlanReport) -> str:
    """``leaf1 (sonic): 3 changes, 1 disruptive, fixes RT102, RT201``."""
    head = f"{plan.name} ({plan.platform or 'unknown platform'}): "
    if plan.status in ("skipped", "error"):
        return head + f"{plan.status}: {plan.message}"
    n = len(plan.changes)
    dis = sum(c.disruptive for c in plan.changes)
    line = head + f"{n} change{'s' if n != 1 else ''}, {dis} disruptive"
    codes = codes_of(plan, report)
    if codes:
        line += ", fixes " + ", ".join(codes)
    if not plan.changes and plan.message:
        line += f" ({plan.message})"
    return line


def _device_text(plan: DevicePlan, report: PlanReport) -> list[str]:
    lines = [summary_line(plan, report)]
    for i, c in enumerate(plan.changes, 1):
        mark = "DISRUPTIVE" if c.disruptive else "hitless"
        where = f" {c.port}" if c.port else ""
        fixed = sorted({report.codes.get(fp, "?") for fp in c.fixes})
        parts = [f"fixes {', '.join(fixed)}"] if fixed else []
        if c.because:
            parts.append(f"keeps {c.because} away")
        if report.mode == "converge":
            why = "converges to the rendered template"
        else:
            why = "; ".join(parts) or "fixes nothing the replay confirms"
        lines.append(f"  {i}. {mark} {c.kind}{where}: {why} [{change_id(plan.name, c)}]")
        lines.extend(f"       {t}" for t in c.text.splitlines())
        lines.append(f"     {c.reason}")
    if plan.changes:
        lines.append("  rollback (in this order):")
        lines.extend(f"       {t}" for r in plan.rollback for t in r.splitlines())
        lines.append(f"  apply: {plan.hint}")
    for u in plan.unfixed:
        where = u.finding.port or u.finding.link or "device"
        lines.append(f"  not fixed: {u.finding.code} {where}: {u.why}")
    for f in plan.new_findings:
        lines.append(
            f"  raised by the plan: {f.code} ({f.severity.value}) {f.port or ''} {f.observed}"
        )
    lines.extend(f"  note: {n}" for n in plan.notes)
    return lines


def to_text(report: PlanReport) -> str:
    """Human-readable plan: per device a summary line, then its changes."""
    lines: list[str] = []
    for plan in report.devices:
        lines.extend(_device_text(plan, report))
    total = sum(len(p.changes) for p in report.devices)
    dis = sum(c.disruptive for p in report.devices for c in p.changes)
    touched = sum(bool(p.changes) for p in report.devices)
    lines.append(
        f"{total} change(s), {dis} disruptive, on {touched} of {len(report.devices)} device(s) "
        f"({report.mode}, findings at or above {report.fail_on.value})"
    )
    for u in report.unfixed:
        lines.append(f"not fixed: {u.finding.code} (fabric): {u.why}")
    for f in report.new_findings:
        lines.append(f"raised by the plan: {f.code} ({f.severity.value}) {f.observed}")
    return "\n".join(lines) + "\n"

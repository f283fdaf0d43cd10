"""``rocetune render --only-fix``: the remediation plan as files an operator can apply.

Per device with changes: ``apply/<device>.fix.<ext>`` (the changes in apply order) and
``apply/<device>.rollback.<ext>`` (their inverse, in the order the platform takes), plus
``apply/plan.json`` (the whole plan, the input of ``rocetune apply``). SONiC files are JSON
Patch arrays for ``config apply-patch``; NVUE files hold ``nv set``/``nv unset`` lines;
EOS/NX-OS files config lines; host files shell scripts. Comments name each change's id and
the findings it fixes where the format has comments.
"""

from __future__ import annotations

import json

from rocetune.render.core import RenderedFile
from rocetune.render.device_plan import DevicePlan
from rocetune.render.plan import PlanReport, planner
from rocetune.render.plan_output import change_id, to_json


def _text(plan: DevicePlan, report: PlanReport, *, rollback: bool) -> str:
    fmt = planner(plan.platform) if plan.platform else None
    if fmt is not None and fmt.native == "patch":
        texts = plan.rollback if rollback else [c.text for c in plan.changes]
        return json.dumps([json.loads(t) for t in texts], indent=2, sort_keys=True) + "\n"
    mark = fmt.comment if fmt is not None else "#"
    lines: list[str] = list(fmt.prelude) if fmt is not None else []
    what = "rollback" if rollback else "fix"
    lines.append(f"{mark} rocetune {what} of {plan.name} ({report.mode}); apply: {plan.hint}")
    if rollback:
        lines.extend(ln for r in plan.rollback for ln in r.splitlines())
    else:
        for c in plan.changes:
            codes = sorted({report.codes.get(fp, "?") for fp in c.fixes})
            label = ", ".join(codes) or (c.because or "")
            lines.append(f"{mark} {change_id(plan.name, c)}: {c.kind}, fixes {label}")
            lines.extend(c.text.splitlines())
    return "\n".join(lines) + "\n"


def fix_files(report: PlanReport) -> dict[str, list[RenderedFile]]:
    """Device -> its fix and rollback files; the plan JSON under the key ``""``."""
    out: dict[str, list[RenderedFile]] = {}
    for plan in report.devices:
        if not plan.changes:
            continue
        fmt = planner(plan.platform) if plan.platform else None
        ext = fmt.fix_ext if fmt is not None else "sh"
        out[plan.name] = [
            RenderedFile(f"apply/{plan.name}.fix.{ext}", _text(plan, report, rollback=False)),
            RenderedFile(f"apply/{plan.name}.rollback.{ext}", _text(plan, report, rollback=True)),
        ]
    out[""] = [RenderedFile("apply/plan.json", to_json(report))]
    return out

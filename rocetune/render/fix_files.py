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
from rocetune.render.plan import PlanReport
from rocetune.render.plan_output import change_id, to_json

_EXT = {"sonic": "patch.json", "cumulus": "nv.txt", "eos": "cfg", "nxos": "cfg"}
_COMMENT = {"cumulus": "#", "eos": "!", "nxos": "!", "linux_host": "#"}


def _text(plan: DevicePlan, report: PlanReport, *, rollback: bool) -> str:
    if plan.platform == "sonic":
        texts = plan.rollback if rollback else [c.text for c in plan.changes]
        return json.dumps([json.loads(t) for t in texts], indent=2, sort_keys=True) + "\n"
    mark = _COMMENT.get(plan.platform or "", "#")
    lines: list[str] = []
    if plan.platform == "linux_host":
        lines += ["#!/bin/sh", "set -eu"]
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
        ext = _EXT.get(plan.platform or "", "sh")
        out[plan.name] = [
            RenderedFile(f"apply/{plan.name}.fix.{ext}", _text(plan, report, rollback=False)),
            RenderedFile(f"apply/{plan.name}.rollback.{ext}", _text(plan, report, rollback=True)),
        ]
    out[""] = [RenderedFile("apply/plan.json", to_json(report))]
    return out

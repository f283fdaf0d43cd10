"""The typed library API behind the CLI: every command's work, without printing.

- :mod:`.audits`: :func:`audit` an inventory, :func:`lint` config files;
- :mod:`.collecting`: :func:`collect` an inventory's devices over SSH, :func:`collect_local`;
- :mod:`.changes`: :func:`render` the intended configs, :func:`plan` the change;
- :mod:`.fixes`: :func:`attach_fixes` (the plan's changes per finding, for the reports'
  ``fix:`` lines; cached by content, :mod:`.fixcache`);
- :mod:`.verification`: :func:`verify_plan` and :func:`verify` (perftest over SSH, then audit);
- :mod:`.applying`: :func:`apply` a plan in a maintenance window (``rocetune.apply``).

Callers pick a reporter (:mod:`rocetune.report`). The result types live in the model
(:class:`rocetune.model.AuditResult`); they are re-exported here for library users.
Every module is imported on first use, so that ``rocetune audit`` does not load the
renderer or the SSH stack, nor ``rocetune collect`` the parsers and checks.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from rocetune.model import AuditResult, DeviceStatus

if TYPE_CHECKING:
    from rocetune.api.applying import apply
    from rocetune.api.audits import audit, audit_inventory, lint, lint_script_over
    from rocetune.api.changes import plan, render
    from rocetune.api.collecting import collect, collect_local
    from rocetune.api.fixes import attach_fixes
    from rocetune.api.verification import verify, verify_plan

_LAZY = {
    "audit": "audits",
    "audit_inventory": "audits",
    "lint": "audits",
    "lint_script_over": "audits",
    "apply": "applying",
    "attach_fixes": "fixes",
    "collect": "collecting",
    "collect_local": "collecting",
    "plan": "changes",
    "render": "changes",
    "verify": "verification",
    "verify_plan": "verification",
}

__all__ = [
    "AuditResult",
    "DeviceStatus",
    "apply",
    "attach_fixes",
    "audit",
    "audit_inventory",
    "collect",
    "collect_local",
    "lint",
    "lint_script_over",
    "plan",
    "render",
    "verify",
    "verify_plan",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(import_module(f"{__name__}.{module}"), name)

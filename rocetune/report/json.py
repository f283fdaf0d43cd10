"""JSON report, schema version 1 (documented in README.md, "JSON output").

Coverage notes (RT000) stay in ``findings`` and ``summary`` as schema version 1 defined
them, and are also listed apart in ``coverage`` (added, not changed: existing consumers
keep working; new ones read findings without RT000 and coverage from ``coverage``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rocetune.report import display_path
from rocetune.report.coverage import notes

if TYPE_CHECKING:
    from rocetune.model import AuditResult

SCHEMA_VERSION = 1
FINDING_KEYS = (
    "code",
    "name",
    "severity",
    "device",
    "port",
    "link",
    "message",
    "observed",
    "expected",
    "file",
    "line",
)


def to_data(result: AuditResult) -> dict[str, Any]:
    """Return the report as plain data."""
    findings = []
    for f in result.findings:
        row = f.model_dump(mode="json")
        row["file"] = display_path(f.file)
        findings.append({k: row[k] for k in FINDING_KEYS})
    devices = {
        name: {"platform": st.platform, "status": st.status, "error": st.error}
        for name, st in sorted(result.devices.items())
    }
    coverage = [n.to_data(display_path(n.file)) for n in notes(result.findings)]
    data: dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "findings": findings,
        "devices": devices,
        "summary": result.summary(),
        "coverage": coverage,
    }
    if result.verify is not None:  # only `rocetune verify` reports carry it
        data["verify"] = [row.to_data() for row in result.verify]
    return data


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the JSON report (stable key order, trailing newline)."""
    return json.dumps(to_data(result), indent=2) + "\n"

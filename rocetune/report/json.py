"""JSON report, schema version 1 (documented in README.md, "JSON output").

Coverage notes (RT000) stay in ``findings`` and ``summary`` as schema version 1 defined
them, and are also listed apart in ``coverage`` (added, not changed: existing consumers
keep working; new ones read findings without RT000 and coverage from ``coverage``).

Root causes are added the same way: ``findings`` stays one entry per port/link/device (the
machine-usable form; ``summary`` still counts them) and each finding gains ``fingerprint``
(the baseline/SARIF fingerprint) and ``root_cause`` (the ``id`` of the root cause it belongs
to or, for a consequence, is nested under; null for RT000). ``root_causes`` lists the
entries the text report prints (:mod:`rocetune.report.rootcause`) with their ports, links,
fix and consequences, and ``root_cause_summary`` counts them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rocetune.fingerprint import fingerprints
from rocetune.report import display_path
from rocetune.report.coverage import notes
from rocetune.report.rootcause import (
    RootCause,
    affected_ports,
    counts,
    distinct,
    index,
    root_causes,
)

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
    every = distinct(result.findings)
    causes = root_causes(every, result.fixes)
    where = index(causes)
    prints = dict(zip(map(id, every), fingerprints(every), strict=True))
    findings = []
    for f, fp in zip(every, prints.values(), strict=True):
        row = f.model_dump(mode="json")
        row["file"] = display_path(f.file)
        entry, parent = where.get(id(f), (None, None))
        owner = parent or entry
        findings.append(
            {
                **{k: row[k] for k in FINDING_KEYS},
                "fingerprint": fp,
                "root_cause": prints[id(owner.finding)] if owner is not None else None,
            }
        )
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
        "root_causes": [_cause(rc, prints, consequence=False) for rc in causes],
        "root_cause_summary": {
            **counts(causes),
            "root_causes": len(causes),
            "ports": affected_ports(causes),
            "findings": sum(len(rc.all_findings()) for rc in causes),
        },
    }
    if result.verify is not None:  # only `rocetune verify` reports carry it
        data["verify"] = [row.to_data() for row in result.verify]
    return data


def _cause(rc: RootCause, prints: dict[int, str], *, consequence: bool) -> dict[str, Any]:
    """One root cause (or consequence); ids and ``findings`` are the findings' fingerprints."""
    f = rc.finding
    out: dict[str, Any] = {
        "id": prints[id(f)],
        "code": f.code,
        "name": f.name,
        "severity": f.severity.value,
        "device": f.device,
        "ports": list(rc.ports),
        "links": list(rc.links),
        "message": f.message,
        "observed": f.observed,
        "expected": f.expected,
        "file": display_path(f.file),
        "line": f.line,
        "findings": [prints[id(m)] for m in rc.members],
    }
    if not consequence:
        out["fix"] = list(rc.fix)
        out["consequences"] = [_cause(c, prints, consequence=True) for c in rc.consequences]
    return out


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the JSON report (stable key order, trailing newline)."""
    return json.dumps(to_data(result), indent=2) + "\n"

"""SARIF 2.1.0 report for GitHub code scanning and other SARIF viewers.

- ``tool.driver.rules`` lists every registered rule (read at render time), so alerts of a
  rule that stopped firing close; descriptions and help come from ``rules/RTxxx.md``.
- Locations are config files relative to the ``SRCROOT`` base id (the working directory);
  a finding without a file of its own points at its device's snapshot, else at the
  inventory, and always carries a logical location ``device/port`` (or ``device/link``).
- One result per root cause (:mod:`rocetune.report.rootcause`): the findings of one rule on
  one config line (or fixed by one change) are one result whose ``locations`` are the
  config lines (usually one), each with a logical location per affected port or link;
  the consequences it explains (RT701-RT707) are ``relatedLocations`` and named in the
  message, not results of their own; the plan's change is in the message (``fix:``) and
  ``properties.fix``; ``properties.findings`` lists the member fingerprints.
- ``partialFingerprints["rocetune/v1"]`` is the fingerprint
  (:func:`rocetune.fingerprint.fingerprints`) of the finding shown for the root cause: a
  root cause of one finding keeps the fingerprint it had before grouping.
- Coverage notes (RT000: rules that could not run, lines not understood) are not results:
  they are ``invocations[0].toolExecutionNotifications`` (level ``note``, descriptor and
  associated rule RT000, with the device's location); ``run.properties.summary`` counts the
  results only and ``run.properties.coverage`` the notes.
- GitHub keeps at most 25,000 results per run: beyond that the most severe are kept and
  ``run.properties`` plus a tool notification say how many were left out.
  ``run.properties.summary`` counts the results (root causes) by level, ``findings`` the
  per-location findings they stand for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocetune import __version__
from rocetune.fingerprint import FINGERPRINT_KEY, fingerprints
from rocetune.model import Finding, Severity
from rocetune.report import display_path
from rocetune.report.coverage import counts, coverage_findings, headline, note, notes, real_findings
from rocetune.report.rootcause import RootCause, compact, distinct, root_causes
from rocetune.report.rootcause import counts as rc_counts
from rocetune.rules_docs import REPOSITORY_URL, doc_url, load_docs

if TYPE_CHECKING:
    from rocetune.checks.base import Rule
    from rocetune.model import AuditResult

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MAX_RESULTS = 25_000
"""GitHub code scanning's limit of results per run."""
SRCROOT = "SRCROOT"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule_entry(rule: type[Rule], docs: dict[str, Any]) -> dict[str, Any]:
    meta = rule.meta
    doc = docs.get(meta.code)
    what = doc.what if doc is not None and doc.what else meta.summary
    fix = doc.fix if doc is not None and doc.fix else f"See {doc_url(meta.code)}."
    help_md = f"**How to fix**\n\n{fix}\n\nFull rule documentation: {doc_url(meta.code)}"
    return {
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": what},
        "help": {"text": f"How to fix:\n{fix}", "markdown": help_md},
        "helpUri": doc_url(meta.code),
        "defaultConfiguration": {"level": LEVELS[meta.severity]},
        "properties": {
            "tags": list(dict.fromkeys(("roce", *meta.tags))),
            "scope": meta.scope,
            "precision": "high",
        },
    }


def driver(rules: tuple[type[Rule], ...]) -> dict[str, Any]:
    """The ``tool.driver`` object listing ``rules``."""
    docs = load_docs([r.meta.code for r in rules])
    return {
        "name": "rocetune",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": REPOSITORY_URL,
        "rules": [_rule_entry(r, docs) for r in rules],
    }


def _where(f: Finding) -> str:
    if f.link:
        return f.link
    return " ".join(p for p in (f.device, f.port) if p) or "fabric"


def _message(f: Finding) -> str:
    text = f"{_where(f)}: {f.message}"
    if f.observed is not None or f.expected is not None:
        text += f" (observed: {f.observed}; expected: {f.expected})"
    return text


def _logical(f: Finding) -> list[dict[str, Any]]:
    leaf = f.link or f.port
    if f.device is None and leaf is None:
        return [{"name": "fabric", "fullyQualifiedName": "fabric", "kind": "module"}]
    qualified = "/".join(p for p in (f.device, leaf) if p)
    return [{"name": leaf or f.device, "fullyQualifiedName": qualified, "kind": "resource"}]


def _device_file(result: AuditResult, device: str) -> str | None:
    prov = result.provenance.get(device)
    ref = prov.lookup(None) if prov is not None else None
    return ref.file if ref is not None else None


def _source(f: Finding, result: AuditResult) -> tuple[str | None, int | None]:
    """Where a result points: the finding's file and line, else its device's config, else
    the inventory, else (fabric-wide lint findings) the first device's config file.

    GitHub rejects a SARIF file whose results lack a physical location.
    """
    if f.file is not None:
        return f.file, f.line
    if f.device is not None:
        own = _device_file(result, f.device)
        if own is not None:
            return own, None
    if result.inventory is not None:
        return result.inventory, None
    if f.device is None:
        files = (_device_file(result, name) for name in sorted(result.provenance))
        return next((file for file in files if file is not None), None), None
    return None, None


def _artifact(file: str, base: Path) -> dict[str, Any]:
    shown = display_path(file, base) or file
    if Path(shown).is_absolute():
        return {"uri": Path(shown).as_uri()}
    return {"uri": shown, "uriBaseId": SRCROOT}


def _location(f: Finding, result: AuditResult, base: Path) -> dict[str, Any]:
    loc: dict[str, Any] = {}
    file, line = _source(f, result)
    if file is not None:
        physical: dict[str, Any] = {"artifactLocation": _artifact(file, base)}
        if line is not None and line >= 1:
            physical["region"] = {"startLine": line}
        loc["physicalLocation"] = physical
    loc["logicalLocations"] = _logical(f)
    return loc


def _places(rc: RootCause) -> str:
    places = rc.places
    if len(places) <= 1:
        return _where(rc.finding)
    kind = "links" if rc.links else "ports"
    return f"{rc.device or 'fabric'} {len(places)} {kind} ({compact(places)})"


def _cause_message(rc: RootCause) -> str:
    f = rc.finding
    text = f"{_places(rc)}: {f.message}"
    if f.observed is not None or f.expected is not None:
        text += f" (observed: {f.observed}; expected: {f.expected})"
    for fix in rc.fix:
        text += f"\nfix: {fix}"
    for sub in rc.consequences:
        text += f"\nconsequence: {sub.code} {sub.finding.name} on {_places(sub)}"
    return text


def _locations(rc: RootCause, result: AuditResult, base: Path) -> list[dict[str, Any]]:
    """One location per distinct config line of the members (the shown member's first),
    each with the logical locations (ports/links) that line affects."""
    by_line: dict[tuple[str | None, int | None], list[Finding]] = {}
    for f in rc.members:
        by_line.setdefault(_source(f, result), []).append(f)
    out = []
    for members in by_line.values():
        loc = _location(members[0], result, base)
        loc["logicalLocations"] = [lg for f in members for lg in _logical(f)]
        out.append(loc)
    return out


def _result(
    rc: RootCause, prints: dict[int, str], index: dict[str, int], result: AuditResult, base: Path
) -> dict[str, Any]:
    f = rc.finding
    out: dict[str, Any] = {"ruleId": f.code}
    if f.code in index:
        out["ruleIndex"] = index[f.code]
    out["level"] = LEVELS[f.severity]
    out["message"] = {"text": _cause_message(rc)}
    out["locations"] = _locations(rc, result, base)
    related = [
        {**_location(c, result, base), "message": {"text": f"{c.code} {c.name}: {c.message}"}}
        for sub in rc.consequences
        for c in sub.members
    ]
    if related:
        out["relatedLocations"] = [{"id": i, **loc} for i, loc in enumerate(related)]
    out["partialFingerprints"] = {FINGERPRINT_KEY: prints[id(f)]}
    props: dict[str, Any] = {
        k: getattr(f, k) for k in ("device", "port", "link", "observed", "expected")
    }
    props = {k: v for k, v in props.items() if v is not None}
    props["findings"] = [prints[id(m)] for m in rc.members]
    if len(rc.members) > 1 or rc.consequences:
        props["ports"] = list(rc.ports)
        props["links"] = list(rc.links)
        props["consequences"] = [prints[id(c)] for sub in rc.consequences for c in sub.members]
    if rc.fix:
        props["fix"] = list(rc.fix)
    out["properties"] = props
    return out


def keep_most_severe(findings: Sequence[Finding | RootCause], limit: int) -> list[int]:
    """Indexes of the entries kept under ``limit``: most severe first, report order kept."""
    order = sorted(range(len(findings)), key=lambda i: -findings[i].severity.rank)
    return sorted(order[:limit])


def _coverage_notification(f: Finding, result: AuditResult, base: Path) -> dict[str, Any]:
    """An RT000 note as a tool notification: what could not be checked, and where."""
    return {
        "level": "note",
        "message": {"text": _message(f)},
        "descriptor": {"id": f.code},
        "associatedRule": {"id": f.code},
        "locations": [_location(f, result, base)],
        "properties": {"rules": list(note(f).rules), "kind": note(f).kind},
    }


def _invocation(
    result: AuditResult, dropped: int, total: int, base: Path | None = None
) -> dict[str, Any]:
    notes: list[dict[str, Any]] = []
    if dropped:
        text = (
            f"{dropped} of {total} results were left out (GitHub keeps at most "
            f"{total - dropped} per run); the most severe were kept"
        )
        notes.append(
            {"level": "warning", "message": {"text": text}, "descriptor": {"id": "truncated"}}
        )
    for err in result.errors:
        notes.append(
            {"level": "error", "message": {"text": str(err)}, "descriptor": {"id": "input-error"}}
        )
    if base is not None:
        notes += [
            _coverage_notification(f, result, base) for f in coverage_findings(result.findings)
        ]
    inv: dict[str, Any] = {"executionSuccessful": not result.errors}
    if notes:
        inv["toolExecutionNotifications"] = notes
    return inv


def to_sarif(
    result: AuditResult, base: Path | None = None, max_results: int = MAX_RESULTS
) -> dict[str, Any]:
    """The SARIF log as plain data; ``base`` is SRCROOT (default: the working directory)."""
    from rocetune.checks.registry import all_rules

    base = (base or Path.cwd()).resolve()
    rules = all_rules()
    index = {r.meta.code: i for i, r in enumerate(rules)}
    findings = distinct(real_findings(result.findings))
    prints = dict(zip(map(id, findings), fingerprints(findings), strict=True))
    causes = root_causes(findings, result.fixes)
    kept = keep_most_severe(causes, max_results)
    total = len(causes)
    results = [_result(causes[i], prints, index, result, base) for i in kept]
    covered = coverage_findings(result.findings)
    run: dict[str, Any] = {
        "tool": {"driver": driver(rules)},
        "invocations": [_invocation(result, total - len(kept), total, base)],
        "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
        "results": results,
        "columnKind": "unicodeCodePoints",
        "properties": {
            "truncated": len(kept) < total,
            "totalResults": total,
            "reportedResults": len(kept),
            "summary": rc_counts(causes),
            "findings": counts(findings),
            "coverage": {"notes": len(covered), "text": headline(notes(covered))},
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the SARIF log (stable key order, trailing newline)."""
    return json.dumps(to_sarif(result), indent=2) + "\n"

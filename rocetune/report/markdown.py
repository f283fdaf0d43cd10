"""GitHub-flavoured Markdown: a job summary (``>> "$GITHUB_STEP_SUMMARY"``) or a PR comment.

Layout: a headline with the root causes by severity (:mod:`rocetune.report.rootcause`) and
the devices checked; a table of devices (platform, status, root-cause counts); the root
causes, most severe first, as a table (severity, rule, where: device and the ports/links
affected, message with the plan's fix and the consequences, file:line), capped at
:data:`MAX_ROWS` rows with a line saying how many were left out (GitHub limits a step
summary to 1 MiB); coverage notes (RT000: what could not be checked) in a collapsed
``<details>`` block, not counted as findings. Every cell is escaped (``|``, backticks,
``<``/``>``, newlines), so a message from a config cannot break the table or inject markup.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocetune.model import Finding, Severity
from rocetune.report import display_path
from rocetune.report.coverage import notes
from rocetune.report.rootcause import RootCause, compact, root_causes

if TYPE_CHECKING:
    from rocetune.model import AuditResult

MAX_ROWS = 500
"""Finding rows shown; GitHub truncates a step summary above 1 MiB."""
_ICON = {Severity.ERROR: "🔴 error", Severity.WARNING: "🟠 warning", Severity.INFO: "🔵 info"}
_SPECIAL = re.compile(r"([\\|`*_\[\]<>#])")


def cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell (one line, markup escaped)."""
    flat = " ".join(str(text).split())
    return _SPECIAL.sub(r"\\\1", flat) if flat else " "


def _where(f: Finding) -> str:
    return f.link or " ".join(p for p in (f.device, f.port) if p) or "fabric"


def code(text: str) -> str:
    """``text`` as an inline code span on one line (backticks and ``|`` cannot end it)."""
    flat = " ".join(text.split()).replace("`", "'").replace("|", "\\|")
    return f"`{flat}`" if flat else " "


def _location(f: Finding) -> str:
    path = display_path(f.file)
    if not path:
        return " "
    return code(f"{path}:{f.line}" if f.line else path)


def _headline(result: AuditResult, causes: list[RootCause]) -> str:
    counts = {s: sum(1 for rc in causes if rc.severity is s) for s in Severity}
    parts = [f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}" for s in _ICON]
    devices = len(result.devices)
    failed = sum(1 for d in result.devices.values() if d.status != "ok")
    tail = f" ({failed} not checked)" if failed else ""
    verdict = "❌" if counts[Severity.ERROR] or result.errors else "✅"
    found = sum(len(rc.all_findings()) for rc in causes)
    scope = f" ({len(causes)} root cause(s), {found} finding(s))" if causes else ""
    return f"{verdict} **rocetune**: {', '.join(parts)}{scope} on {devices} device(s){tail}"


def _devices(result: AuditResult, causes: list[RootCause]) -> list[str]:
    rows = [
        "| device | platform | status | errors | warnings | info |",
        "|---|---|---|--:|--:|--:|",
    ]
    for name in sorted(result.devices):
        status = result.devices[name]
        own = [rc for rc in causes if rc.device == name]
        count = [sum(1 for f in own if f.severity is s) for s in _ICON]
        state = "ok" if status.status == "ok" else f"not checked: {status.error or 'error'}"
        rows.append(
            f"| {cell(name)} | {cell(status.platform or '?')} | {cell(state)} | "
            + " | ".join(str(c) for c in count)
            + " |"
        )
    return rows


def finding_rows(findings: list[Finding]) -> list[str]:
    """A table of ``findings``, most severe first, capped at :data:`MAX_ROWS` rows."""
    order = sorted(findings, key=lambda f: -f.severity.rank)
    rows = ["| severity | rule | where | message | file |", "|---|---|---|---|---|"]
    for f in order[:MAX_ROWS]:
        rows.append(
            f"| {_ICON[f.severity]} | {cell(f.code)} {cell(f.name)} | {cell(_where(f))} | "
            f"{cell(f.message)} | {_location(f)} |"
        )
    if len(order) > MAX_ROWS:
        left = len(order) - MAX_ROWS
        rows += ["", f"{left} more finding(s) not shown; see the SARIF or JSON report."]
    return rows


def cause_rows(causes: list[RootCause]) -> list[str]:
    """A table of root causes (most severe first, capped at :data:`MAX_ROWS` rows): where
    (device and the ports/links it affects), message, the plan's fix, consequences."""
    rows = ["| severity | rule | where | message | file |", "|---|---|---|---|---|"]
    for rc in causes[:MAX_ROWS]:
        f = rc.finding
        where = _where(f)
        if len(rc.places) > 1:
            where = f"{f.device or 'fabric'} {compact(rc.places)}"
        text = cell(f.message)
        text += "".join(f"<br>fix: {code(fix)}" for fix in rc.fix)
        text += "".join(
            f"<br>consequence: {cell(sub.code)} {cell(sub.finding.name)}"
            f" on {cell(compact(sub.places) or sub.device or 'fabric')}"
            for sub in rc.consequences
        )
        rows.append(
            f"| {_ICON[f.severity]} | {cell(f.code)} {cell(f.name)} | {cell(where)} | "
            f"{text} | {_location(f)} |"
        )
    if len(causes) > MAX_ROWS:
        left = len(causes) - MAX_ROWS
        rows += ["", f"{left} more root cause(s) not shown; see the SARIF or JSON report."]
    return rows


def render(result: AuditResult, colour: bool = False) -> str:
    """The Markdown report of ``result`` (``colour`` is ignored)."""
    del colour
    causes = root_causes(result.findings, result.fixes)
    out = [_headline(result, causes), ""]
    for err in result.errors:
        out.append(f"> **input error**: {cell(err)}")
    if result.errors:
        out.append("")
    out += [*_devices(result, causes), ""]
    if causes:
        out += ["### Root causes", "", *cause_rows(causes), ""]
    covered = notes(result.findings)
    if covered:
        out += [
            f"<details><summary>Not checked ({len(covered)} coverage note(s))</summary>",
            "",
            "| device | rules | what |",
            "|---|---|---|",
        ]
        out += [
            f"| {cell(n.device or 'fabric')} | {cell(n.who)} | {cell(n.detail)} |" for n in covered
        ]
        out += ["", "</details>", ""]
    return "\n".join(out).rstrip("\n") + "\n"
